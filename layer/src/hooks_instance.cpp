// Instance and device creation: the layer inserts itself in the chain (the loader's
// VkLayerInstanceCreateInfo / VkLayerDeviceCreateInfo link info), keeps the next layer's
// functions and what the program enabled, and passes the create info on unchanged.
#include <algorithm>
#include <cstring>

#include "graphlens/layer/capture_settings.h"
#include "layer/src/capture_session.h"
#include "layer/src/diagnostics.h"
#include "layer/src/enabled_features.h"
#include "layer/src/hook_table.h"
#include "layer/src/layer_state.h"

namespace graphlens::layer {
namespace {

template <class LinkInfo, class CreateInfo>
LinkInfo* find_link_info(const CreateInfo* info, VkStructureType type) {
    auto* chain = static_cast<LinkInfo*>(const_cast<void*>(info->pNext));
    while (chain && !(chain->sType == type && chain->function == VK_LAYER_LINK_INFO))
        chain = static_cast<LinkInfo*>(const_cast<void*>(chain->pNext));
    return chain;
}

std::vector<std::string> sorted_names(const char* const* names, uint32_t count) {
    std::vector<std::string> out(names, names + count);
    std::sort(out.begin(), out.end());
    return out;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_CreateInstance(const VkInstanceCreateInfo* info,
                                                   const VkAllocationCallbacks* allocator,
                                                   VkInstance* instance) {
    auto* link = find_link_info<VkLayerInstanceCreateInfo>(
        info, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
    if (!link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
    const PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;  // the next layer reads its own link
    auto next_create =
        reinterpret_cast<PFN_vkCreateInstance>(next_gipa(VK_NULL_HANDLE, "vkCreateInstance"));
    if (!next_create) return VK_ERROR_INITIALIZATION_FAILED;
    const VkResult result = next_create(info, allocator, instance);
    if (result != VK_SUCCESS) return result;
    guarded("vkCreateInstance", [&] {
        auto state = std::make_shared<InstanceState>();
        state->instance = *instance;
        load_instance_dispatch(*instance, next_gipa, state->dispatch);
        if (info->pApplicationInfo && info->pApplicationInfo->apiVersion)
            state->api_version = info->pApplicationInfo->apiVersion;
        state->extensions =
            sorted_names(info->ppEnabledExtensionNames, info->enabledExtensionCount);
        state->debug_utils = std::binary_search(state->extensions.begin(), state->extensions.end(),
                                                "VK_EXT_debug_utils");
        add_instance(*instance, std::move(state));
        CaptureSession::get().on_layer_loaded();
    });
    return result;
}

VKAPI_ATTR void VKAPI_CALL hook_DestroyInstance(VkInstance instance,
                                                const VkAllocationCallbacks* allocator) {
    auto state = find_instance(instance);
    if (!state) return;
    remove_instance(instance);
    state->dispatch.DestroyInstance(instance, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL hook_CreateDevice(VkPhysicalDevice physical,
                                                 const VkDeviceCreateInfo* info,
                                                 const VkAllocationCallbacks* allocator,
                                                 VkDevice* device) {
    auto instance = find_instance(physical);
    auto* link =
        find_link_info<VkLayerDeviceCreateInfo>(info, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
    if (!instance || !link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
    const PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    const PFN_vkGetDeviceProcAddr next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    auto next_create =
        reinterpret_cast<PFN_vkCreateDevice>(next_gipa(instance->instance, "vkCreateDevice"));
    if (!next_create) return VK_ERROR_INITIALIZATION_FAILED;
    const VkResult result = next_create(physical, info, allocator, device);
    if (result != VK_SUCCESS) return result;
    guarded("vkCreateDevice", [&] {
        auto state = std::make_shared<DeviceState>();
        state->device = *device;
        state->physical = physical;
        state->instance = instance;
        load_device_dispatch(*device, next_gdpa, state->dispatch);
        state->extensions =
            sorted_names(info->ppEnabledExtensionNames, info->enabledExtensionCount);
        state->features = enabled_feature_names(*info);
        add_device(*device, std::move(state));
    });
    return result;
}

VKAPI_ATTR void VKAPI_CALL hook_DestroyDevice(VkDevice device,
                                              const VkAllocationCallbacks* allocator) {
    auto state = find_device(device);
    if (!state) return;
    guarded("vkDestroyDevice", [&] { CaptureSession::get().on_device_destroyed(*state); });
    remove_device(device);
    state->dispatch.DestroyDevice(device, allocator);
}

void remember_queue(DeviceState& d, VkQueue queue, uint32_t family, uint32_t index) {
    if (queue)
        d.queues.put(handle_bits(queue), std::make_shared<QueueInfo>(QueueInfo{family, index}));
}

VKAPI_ATTR void VKAPI_CALL hook_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index,
                                               VkQueue* queue) {
    auto d = find_device(device);
    if (!d) return;
    d->dispatch.GetDeviceQueue(device, family, index, queue);
    guarded("vkGetDeviceQueue", [&] { remember_queue(*d, *queue, family, index); });
}

VKAPI_ATTR void VKAPI_CALL hook_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2* info,
                                                VkQueue* queue) {
    auto d = find_device(device);
    if (!d) return;
    d->dispatch.GetDeviceQueue2(device, info, queue);
    guarded("vkGetDeviceQueue2",
            [&] { remember_queue(*d, *queue, info->queueFamilyIndex, info->queueIndex); });
}

/// The layer adds no extensions of its own.
VKAPI_ATTR VkResult VKAPI_CALL
hook_EnumerateDeviceExtensionProperties(VkPhysicalDevice physical, const char* layer_name,
                                        uint32_t* count, VkExtensionProperties* properties) {
    if (layer_name && std::strcmp(layer_name, kLayerName) == 0) {
        *count = 0;
        return VK_SUCCESS;
    }
    auto instance = find_instance(physical);
    if (!instance) return VK_ERROR_INITIALIZATION_FAILED;
    return instance->dispatch.EnumerateDeviceExtensionProperties(physical, layer_name, count,
                                                                 properties);
}

}  // namespace

void add_instance_hooks(HookTable& t) {
    t.instance["vkCreateInstance"] = as_void_fn(&hook_CreateInstance);
    t.instance["vkDestroyInstance"] = as_void_fn(&hook_DestroyInstance);
    t.instance["vkCreateDevice"] = as_void_fn(&hook_CreateDevice);
    t.instance["vkEnumerateDeviceExtensionProperties"] =
        as_void_fn(&hook_EnumerateDeviceExtensionProperties);
    t.device["vkDestroyDevice"] = as_void_fn(&hook_DestroyDevice);
    t.device["vkGetDeviceQueue"] = as_void_fn(&hook_GetDeviceQueue);
    t.device["vkGetDeviceQueue2"] = as_void_fn(&hook_GetDeviceQueue2);
}

}  // namespace graphlens::layer
