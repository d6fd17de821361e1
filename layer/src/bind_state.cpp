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

void BindState::apply(const CmdBindSets& c) {
    size_t next_offset = 0;
    for (size_t i = 0; i < c.sets.size(); ++i) {
        BoundSet s;
        s.contents = c.sets[i];
        s.layout = c.set_layouts[i];
        const uint32_t n = dynamic_count(s.layout.get());
        for (uint32_t k = 0; k < n && next_offset < c.dynamic_offsets.size(); ++k)
            s.dynamic_offsets.push_back(c.dynamic_offsets[next_offset++]);
        sets[c.first_set + static_cast<uint32_t>(i)] = std::move(s);
    }
}

void BindState::apply(const CmdPushDescriptors& c) {
    BoundSet& s = sets[c.set];
    // Pushed descriptors add to those pushed before into the same set; a set bound from a
    // descriptor set before is replaced.
    auto contents = s.pushed && s.contents ? std::make_shared<SetContents>(*s.contents)
                                           : std::make_shared<SetContents>();
    for (const auto& [binding, entries] : c.writes.bindings) {
        auto& slots = contents->at(binding);
        if (slots.size() < entries.size()) slots.resize(entries.size());
        for (size_t e = 0; e < entries.size(); ++e)
            if (entries[e].type != VK_DESCRIPTOR_TYPE_MAX_ENUM) slots[e] = entries[e];
    }
    s.contents = std::move(contents);
    s.layout = nullptr;
    s.dynamic_offsets.clear();
    s.pushed = true;
}

void BindState::apply(const CmdPushConstants& c) {
    if (push_constants.size() < c.offset + c.bytes.size())
        push_constants.resize(c.offset + c.bytes.size());
    std::copy(c.bytes.begin(), c.bytes.end(), push_constants.begin() + c.offset);
}

}  // namespace graphlens::layer
