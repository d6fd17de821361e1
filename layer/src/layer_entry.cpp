// The loader's layer interface (version 2): the three exported functions. Every name the
// layer does not intercept is answered by the next layer, so the program's calls reach the
// driver untouched.
#include <cstring>

#include "layer/src/hook_table.h"
#include "layer/src/layer_state.h"

#define GRAPHLENS_EXPORT extern "C" __attribute__((visibility("default")))

namespace graphlens::layer {

const HookTable& hook_table() {
    static const HookTable table = [] {
        HookTable t;
        add_instance_hooks(t);
        add_object_hooks(t);
        add_pipeline_hooks(t);
        add_descriptor_hooks(t);
        add_command_buffer_hooks(t);
        add_command_hooks(t);
        add_transfer_hooks(t);
        add_sync_command_hooks(t);
        add_queue_hooks(t);
        add_semaphore_hooks(t);
        add_debug_utils_hooks(t);
        return t;
    }();
    return table;
}

namespace {

bool is_debug_utils(const char* name) {
    return std::strstr(name, "DebugUtils") != nullptr;
}

PFN_vkVoidFunction find_hook(const std::unordered_map<std::string, PFN_vkVoidFunction>& hooks,
                             const char* name) {
    auto it = hooks.find(name);
    return it == hooks.end() ? nullptr : it->second;
}

}  // namespace
}  // namespace graphlens::layer

using namespace graphlens::layer;

namespace {

// The entry points under names of the layer's own: the program has loaded the loader, whose
// exported vkGetInstanceProcAddr a reference to that name inside this library would bind to
// (ELF symbol interposition), so the loader must be handed these, never &vkGetInstanceProcAddr.
PFN_vkVoidFunction VKAPI_CALL layer_get_device_proc_addr(VkDevice device, const char* name);

PFN_vkVoidFunction VKAPI_CALL layer_get_instance_proc_addr(VkInstance instance, const char* name) {
    if (std::strcmp(name, "vkGetInstanceProcAddr") == 0)
        return reinterpret_cast<PFN_vkVoidFunction>(&layer_get_instance_proc_addr);
    if (std::strcmp(name, "vkGetDeviceProcAddr") == 0)
        return reinterpret_cast<PFN_vkVoidFunction>(&layer_get_device_proc_addr);
    const HookTable& hooks = hook_table();
    if (auto hook = find_hook(hooks.instance, name)) return hook;
    auto state = find_instance(instance);
    if (!state) return nullptr;
    PFN_vkVoidFunction next = state->dispatch.GetInstanceProcAddr(instance, name);
    // Device functions reached through the instance: ours only where the chain has them (and,
    // for debug utils, where the program enabled the extension).
    if (auto hook = find_hook(hooks.device, name); hook && next)
        if (!is_debug_utils(name) || state->debug_utils) return hook;
    return next;
}

PFN_vkVoidFunction VKAPI_CALL layer_get_device_proc_addr(VkDevice device, const char* name) {
    if (std::strcmp(name, "vkGetDeviceProcAddr") == 0)
        return reinterpret_cast<PFN_vkVoidFunction>(&layer_get_device_proc_addr);
    auto state = find_device(device);
    if (!state) return nullptr;
    PFN_vkVoidFunction next = state->dispatch.GetDeviceProcAddr(device, name);
    if (auto hook = find_hook(hook_table().device, name); hook && next)
        if (!is_debug_utils(name) || state->instance->debug_utils) return hook;
    return next;
}

}  // namespace

GRAPHLENS_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance,
                                                                                const char* name) {
    return layer_get_instance_proc_addr(instance, name);
}

GRAPHLENS_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device,
                                                                              const char* name) {
    return layer_get_device_proc_addr(device, name);
}

GRAPHLENS_EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* version) {
    if (!version || version->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT)
        return VK_ERROR_INITIALIZATION_FAILED;
    if (version->loaderLayerInterfaceVersion > 2) version->loaderLayerInterfaceVersion = 2;
    if (version->loaderLayerInterfaceVersion < 2) return VK_ERROR_INITIALIZATION_FAILED;
    version->pfnGetInstanceProcAddr = &layer_get_instance_proc_addr;
    version->pfnGetDeviceProcAddr = &layer_get_device_proc_addr;
    version->pfnGetPhysicalDeviceProcAddr = nullptr;
    return VK_SUCCESS;
}
