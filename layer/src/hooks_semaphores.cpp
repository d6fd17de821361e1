// Host-side synchronisation beyond fence waits: timeline semaphores (created with
// VkSemaphoreTypeCreateInfo, signalled by the host with vkSignalSemaphore, waited for by the
// host with vkWaitSemaphores) and fence polling (vkGetFenceStatus returning VK_SUCCESS is a
// completed wait), and events the host sets or resets (vkSetEvent, vkResetEvent: a later
// device wait no longer waits for a set the layer saw). What each means for the order of
// submissions is capture_session_sync.cpp's.
#include "layer/src/capture_session.h"
#include "layer/src/diagnostics.h"
#include "layer/src/hook_table.h"

namespace graphlens::layer {
namespace {

bool is_timeline(const VkSemaphoreCreateInfo& info) {
    for (auto* p = static_cast<const VkBaseInStructure*>(info.pNext); p; p = p->pNext)
        if (p->sType == VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO)
            return reinterpret_cast<const VkSemaphoreTypeCreateInfo*>(p)->semaphoreType ==
                   VK_SEMAPHORE_TYPE_TIMELINE;
    return false;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_CreateSemaphore(VkDevice device,
                                                    const VkSemaphoreCreateInfo* info,
                                                    const VkAllocationCallbacks* allocator,
                                                    VkSemaphore* semaphore) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    const VkResult r = d->dispatch.CreateSemaphore(device, info, allocator, semaphore);
    if (r == VK_SUCCESS && CaptureSession::get().recording())
        guarded("vkCreateSemaphore", [&] {
            CaptureSession::get().on_semaphore_created(handle_bits(*semaphore), is_timeline(*info));
        });
    return r;
}

VKAPI_ATTR void VKAPI_CALL hook_DestroySemaphore(VkDevice device, VkSemaphore semaphore,
                                                 const VkAllocationCallbacks* allocator) {
    auto d = find_device(device);
    if (!d) return;
    d->dispatch.DestroySemaphore(device, semaphore, allocator);
    if (semaphore && CaptureSession::get().recording())
        guarded("vkDestroySemaphore",
                [&] { CaptureSession::get().on_semaphore_destroyed(handle_bits(semaphore)); });
}

VKAPI_ATTR VkResult VKAPI_CALL hook_SignalSemaphore(VkDevice device,
                                                    const VkSemaphoreSignalInfo* info) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    auto next =
        d->dispatch.SignalSemaphore ? d->dispatch.SignalSemaphore : d->dispatch.SignalSemaphoreKHR;
    const VkResult r = next(device, info);
    if (r == VK_SUCCESS && CaptureSession::get().recording())
        guarded("vkSignalSemaphore", [&] {
            CaptureSession::get().on_semaphore_signalled_by_host(handle_bits(info->semaphore),
                                                                 info->value);
        });
    return r;
}

VkResult host_event_command(VkDevice device, VkEvent event, bool set) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    const VkResult r =
        set ? d->dispatch.SetEvent(device, event) : d->dispatch.ResetEvent(device, event);
    if (r == VK_SUCCESS && CaptureSession::get().recording())
        guarded(set ? "vkSetEvent" : "vkResetEvent",
                [&] { CaptureSession::get().on_event_changed_by_host(handle_bits(event)); });
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_SetEvent(VkDevice device, VkEvent event) {
    return host_event_command(device, event, true);
}

VKAPI_ATTR VkResult VKAPI_CALL hook_ResetEvent(VkDevice device, VkEvent event) {
    return host_event_command(device, event, false);
}

VKAPI_ATTR VkResult VKAPI_CALL hook_WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo* info,
                                                   uint64_t timeout) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    auto next =
        d->dispatch.WaitSemaphores ? d->dispatch.WaitSemaphores : d->dispatch.WaitSemaphoresKHR;
    const VkResult r = next(device, info, timeout);
    // With VK_SEMAPHORE_WAIT_ANY_BIT and several semaphores, which one completed is unknown: no
    // order is assumed.
    const bool all = !(info->flags & VK_SEMAPHORE_WAIT_ANY_BIT) || info->semaphoreCount == 1;
    if (r == VK_SUCCESS && all && CaptureSession::get().recording())
        guarded("vkWaitSemaphores", [&] {
            std::vector<std::pair<uint64_t, uint64_t>> waited;
            for (uint32_t i = 0; i < info->semaphoreCount; ++i)
                waited.emplace_back(handle_bits(info->pSemaphores[i]), info->pValues[i]);
            CaptureSession::get().on_semaphores_waited(waited);
        });
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_GetFenceStatus(VkDevice device, VkFence fence) {
    // Programs poll fences in a loop: the per-thread device cache takes no lock.
    DeviceState* d = device_of(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    const VkResult r = d->dispatch.GetFenceStatus(device, fence);
    if (r == VK_SUCCESS && CaptureSession::get().recording())
        guarded("vkGetFenceStatus", [&] {
            const uint64_t signalled = handle_bits(fence);
            CaptureSession::get().on_fences_waited({&signalled, 1});
        });
    return r;
}

}  // namespace

void add_semaphore_hooks(HookTable& t) {
    t.device["vkCreateSemaphore"] = as_void_fn(&hook_CreateSemaphore);
    t.device["vkDestroySemaphore"] = as_void_fn(&hook_DestroySemaphore);
    t.device["vkSetEvent"] = as_void_fn(&hook_SetEvent);
    t.device["vkResetEvent"] = as_void_fn(&hook_ResetEvent);
    t.device["vkSignalSemaphore"] = as_void_fn(&hook_SignalSemaphore);
    t.device["vkSignalSemaphoreKHR"] = as_void_fn(&hook_SignalSemaphore);
    t.device["vkWaitSemaphores"] = as_void_fn(&hook_WaitSemaphores);
    t.device["vkWaitSemaphoresKHR"] = as_void_fn(&hook_WaitSemaphores);
    t.device["vkGetFenceStatus"] = as_void_fn(&hook_GetFenceStatus);
}

}  // namespace graphlens::layer
