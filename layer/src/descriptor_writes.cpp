#include "layer/src/descriptor_writes.h"

#include <algorithm>
#include <cstring>

namespace graphlens::layer {

std::vector<DescriptorEntry>& SetContents::at(uint32_t binding) {
    auto it = std::lower_bound(bindings.begin(), bindings.end(), binding,
                               [](const auto& e, uint32_t b) { return e.first < b; });
    if (it == bindings.end() || it->first != binding) it = bindings.insert(it, {binding, {}});
    return it->second;
}

const std::vector<DescriptorEntry>* SetContents::find(uint32_t binding) const {
    auto it = std::lower_bound(bindings.begin(), bindings.end(), binding,
                               [](const auto& e, uint32_t b) { return e.first < b; });
    return it == bindings.end() || it->first != binding ? nullptr : &it->second;
}

bool is_buffer_descriptor(VkDescriptorType type) {
    return type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER || type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER ||
           is_dynamic_descriptor(type);
}

bool is_dynamic_descriptor(VkDescriptorType type) {
    return type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC ||
           type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
}

namespace {

DescriptorEntry buffer_entry(DeviceState& device, VkDescriptorType type,
                             const VkDescriptorBufferInfo& info,
                             HandleCache<BufferState>* buffers = nullptr) {
    DescriptorEntry e;
    e.type = type;
    e.buffer_handle = handle_bits(info.buffer);
    e.buffer = buffers ? buffers->find(device.buffers, e.buffer_handle)
                       : device.buffers.find(e.buffer_handle);
    e.offset = info.offset;
    e.range = info.range;
    if (info.range == VK_WHOLE_SIZE)
        e.range = e.buffer && e.buffer->size > info.offset ? e.buffer->size - info.offset : 0;
    return e;
}

/// Walks `count` consecutive descriptors from (binding, element), continuing into the next
/// binding of `layout` when one is full.
template <class Visit>
void for_each_slot(const SetLayoutState* layout, uint32_t binding, uint32_t element, uint32_t count,
                   Visit&& visit) {
    for (uint32_t i = 0; i < count; ++i) {
        if (layout) {
            const LayoutBinding* lb = layout->find(binding);
            while (lb && element >= lb->count) {
                auto next = std::upper_bound(
                    layout->bindings.begin(), layout->bindings.end(), lb->binding,
                    [](uint32_t b, const LayoutBinding& x) { return b < x.binding; });
                if (next == layout->bindings.end()) return;
                binding = next->binding;
                element = 0;
                lb = &*next;
            }
        }
        visit(i, binding, element);
        ++element;
    }
}

void store(SetContents& contents, uint32_t binding, uint32_t element, DescriptorEntry e) {
    auto& slots = contents.at(binding);
    if (slots.size() <= element) slots.resize(element + 1);
    slots[element] = std::move(e);
}

}  // namespace

void apply_write(DeviceState& device, const SetLayoutState* layout, const VkWriteDescriptorSet& w,
                 SetContents& contents, HandleCache<BufferState>* buffers) {
    // An inline uniform block's count is bytes, not descriptors: one entry says what it is.
    const uint32_t count =
        w.descriptorType == VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK ? 1 : w.descriptorCount;
    for_each_slot(layout, w.dstBinding, w.dstArrayElement, count,
                  [&](uint32_t i, uint32_t binding, uint32_t element) {
                      DescriptorEntry e;
                      e.type = w.descriptorType;
                      if (is_buffer_descriptor(w.descriptorType) && w.pBufferInfo)
                          e = buffer_entry(device, w.descriptorType, w.pBufferInfo[i], buffers);
                      store(contents, binding, element, std::move(e));
                  });
}

void apply_copy(const SetContents& from, const VkCopyDescriptorSet& c, SetContents& to) {
    const auto* src = from.find(c.srcBinding);
    for (uint32_t i = 0; i < c.descriptorCount; ++i) {
        DescriptorEntry e;
        if (src && c.srcArrayElement + i < src->size()) e = (*src)[c.srcArrayElement + i];
        store(to, c.dstBinding, c.dstArrayElement + i, std::move(e));
    }
}

std::vector<TemplateWrite> template_writes(const UpdateTemplateState& tmpl, const void* data) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    std::vector<TemplateWrite> out;
    for (const auto& t : tmpl.entries) {
        TemplateWrite w{t.binding, t.array_element, t.count, t.type, {}};
        if (is_buffer_descriptor(t.type)) {
            w.buffers.resize(t.count);
            for (uint32_t i = 0; i < t.count; ++i)
                std::memcpy(&w.buffers[i], bytes + t.offset + i * t.stride, sizeof w.buffers[i]);
        }
        out.push_back(std::move(w));
    }
    return out;
}

void apply_template(DeviceState& device, const SetLayoutState* layout,
                    const UpdateTemplateState& tmpl, const void* data, SetContents& contents) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    for (const auto& t : tmpl.entries) {
        const uint32_t count = t.type == VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK ? 1 : t.count;
        for_each_slot(layout, t.binding, t.array_element, count,
                      [&](uint32_t i, uint32_t binding, uint32_t element) {
                          DescriptorEntry e;
                          e.type = t.type;
                          if (is_buffer_descriptor(t.type)) {
                              VkDescriptorBufferInfo info;
                              std::memcpy(&info, bytes + t.offset + i * t.stride, sizeof info);
                              e = buffer_entry(device, t.type, info);
                          }
                          store(contents, binding, element, std::move(e));
                      });
    }
}

}  // namespace graphlens::layer
