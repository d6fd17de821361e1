// DeviceRequirements: a recorded program's extensions and features, checked against a
// physical device and set in the feature structs of vkCreateDevice. The feature names are the
// members of graphlens/vulkan/feature_table.h, the table the capture layer reads a program's
// enabled features with.
#include "graphlens/vulkan/device_requirements.h"
#include "graphlens/vulkan/feature_table.h"
#include "vulkan/src/device_requirements_apply.h"
#include "vulkan/src/vk_struct.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <optional>

namespace graphlens {
namespace {

using vulkan_features::FeatureMember;
using vulkan_features::kFeatureStructs;

// The struct (index into kFeatureStructs) and member of a feature name.
std::optional<std::pair<size_t, const FeatureMember*>> find_feature(const std::string& name) {
    for (size_t t = 0; t < std::size(kFeatureStructs); ++t)
        for (const FeatureMember& m : kFeatureStructs[t].members)
            if (name == m.name) return std::pair{t, &m};
    return std::nullopt;
}

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
    return out;
}

}  // namespace

MissingDeviceRequirements::MissingDeviceRequirements(std::string device,
                                                     std::vector<std::string> extensions,
                                                     std::vector<std::string> features)
    : std::runtime_error(
          fmt::format("device '{}' lacks what the recorded program enabled:{}{}{}", device,
                      extensions.empty() ? "" : fmt::format(" extension(s) {}", join(extensions)),
                      !extensions.empty() && !features.empty() ? ";" : "",
                      features.empty() ? "" : fmt::format(" feature(s) {}", join(features)))),
      extensions_(std::move(extensions)),
      features_(std::move(features)) {}

bool is_known_device_feature(const std::string& name) {
    return find_feature(name).has_value();
}

RequiredFeatureStructs apply_device_requirements(
    VkPhysicalDevice physical, const std::string& device_name, uint32_t api_version,
    const DeviceRequirements& required, const std::vector<VkExtensionProperties>& available,
    std::vector<const char*>& extensions, VkPhysicalDeviceFeatures& f10,
    VkPhysicalDeviceVulkan11Features& f11, VkPhysicalDeviceVulkan12Features& f12,
    VkPhysicalDeviceVulkan13Features& f13) {
    RequiredFeatureStructs used;
    std::vector<std::string> missing_extensions, missing_features;
    for (const auto& e : required.extensions) {
        const bool have = std::any_of(available.begin(), available.end(),
                                      [&](const auto& p) { return e == p.extensionName; });
        if (!have) {
            missing_extensions.push_back(e);
            continue;
        }
        const bool listed = std::any_of(extensions.begin(), extensions.end(),
                                        [&](const char* x) { return e == x; });
        if (!listed) extensions.push_back(e.c_str());
    }
    // What the device supports, in the same four structs.
    VkPhysicalDeviceVulkan13Features s13 = vk_struct<VkPhysicalDeviceVulkan13Features>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
    VkPhysicalDeviceVulkan12Features s12 = vk_struct<VkPhysicalDeviceVulkan12Features>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
    VkPhysicalDeviceVulkan11Features s11 = vk_struct<VkPhysicalDeviceVulkan11Features>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
    VkPhysicalDeviceFeatures2 s10 =
        vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
    if (api_version >= VK_API_VERSION_1_2) {
        s10.pNext = &s11;
        s11.pNext = &s12;
        if (api_version >= VK_API_VERSION_1_3) s12.pNext = &s13;
    }
    vkGetPhysicalDeviceFeatures2(physical, &s10);
    void* supported[] = {&s10.features, &s11, &s12, &s13};
    void* enable[] = {&f10, &f11, &f12, &f13};
    for (const auto& name : required.features) {
        const auto at = find_feature(name);
        if (!at) {
            missing_features.push_back(name + " (a feature this build does not know)");
            continue;
        }
        const auto [t, m] = *at;
        if (api_version < kFeatureStructs[t].api_version ||
            !vulkan_features::member_of(static_cast<const void*>(supported[t]), *m)) {
            missing_features.push_back(name);
            continue;
        }
        vulkan_features::member_of(enable[t], *m) = VK_TRUE;
        used.vulkan11 = used.vulkan11 || t == 1;
        used.vulkan12 = used.vulkan12 || t == 2;
        used.vulkan13 = used.vulkan13 || t == 3;
    }
    if (!missing_extensions.empty() || !missing_features.empty())
        throw MissingDeviceRequirements(device_name, std::move(missing_extensions),
                                        std::move(missing_features));
    return used;
}

}  // namespace graphlens
