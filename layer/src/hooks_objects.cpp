// Buffers, device memory and shader modules: sizes, which memory bytes a buffer is bound to
// (an allocation in the capture is a VkDeviceMemory, so buffers aliasing one memory share an
// allocation), and the SPIR-V words of each module.
#include "layer/src/capture_session.h"
#include "layer/src/diagnostics.h"
#include "layer/src/hook_table.h"
#include "layer/src/layer_state.h"

namespace graphlens::layer {
namespace {

bool tracking(const std::shared_ptr<DeviceState>& d) {
    return d && CaptureSession::get().recording();
}

VKAPI_ATTR VkResult VKAPI_CALL hook_CreateBuffer(VkDevice device, const VkBufferCreateInfo* info,
                                                 const VkAllocationCallbacks* allocator,
                                                 VkBuffer* buffer) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    // Saving the buffers' contents copies them on the GPU (buffer_snapshot.cpp).
    VkBufferCreateInfo copyable = *info;
    if (CaptureSession::get().saves_data()) copyable.usage |= VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    const VkResult r = d->dispatch.CreateBuffer(device, &copyable, allocator, buffer);
    if (r == VK_SUCCESS && tracking(d))
        guarded("vkCreateBuffer", [&] {
            auto s = std::make_shared<BufferState>();
            s->handle = handle_bits(*buffer);
            s->size = info->size;
            s->device_address = (info->usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0;
            const uint64_t handle = s->handle;
            d->buffers.put(handle, std::move(s));
        });
    return r;
}

VKAPI_ATTR void VKAPI_CALL hook_DestroyBuffer(VkDevice device, VkBuffer buffer,
                                              const VkAllocationCallbacks* allocator) {
    auto d = find_device(device);
    if (!d) return;
    if (auto s = d->buffers.take(handle_bits(buffer))) s->destroyed = true;
    d->dispatch.DestroyBuffer(device, buffer, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL hook_AllocateMemory(VkDevice device,
                                                   const VkMemoryAllocateInfo* info,
                                                   const VkAllocationCallbacks* allocator,
                                                   VkDeviceMemory* memory) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    const VkResult r = d->dispatch.AllocateMemory(device, info, allocator, memory);
    if (r == VK_SUCCESS && tracking(d))
        guarded("vkAllocateMemory", [&] {
            auto s = std::make_shared<MemoryState>();
            s->handle = handle_bits(*memory);
            s->size = info->allocationSize;
            const uint64_t handle = s->handle;
            d->memories.put(handle, std::move(s));
        });
    return r;
}

VKAPI_ATTR void VKAPI_CALL hook_FreeMemory(VkDevice device, VkDeviceMemory memory,
                                           const VkAllocationCallbacks* allocator) {
    auto d = find_device(device);
    if (!d) return;
    d->memories.take(handle_bits(memory));
    d->dispatch.FreeMemory(device, memory, allocator);
}

void bind(DeviceState& d, VkBuffer buffer, VkDeviceMemory memory, VkDeviceSize offset) {
    auto b = d.buffers.find(handle_bits(buffer));
    if (!b) return;
    b->memory = d.memories.find(handle_bits(memory));
    b->memory_offset = offset;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_BindBufferMemory(VkDevice device, VkBuffer buffer,
                                                     VkDeviceMemory memory, VkDeviceSize offset) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    const VkResult r = d->dispatch.BindBufferMemory(device, buffer, memory, offset);
    if (r == VK_SUCCESS && tracking(d))
        guarded("vkBindBufferMemory", [&] { bind(*d, buffer, memory, offset); });
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_BindBufferMemory2(VkDevice device, uint32_t count,
                                                      const VkBindBufferMemoryInfo* infos) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    auto next = d->dispatch.BindBufferMemory2 ? d->dispatch.BindBufferMemory2
                                              : d->dispatch.BindBufferMemory2KHR;
    const VkResult r = next(device, count, infos);
    if (r == VK_SUCCESS && tracking(d))
        guarded("vkBindBufferMemory2", [&] {
            for (uint32_t i = 0; i < count; ++i)
                bind(*d, infos[i].buffer, infos[i].memory, infos[i].memoryOffset);
        });
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_CreateShaderModule(VkDevice device,
                                                       const VkShaderModuleCreateInfo* info,
                                                       const VkAllocationCallbacks* allocator,
                                                       VkShaderModule* module) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    const VkResult r = d->dispatch.CreateShaderModule(device, info, allocator, module);
    if (r == VK_SUCCESS && tracking(d))
        guarded("vkCreateShaderModule", [&] {
            auto s = std::make_shared<ShaderModuleState>();
            s->words.assign(info->pCode, info->pCode + info->codeSize / 4);
            d->modules.put(handle_bits(*module), std::move(s));
        });
    return r;
}

VKAPI_ATTR void VKAPI_CALL hook_DestroyShaderModule(VkDevice device, VkShaderModule module,
                                                    const VkAllocationCallbacks* allocator) {
    auto d = find_device(device);
    if (!d) return;
    d->modules.take(handle_bits(module));
    d->dispatch.DestroyShaderModule(device, module, allocator);
}

}  // namespace

void add_object_hooks(HookTable& t) {
    t.device["vkCreateBuffer"] = as_void_fn(&hook_CreateBuffer);
    t.device["vkDestroyBuffer"] = as_void_fn(&hook_DestroyBuffer);
    t.device["vkAllocateMemory"] = as_void_fn(&hook_AllocateMemory);
    t.device["vkFreeMemory"] = as_void_fn(&hook_FreeMemory);
    t.device["vkBindBufferMemory"] = as_void_fn(&hook_BindBufferMemory);
    t.device["vkBindBufferMemory2"] = as_void_fn(&hook_BindBufferMemory2);
    t.device["vkBindBufferMemory2KHR"] = as_void_fn(&hook_BindBufferMemory2);
    t.device["vkCreateShaderModule"] = as_void_fn(&hook_CreateShaderModule);
    t.device["vkDestroyShaderModule"] = as_void_fn(&hook_DestroyShaderModule);
}

}  // namespace graphlens::layer
