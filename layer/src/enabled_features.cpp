// The names of the device features a program enabled: every VkBool32 of VkPhysicalDeviceFeatures
// (given directly or in VkPhysicalDeviceFeatures2) and of the Vulkan 1.1, 1.2 and 1.3 feature
// structs in the device create info's chain, named by the vulkan layer's feature table (the
// one the replay enables them with).
#include <algorithm>
#include <span>

#include "graphlens/vulkan/feature_table.h"
#include "layer/src/enabled_features.h"

namespace graphlens::layer {
namespace {

using vulkan_features::FeatureMember;

void add_true(const void* s, std::span<const FeatureMember> members,
              std::vector<std::string>& out) {
    for (const FeatureMember& m : members)
        if (vulkan_features::member_of(s, m)) out.emplace_back(m.name);
}

}  // namespace

std::vector<std::string> enabled_feature_names(const VkDeviceCreateInfo& info) {
    using vulkan_features::kFeatureStructs;
    std::vector<std::string> out;
    if (info.pEnabledFeatures) add_true(info.pEnabledFeatures, kFeatureStructs[0].members, out);
    for (auto* s = static_cast<const VkBaseInStructure*>(info.pNext); s; s = s->pNext) {
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2) {
            add_true(&reinterpret_cast<const VkPhysicalDeviceFeatures2*>(s)->features,
                     kFeatureStructs[0].members, out);
            continue;
        }
        for (const auto& table : kFeatureStructs)
            if (table.type == s->sType &&
                table.type != VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2)
                add_true(s, table.members, out);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace graphlens::layer
