#pragma once
// Descriptor writes, copies and template updates applied to a set's contents. Buffer
// descriptors are resolved at once to the tracked buffer and a byte range (VK_WHOLE_SIZE
// becomes the buffer's size minus the offset, as the spec defines it at update time).
#include <vulkan/vulkan.h>

#include "layer/src/handle_cache.h"
#include "layer/src/layer_state.h"

namespace graphlens::layer {

bool is_buffer_descriptor(VkDescriptorType type);
bool is_dynamic_descriptor(VkDescriptorType type);

/// Applies one write. `layout` (may be null) lets a write that runs past its binding's count
/// continue in the next binding, as Vulkan specifies. Buffers are found through `buffers`
/// where given (a submission's walk), else in the device's map.
void apply_write(DeviceState& device, const SetLayoutState* layout, const VkWriteDescriptorSet& w,
                 SetContents& contents, HandleCache<BufferState>* buffers = nullptr);
void apply_copy(const SetContents& from, const VkCopyDescriptorSet& c, SetContents& to);
/// A template update's data read as writes (buffer infos only for buffer descriptors).
struct TemplateWrite {
    uint32_t binding = 0;
    uint32_t array_element = 0;
    uint32_t count = 0;
    VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    std::vector<VkDescriptorBufferInfo> buffers;
};
std::vector<TemplateWrite> template_writes(const UpdateTemplateState& tmpl, const void* data);

void apply_template(DeviceState& device, const SetLayoutState* layout,
                    const UpdateTemplateState& tmpl, const void* data, SetContents& contents);

}  // namespace graphlens::layer
