#include "layer/src/command_resolution.h"

#include <algorithm>

#include "layer/src/barrier_mapping.h"

namespace graphlens::layer {

BufferSpan resolve_span(const DeviceState& device, const RecordedSpan& span) {
    BufferSpan s;
    s.buffer = device.buffers.find(span.buffer);
    s.offset = span.offset;
    s.size = span.size;
    if (span.size == VK_WHOLE_SIZE)
        s.size = s.buffer && s.buffer->size > span.offset ? s.buffer->size - span.offset : 0;
    if (span.whole_words) s.size &= ~uint64_t{3};
    return s;
}

ResolvedDispatch resolve_dispatch(const DeviceState& device, const CmdDispatch& cmd) {
    ResolvedDispatch r;
    r.groups = cmd.groups;
    r.base = cmd.base;
    r.is_indirect = cmd.is_indirect;
    if (cmd.is_indirect)
        r.indirect_args =
            resolve_span(device, RecordedSpan{cmd.indirect_buffer, cmd.indirect_offset,
                                              sizeof(VkDispatchIndirectCommand), false});
    return r;
}

ResolvedTransfer resolve_transfer(const DeviceState& device, const CommandList& list,
                                  const CmdTransfer& cmd) {
    ResolvedTransfer r;
    r.name = cmd.name;
    for (auto [slice, out] : {std::pair{cmd.reads, &r.reads}, {cmd.writes, &r.writes}}) {
        const RecordedSpan* spans = CommandList::begin_of(list.spans, slice);
        for (uint32_t i = 0; i < slice.count; ++i) out->push_back(resolve_span(device, spans[i]));
    }
    const uint8_t* data = CommandList::begin_of(list.bytes, cmd.data);
    r.data.assign(data, data + cmd.data.count);
    return r;
}

namespace {

// The latest set of the waited events: the wait's first scope is the union of the sets'.
std::optional<uint32_t> event_set_at(const CommandList& list, Slice events,
                                     const EventSets& event_sets) {
    if (events.count == 0) return std::nullopt;
    uint32_t latest = 0;
    const uint64_t* handles = CommandList::begin_of(list.handles, events);
    for (uint32_t i = 0; i < events.count; ++i)
        if (auto it = event_sets.find(handles[i]); it != event_sets.end())
            latest = std::max(latest, it->second);
    return latest;
}

}  // namespace

void resolve_barrier(const DeviceState& device, const CommandList& list, const CmdBarrier& cmd,
                     const EventSets& event_sets, ResolvedBarrier& r) {
    r.origin = cmd.origin;
    r.note = cmd.note;
    r.dependencies.clear();
    const RecordedDependency* deps = CommandList::begin_of(list.dependencies, cmd.dependencies);
    for (uint32_t i = 0; i < cmd.dependencies.count; ++i) {
        const RecordedDependency& d = deps[i];
        ResolvedDependency out;
        out.dependency.src_stages = map_stages(d.src_stages, ScopeSide::first);
        out.dependency.dst_stages = map_stages(d.dst_stages, ScopeSide::second);
        out.dependency.src_access = map_access(d.src_access, out.dependency.src_stages);
        out.dependency.dst_access = map_access(d.dst_access, out.dependency.dst_stages);
        if (d.has_span) out.span = resolve_span(device, d.span);
        out.dependency.event_set_at = event_set_at(list, d.events, event_sets);
        r.dependencies.push_back(std::move(out));
    }
}

}  // namespace graphlens::layer
