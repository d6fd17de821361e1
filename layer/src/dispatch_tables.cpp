#include "layer/src/dispatch_tables.h"

#include <type_traits>

namespace graphlens::layer {

void load_device_dispatch(VkDevice device, PFN_vkGetDeviceProcAddr next, DeviceDispatch& table) {
    table.GetDeviceProcAddr = next;
#define GRAPHLENS_LOAD_DEVICE(name) \
    table.name = reinterpret_cast<PFN_vk##name>(next(device, "vk" #name));
    GRAPHLENS_DEVICE_HOOKS(GRAPHLENS_LOAD_DEVICE)
#undef GRAPHLENS_LOAD_DEVICE
}

void load_instance_dispatch(VkInstance instance, PFN_vkGetInstanceProcAddr next,
                            InstanceDispatch& table) {
    table.GetInstanceProcAddr = next;
    auto load = [&](auto& member, const char* name) {
        member = reinterpret_cast<std::remove_reference_t<decltype(member)>>(next(instance, name));
    };
    load(table.DestroyInstance, "vkDestroyInstance");
    load(table.CreateDevice, "vkCreateDevice");
    load(table.EnumerateDeviceExtensionProperties, "vkEnumerateDeviceExtensionProperties");
    load(table.GetPhysicalDeviceProperties, "vkGetPhysicalDeviceProperties");
    load(table.GetPhysicalDeviceProperties2, "vkGetPhysicalDeviceProperties2");
    if (!table.GetPhysicalDeviceProperties2)
        load(table.GetPhysicalDeviceProperties2, "vkGetPhysicalDeviceProperties2KHR");
    load(table.GetPhysicalDeviceQueueFamilyProperties, "vkGetPhysicalDeviceQueueFamilyProperties");
}

}  // namespace graphlens::layer
