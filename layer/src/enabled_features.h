#pragma once
// The device features a program enabled, by name (CaptureSource::features).
#include <vulkan/vulkan.h>

#include <string>
#include <vector>

namespace graphlens::layer {

/// Every feature set to VK_TRUE in VkPhysicalDeviceFeatures (direct or in
/// VkPhysicalDeviceFeatures2) and in the Vulkan 1.1 / 1.2 / 1.3 feature structs of the chain,
/// sorted, each once. Other feature structs of the chain are not read.
std::vector<std::string> enabled_feature_names(const VkDeviceCreateInfo& info);

}  // namespace graphlens::layer
