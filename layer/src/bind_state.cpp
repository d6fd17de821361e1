#include "layer/src/bind_state.h"

#include "layer/src/descriptor_writes.h"

namespace graphlens::layer {
namespace {

uint32_t dynamic_count(const SetLayoutState* layout) {
    uint32_t n = 0;
    if (layout)
        for (const auto& b : layout->bindings)
            if (is_dynamic_descriptor(b.type)) n += b.count;
    return n;
}

}  // namespace

uint32_t BoundSet::dynamic_offset(uint32_t binding, uint32_t element) const {
    if (!layout) return 0;
    // Dynamic offsets are consumed in binding order, then array element order (the spec's
    // rule for vkCmdBindDescriptorSets).
    size_t index = 0;
    for (const auto& b : layout->bindings) {
        if (!is_dynamic_descriptor(b.type)) continue;
        if (b.binding == binding) {
            index += element;
            return index < dynamic_offsets.size() ? dynamic_offsets[index] : 0;
        }
        index += b.count;
    }
    return 0;
}

void BindState::apply(SubmissionHandles& handles, const DeviceState& device,
                      const CmdBindPipeline& c) {
    pipeline = handles.pipelines.find(device.pipelines, c.pipeline).get();
}

void BindState::apply(SubmissionHandles& handles, const DeviceState& device,
                      const CommandList& list, const CmdBindSets& c) {
    const uint64_t* sets_bound = CommandList::begin_of(list.handles, c.sets);
    const uint32_t* offsets = CommandList::begin_of(list.words, c.dynamic_offsets);
    size_t next_offset = 0;
    for (uint32_t i = 0; i < c.sets.count; ++i) {
        BoundSet s;
        if (const auto& set = handles.descriptor_sets.find(device.descriptor_sets, sets_bound[i])) {
            s.contents = set->contents;
            s.layout = set->layout;
        }
        const uint32_t n = dynamic_count(s.layout.get());
        for (uint32_t k = 0; k < n && next_offset < c.dynamic_offsets.count; ++k)
            s.dynamic_offsets.push_back(offsets[next_offset++]);
        sets[c.first_set + i] = std::move(s);
    }
}

void BindState::apply(SubmissionHandles& handles, DeviceState& device, const CommandList& list,
                      const CmdPushDescriptors& c) {
    BoundSet& s = sets[c.set];
    // Pushed descriptors add to those pushed before into the same set; a set bound from a
    // descriptor set before is replaced.
    if (!s.pushed_contents)
        s.pushed_contents = std::make_shared<SetContents>();
    else if (!s.pushed)
        s.pushed_contents->bindings.clear();
    const auto& layout = handles.pipeline_layouts.find(device.pipeline_layouts, c.layout);
    const SetLayoutState* set_layout =
        layout && c.set < layout->sets.size() ? layout->sets[c.set].get() : nullptr;
    const RecordedWrite* writes = CommandList::begin_of(list.writes, c.writes);
    for (uint32_t i = 0; i < c.writes.count; ++i) {
        const RecordedWrite& r = writes[i];
        VkWriteDescriptorSet w{};
        w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        w.dstBinding = r.binding;
        w.dstArrayElement = r.array_element;
        w.descriptorCount = r.count;
        w.descriptorType = r.type;
        w.pBufferInfo = r.buffer_infos.count == r.count && r.count
                            ? CommandList::begin_of(list.buffer_infos, r.buffer_infos)
                            : nullptr;
        apply_write(device, set_layout, w, *s.pushed_contents, &handles.buffers);
    }
    if (s.contents != s.pushed_contents) s.contents = s.pushed_contents;
    s.layout = nullptr;
    s.dynamic_offsets.clear();
    s.pushed = true;
}

void BindState::apply(const CommandList& list, const CmdPushConstants& c) {
    const uint8_t* bytes = CommandList::begin_of(list.bytes, c.bytes);
    if (push_constants.size() < c.offset + c.bytes.count)
        push_constants.resize(c.offset + c.bytes.count);
    std::copy(bytes, bytes + c.bytes.count, push_constants.begin() + c.offset);
}

}  // namespace graphlens::layer
