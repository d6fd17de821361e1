#pragma once
// What the layer keeps of the program's Vulkan objects: only the facts a capture needs
// (sizes, memory bindings, descriptor contents, pipeline code and layouts). Objects are held
// by shared_ptr so that a recorded command keeps what it refers to alive and unchanged: a
// descriptor set's contents are replaced, never edited, when the program updates the set.
#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graphlens/graph/kernel_info.h"
#include "graphlens/spirv/spirv_reflection.h"

namespace graphlens::layer {

struct MemoryState {
    uint64_t handle = 0;
    uint64_t size = 0;
};

struct BufferState {
    uint64_t handle = 0;
    uint64_t size = 0;
    /// Set by vkBindBufferMemory[2]; null while unbound.
    std::shared_ptr<MemoryState> memory;
    uint64_t memory_offset = 0;
    /// Created with VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT: its replay needs the same.
    bool device_address = false;
    std::atomic<bool> destroyed{false};
};

struct LayoutBinding {
    uint32_t binding = 0;
    VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    uint32_t count = 0;
};

struct SetLayoutState {
    std::vector<LayoutBinding> bindings;  ///< sorted by binding
    bool push_descriptor = false;
    const LayoutBinding* find(uint32_t binding) const {
        for (const auto& b : bindings)
            if (b.binding == binding) return &b;
        return nullptr;
    }
};

struct PipelineLayoutState {
    std::vector<std::shared_ptr<const SetLayoutState>> sets;  ///< null for a null set layout
    uint32_t push_constant_bytes = 0;  ///< max(offset + size) over the push-constant ranges
};

/// One descriptor as the set holds it. Only buffer descriptors name a buffer; for any other
/// type the entry says what it is, which is enough to make a dispatch's ranges unknown.
struct DescriptorEntry {
    VkDescriptorType type = VK_DESCRIPTOR_TYPE_MAX_ENUM;  ///< MAX_ENUM: never written
    std::shared_ptr<BufferState> buffer;
    uint64_t buffer_handle = 0;  ///< kept when the buffer was unknown to the layer
    uint64_t offset = 0;
    uint64_t range = 0;  ///< VK_WHOLE_SIZE resolved against the buffer's size
};

/// Descriptors by binding, then array element.
struct SetContents {
    std::vector<std::pair<uint32_t, std::vector<DescriptorEntry>>> bindings;
    std::vector<DescriptorEntry>& at(uint32_t binding);
    const std::vector<DescriptorEntry>* find(uint32_t binding) const;
};

struct DescriptorSetState {
    std::shared_ptr<const SetLayoutState> layout;
    std::shared_ptr<const SetContents> contents = std::make_shared<SetContents>();
    uint64_t pool = 0;
};

struct UpdateTemplateEntry {
    uint32_t binding = 0;
    uint32_t array_element = 0;
    uint32_t count = 0;
    VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    size_t offset = 0;
    size_t stride = 0;
};

struct UpdateTemplateState {
    std::vector<UpdateTemplateEntry> entries;
};

struct ShaderModuleState {
    std::vector<uint32_t> words;
};

/// A compute pipeline with what the capture says of its kernel. Made by std::make_shared: a
/// capture keeps the pipelines of its kernels (shared_from_this) until it is written.
struct PipelineState : std::enable_shared_from_this<PipelineState> {
    uint64_t handle = 0;
    uint32_t serial = 0;  ///< creation order, for a default kernel name
    KernelInfo kernel;    ///< name filled when the capture is built (debug names may come later)
    std::shared_ptr<const PipelineLayoutState> layout;
    std::vector<spirv::ReflectedBinding> reflected;
    /// What its buffer device addresses can reach (spirv::DeviceAddresses), and why.
    spirv::DeviceAddresses device_addresses = spirv::DeviceAddresses::none;
    std::string device_address_reason;
    /// Why the kernel could not be reflected; empty when it was.
    std::string reflection_error;
    uint64_t module_handle = 0;  ///< for the module's debug name; 0 when given inline
};

}  // namespace graphlens::layer
