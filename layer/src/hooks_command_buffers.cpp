// Command buffer lifetimes: allocation (which pool), begin and reset (a fresh recording),
// pool reset and free.
#include <atomic>

#include "layer/src/command_recording.h"
#include "layer/src/diagnostics.h"
#include "layer/src/hook_table.h"

namespace graphlens::layer {
namespace {

VKAPI_ATTR VkResult VKAPI_CALL hook_AllocateCommandBuffers(VkDevice device,
                                                           const VkCommandBufferAllocateInfo* info,
                                                           VkCommandBuffer* cbs) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    const VkResult r = d->dispatch.AllocateCommandBuffers(device, info, cbs);
    if (r == VK_SUCCESS && CaptureSession::get().recording())
        guarded("vkAllocateCommandBuffers", [&] {
            for (uint32_t i = 0; i < info->commandBufferCount; ++i) {
                auto s = std::make_shared<CommandBufferState>();
                s->pool = handle_bits(info->commandPool);
                d->command_buffers.put(handle_bits(cbs[i]), std::move(s));
            }
            command_buffers_changed();
        });
    return r;
}

VKAPI_ATTR void VKAPI_CALL hook_FreeCommandBuffers(VkDevice device, VkCommandPool pool,
                                                   uint32_t count, const VkCommandBuffer* cbs) {
    auto d = find_device(device);
    if (!d) return;
    for (uint32_t i = 0; i < count; ++i) d->command_buffers.take(handle_bits(cbs[i]));
    command_buffers_changed();
    d->dispatch.FreeCommandBuffers(device, pool, count, cbs);
}

void reset_pool_buffers(DeviceState& d, VkCommandPool pool, bool forget) {
    const uint64_t p = handle_bits(pool);
    if (forget) {
        d.command_buffers.erase_if([p](const CommandBufferState& s) { return s.pool == p; });
        command_buffers_changed();
        return;
    }
    // A reset pool's buffers start over; the map is only read, each state is the pool's own.
    d.command_buffers.erase_if([p](CommandBufferState& s) {
        if (s.pool == p) s.list = std::make_shared<CommandList>();
        return false;
    });
}

VKAPI_ATTR VkResult VKAPI_CALL hook_ResetCommandPool(VkDevice device, VkCommandPool pool,
                                                     VkCommandPoolResetFlags flags) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    reset_pool_buffers(*d, pool, false);
    return d->dispatch.ResetCommandPool(device, pool, flags);
}

VKAPI_ATTR void VKAPI_CALL hook_DestroyCommandPool(VkDevice device, VkCommandPool pool,
                                                   const VkAllocationCallbacks* allocator) {
    auto d = find_device(device);
    if (!d) return;
    reset_pool_buffers(*d, pool, true);
    d->dispatch.DestroyCommandPool(device, pool, allocator);
}

/// A fresh recording: the old list is cleared in place (keeping its arrays' capacity) when
/// nothing else holds it — a submission being processed or a primary that executes this
/// buffer holds its own reference, and then gets a list of its own.
void start_over(DeviceState& d, VkCommandBuffer cb) {
    CommandBufferState* s = command_buffer_state(d, cb);
    if (!s) return;
    if (s->list.use_count() == 1) {
        std::atomic_thread_fence(std::memory_order_acquire);
        s->list->clear();
    } else {
        s->list = std::make_shared<CommandList>();
    }
}

VKAPI_ATTR VkResult VKAPI_CALL hook_BeginCommandBuffer(VkCommandBuffer cb,
                                                       const VkCommandBufferBeginInfo* info) {
    DeviceState* d = device_of(cb);
    if (!d) return VK_ERROR_DEVICE_LOST;
    start_over(*d, cb);
    return d->dispatch.BeginCommandBuffer(cb, info);
}

VKAPI_ATTR VkResult VKAPI_CALL hook_ResetCommandBuffer(VkCommandBuffer cb,
                                                       VkCommandBufferResetFlags flags) {
    DeviceState* d = device_of(cb);
    if (!d) return VK_ERROR_DEVICE_LOST;
    start_over(*d, cb);
    return d->dispatch.ResetCommandBuffer(cb, flags);
}

}  // namespace

void add_command_buffer_hooks(HookTable& t) {
    t.device["vkAllocateCommandBuffers"] = as_void_fn(&hook_AllocateCommandBuffers);
    t.device["vkFreeCommandBuffers"] = as_void_fn(&hook_FreeCommandBuffers);
    t.device["vkResetCommandPool"] = as_void_fn(&hook_ResetCommandPool);
    t.device["vkDestroyCommandPool"] = as_void_fn(&hook_DestroyCommandPool);
    t.device["vkBeginCommandBuffer"] = as_void_fn(&hook_BeginCommandBuffer);
    t.device["vkResetCommandBuffer"] = as_void_fn(&hook_ResetCommandBuffer);
}

}  // namespace graphlens::layer
