#pragma once
// Device creation's side of DeviceRequirements (device.cpp calls it while it builds the
// feature chain of vkCreateDevice).
#include <vulkan/vulkan.h>

#include <optional>
#include <string>
#include <vector>

#include "graphlens/vulkan/device_requirements.h"

namespace graphlens {

/// Which of the Vulkan 1.1 / 1.2 / 1.3 feature structs received a required feature (each must
/// then be in the chain).
struct RequiredFeatureStructs {
    bool vulkan11 = false, vulkan12 = false, vulkan13 = false;
};

/// Adds the required extensions to `extensions` (pointers into `required`, which must outlive
/// vkCreateDevice) and sets the required features in the four structs. Throws
/// MissingDeviceRequirements naming every extension and feature the device lacks.
RequiredFeatureStructs apply_device_requirements(
    VkPhysicalDevice physical, const std::string& device_name, uint32_t api_version,
    const DeviceRequirements& required, const std::vector<VkExtensionProperties>& available,
    std::vector<const char*>& extensions, VkPhysicalDeviceFeatures& f10,
    VkPhysicalDeviceVulkan11Features& f11, VkPhysicalDeviceVulkan12Features& f12,
    VkPhysicalDeviceVulkan13Features& f13);

}  // namespace graphlens
