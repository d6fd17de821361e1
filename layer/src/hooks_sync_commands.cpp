// Barriers, event sets and event waits, recorded in Vulkan's masks and mapped onto GraphLens's
// barrier scopes (barrier_mapping.h) when resolved (command_resolution.h). A buffer barrier
// keeps its bytes; an image barrier keeps only its execution dependency (images have no byte
// ranges in a capture). An event wait is a barrier at the wait whose dependencies keep the
// events they wait for: at submission each gets the position of its event's latest set
// (MemoryDependency::event_set_at), so that the commands between the set and the wait are
// not taken as ordered by it.
#include "layer/src/command_recording.h"
#include "layer/src/diagnostics.h"
#include "layer/src/hook_table.h"

namespace graphlens::layer {
namespace {

RecordedDependency dependency(VkPipelineStageFlags2 src_stages, VkPipelineStageFlags2 dst_stages,
                              VkAccessFlags2 src_access, VkAccessFlags2 dst_access) {
    RecordedDependency r;
    r.src_stages = src_stages;
    r.dst_stages = dst_stages;
    r.src_access = src_access;
    r.dst_access = dst_access;
    return r;
}

RecordedSpan span_of(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size) {
    return RecordedSpan{handle_bits(buffer), offset, size, false};
}

/// vkCmdPipelineBarrier / vkCmdWaitEvents: one pair of stage masks for every barrier given.
Slice barrier_v1(CommandList& list, VkPipelineStageFlags src, VkPipelineStageFlags dst,
                 uint32_t memory_count, const VkMemoryBarrier* memory, uint32_t buffer_count,
                 const VkBufferMemoryBarrier* buffers) {
    const auto first = static_cast<uint32_t>(list.dependencies.size());
    for (uint32_t i = 0; i < memory_count; ++i)
        list.dependencies.push_back(
            dependency(src, dst, memory[i].srcAccessMask, memory[i].dstAccessMask));
    for (uint32_t i = 0; i < buffer_count; ++i) {
        const auto& b = buffers[i];
        auto r = dependency(src, dst, b.srcAccessMask, b.dstAccessMask);
        r.has_span = true;
        r.span = span_of(b.buffer, b.offset, b.size);
        list.dependencies.push_back(r);
    }
    // Without a memory or buffer barrier (or with image barriers only) the command still orders
    // execution.
    if (list.dependencies.size() == first) list.dependencies.push_back(dependency(src, dst, 0, 0));
    return {first, static_cast<uint32_t>(list.dependencies.size()) - first};
}

Slice barrier_v2(CommandList& list, const VkDependencyInfo& info) {
    const auto first = static_cast<uint32_t>(list.dependencies.size());
    for (uint32_t i = 0; i < info.memoryBarrierCount; ++i) {
        const auto& m = info.pMemoryBarriers[i];
        list.dependencies.push_back(
            dependency(m.srcStageMask, m.dstStageMask, m.srcAccessMask, m.dstAccessMask));
    }
    for (uint32_t i = 0; i < info.bufferMemoryBarrierCount; ++i) {
        const auto& b = info.pBufferMemoryBarriers[i];
        auto r = dependency(b.srcStageMask, b.dstStageMask, b.srcAccessMask, b.dstAccessMask);
        r.has_span = true;
        r.span = span_of(b.buffer, b.offset, b.size);
        list.dependencies.push_back(r);
    }
    for (uint32_t i = 0; i < info.imageMemoryBarrierCount; ++i) {
        const auto& m = info.pImageMemoryBarriers[i];
        list.dependencies.push_back(dependency(m.srcStageMask, m.dstStageMask, 0, 0));
    }
    return {first, static_cast<uint32_t>(list.dependencies.size()) - first};
}

VKAPI_ATTR void VKAPI_CALL hook_CmdPipelineBarrier(
    VkCommandBuffer cb, VkPipelineStageFlags src, VkPipelineStageFlags dst, VkDependencyFlags flags,
    uint32_t memory_count, const VkMemoryBarrier* memory, uint32_t buffer_count,
    const VkBufferMemoryBarrier* buffers, uint32_t image_count,
    const VkImageMemoryBarrier* images) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    d->dispatch.CmdPipelineBarrier(cb, src, dst, flags, memory_count, memory, buffer_count, buffers,
                                   image_count, images);
    guarded("vkCmdPipelineBarrier", [&] {
        record_command(*d, cb, [&](CommandList& list) {
            CmdBarrier c;
            c.dependencies =
                barrier_v1(list, src, dst, memory_count, memory, buffer_count, buffers);
            return c;
        });
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdPipelineBarrier2(VkCommandBuffer cb,
                                                    const VkDependencyInfo* info) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    auto next = d->dispatch.CmdPipelineBarrier2 ? d->dispatch.CmdPipelineBarrier2
                                                : d->dispatch.CmdPipelineBarrier2KHR;
    next(cb, info);
    guarded("vkCmdPipelineBarrier2", [&] {
        record_command(*d, cb, [&](CommandList& list) {
            CmdBarrier c;
            c.dependencies = barrier_v2(list, *info);
            return c;
        });
    });
}

constexpr const char* kWaitNote =
    "vkCmdWaitEvents: a barrier at the wait with the wait's scopes, ordering only the commands "
    "before the matching vkCmdSetEvent";

/// Gives the dependencies [first, end) of `list` the events they wait for.
void wait_for(CommandList& list, uint32_t first, Slice events) {
    for (uint32_t i = first; i < list.dependencies.size(); ++i)
        list.dependencies[i].events = events;
}

void record_event_command(VkCommandBuffer cb, const char* name, VkEvent event, bool set) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    guarded(name, [&] {
        record_command(*d, cb, [&](CommandList&) -> RecordedCommand {
            if (set) return CmdSetEvent{handle_bits(event)};
            return CmdResetEvent{handle_bits(event)};
        });
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdSetEvent(VkCommandBuffer cb, VkEvent event,
                                            VkPipelineStageFlags stages) {
    if (DeviceState* d = device_of(cb)) d->dispatch.CmdSetEvent(cb, event, stages);
    record_event_command(cb, "vkCmdSetEvent", event, true);
}

VKAPI_ATTR void VKAPI_CALL hook_CmdSetEvent2(VkCommandBuffer cb, VkEvent event,
                                             const VkDependencyInfo* info) {
    if (DeviceState* d = device_of(cb))
        (d->dispatch.CmdSetEvent2 ? d->dispatch.CmdSetEvent2 : d->dispatch.CmdSetEvent2KHR)(
            cb, event, info);
    record_event_command(cb, "vkCmdSetEvent2", event, true);
}

VKAPI_ATTR void VKAPI_CALL hook_CmdResetEvent(VkCommandBuffer cb, VkEvent event,
                                              VkPipelineStageFlags stages) {
    if (DeviceState* d = device_of(cb)) d->dispatch.CmdResetEvent(cb, event, stages);
    record_event_command(cb, "vkCmdResetEvent", event, false);
}

VKAPI_ATTR void VKAPI_CALL hook_CmdResetEvent2(VkCommandBuffer cb, VkEvent event,
                                               VkPipelineStageFlags2 stages) {
    if (DeviceState* d = device_of(cb))
        (d->dispatch.CmdResetEvent2 ? d->dispatch.CmdResetEvent2 : d->dispatch.CmdResetEvent2KHR)(
            cb, event, stages);
    record_event_command(cb, "vkCmdResetEvent2", event, false);
}

VKAPI_ATTR void VKAPI_CALL hook_CmdWaitEvents(VkCommandBuffer cb, uint32_t event_count,
                                              const VkEvent* events, VkPipelineStageFlags src,
                                              VkPipelineStageFlags dst, uint32_t memory_count,
                                              const VkMemoryBarrier* memory, uint32_t buffer_count,
                                              const VkBufferMemoryBarrier* buffers,
                                              uint32_t image_count,
                                              const VkImageMemoryBarrier* images) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    d->dispatch.CmdWaitEvents(cb, event_count, events, src, dst, memory_count, memory, buffer_count,
                              buffers, image_count, images);
    guarded("vkCmdWaitEvents", [&] {
        record_command(*d, cb, [&](CommandList& list) {
            CmdBarrier c;
            c.origin = BarrierOrigin::wait_events;
            c.note = kWaitNote;
            // Every dependency waits for all the events: the first scope is the union of
            // their sets'.
            const Slice waited{static_cast<uint32_t>(list.handles.size()), event_count};
            for (uint32_t i = 0; i < event_count; ++i)
                list.handles.push_back(handle_bits(events[i]));
            c.dependencies =
                barrier_v1(list, src, dst, memory_count, memory, buffer_count, buffers);
            wait_for(list, c.dependencies.begin, waited);
            return c;
        });
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdWaitEvents2(VkCommandBuffer cb, uint32_t event_count,
                                               const VkEvent* events,
                                               const VkDependencyInfo* infos) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    auto next =
        d->dispatch.CmdWaitEvents2 ? d->dispatch.CmdWaitEvents2 : d->dispatch.CmdWaitEvents2KHR;
    next(cb, event_count, events, infos);
    guarded("vkCmdWaitEvents2", [&] {
        record_command(*d, cb, [&](CommandList& list) {
            CmdBarrier c;
            c.origin = BarrierOrigin::wait_events;
            c.note = kWaitNote;
            c.dependencies.begin = static_cast<uint32_t>(list.dependencies.size());
            // Consecutive calls append consecutive dependencies: one slice holds them all.
            // pDependencyInfos[i] belongs to pEvents[i] alone.
            for (uint32_t i = 0; i < event_count; ++i) {
                const Slice event = list.append_one(list.handles, handle_bits(events[i]));
                const Slice deps = barrier_v2(list, infos[i]);
                wait_for(list, deps.begin, event);
                c.dependencies.count += deps.count;
            }
            return c;
        });
    });
}

}  // namespace

void add_sync_command_hooks(HookTable& t) {
    t.device["vkCmdPipelineBarrier"] = as_void_fn(&hook_CmdPipelineBarrier);
    t.device["vkCmdPipelineBarrier2"] = as_void_fn(&hook_CmdPipelineBarrier2);
    t.device["vkCmdPipelineBarrier2KHR"] = as_void_fn(&hook_CmdPipelineBarrier2);
    t.device["vkCmdSetEvent"] = as_void_fn(&hook_CmdSetEvent);
    t.device["vkCmdSetEvent2"] = as_void_fn(&hook_CmdSetEvent2);
    t.device["vkCmdSetEvent2KHR"] = as_void_fn(&hook_CmdSetEvent2);
    t.device["vkCmdResetEvent"] = as_void_fn(&hook_CmdResetEvent);
    t.device["vkCmdResetEvent2"] = as_void_fn(&hook_CmdResetEvent2);
    t.device["vkCmdResetEvent2KHR"] = as_void_fn(&hook_CmdResetEvent2);
    t.device["vkCmdWaitEvents"] = as_void_fn(&hook_CmdWaitEvents);
    t.device["vkCmdWaitEvents2"] = as_void_fn(&hook_CmdWaitEvents2);
    t.device["vkCmdWaitEvents2KHR"] = as_void_fn(&hook_CmdWaitEvents2);
}

}  // namespace graphlens::layer
