// DeviceRequirements: a recorded program's extensions and features, checked against a
// physical device and set in the feature structs of vkCreateDevice. The member lists are
// vulkan_core.h's in declaration order (the same lists the capture layer reads enabled
// features with, layer/src/enabled_features.cpp); each struct lays its VkBool32 members out
// consecutively, which the static_asserts check against the structs' sizes.
#include "graphlens/vulkan/device_requirements.h"
#include "vulkan/src/device_requirements_apply.h"
#include "vulkan/src/vk_struct.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>

namespace graphlens {
namespace {

constexpr const char* kFeaturesNames[] = {
    "robustBufferAccess",
    "fullDrawIndexUint32",
    "imageCubeArray",
    "independentBlend",
    "geometryShader",
    "tessellationShader",
    "sampleRateShading",
    "dualSrcBlend",
    "logicOp",
    "multiDrawIndirect",
    "drawIndirectFirstInstance",
    "depthClamp",
    "depthBiasClamp",
    "fillModeNonSolid",
    "depthBounds",
    "wideLines",
    "largePoints",
    "alphaToOne",
    "multiViewport",
    "samplerAnisotropy",
    "textureCompressionETC2",
    "textureCompressionASTC_LDR",
    "textureCompressionBC",
    "occlusionQueryPrecise",
    "pipelineStatisticsQuery",
    "vertexPipelineStoresAndAtomics",
    "fragmentStoresAndAtomics",
    "shaderTessellationAndGeometryPointSize",
    "shaderImageGatherExtended",
    "shaderStorageImageExtendedFormats",
    "shaderStorageImageMultisample",
    "shaderStorageImageReadWithoutFormat",
    "shaderStorageImageWriteWithoutFormat",
    "shaderUniformBufferArrayDynamicIndexing",
    "shaderSampledImageArrayDynamicIndexing",
    "shaderStorageBufferArrayDynamicIndexing",
    "shaderStorageImageArrayDynamicIndexing",
    "shaderClipDistance",
    "shaderCullDistance",
    "shaderFloat64",
    "shaderInt64",
    "shaderInt16",
    "shaderResourceResidency",
    "shaderResourceMinLod",
    "sparseBinding",
    "sparseResidencyBuffer",
    "sparseResidencyImage2D",
    "sparseResidencyImage3D",
    "sparseResidency2Samples",
    "sparseResidency4Samples",
    "sparseResidency8Samples",
    "sparseResidency16Samples",
    "sparseResidencyAliased",
    "variableMultisampleRate",
    "inheritedQueries",
};
constexpr const char* kVulkan11FeaturesNames[] = {
    "storageBuffer16BitAccess",
    "uniformAndStorageBuffer16BitAccess",
    "storagePushConstant16",
    "storageInputOutput16",
    "multiview",
    "multiviewGeometryShader",
    "multiviewTessellationShader",
    "variablePointersStorageBuffer",
    "variablePointers",
    "protectedMemory",
    "samplerYcbcrConversion",
    "shaderDrawParameters",
};
constexpr const char* kVulkan12FeaturesNames[] = {
    "samplerMirrorClampToEdge",
    "drawIndirectCount",
    "storageBuffer8BitAccess",
    "uniformAndStorageBuffer8BitAccess",
    "storagePushConstant8",
    "shaderBufferInt64Atomics",
    "shaderSharedInt64Atomics",
    "shaderFloat16",
    "shaderInt8",
    "descriptorIndexing",
    "shaderInputAttachmentArrayDynamicIndexing",
    "shaderUniformTexelBufferArrayDynamicIndexing",
    "shaderStorageTexelBufferArrayDynamicIndexing",
    "shaderUniformBufferArrayNonUniformIndexing",
    "shaderSampledImageArrayNonUniformIndexing",
    "shaderStorageBufferArrayNonUniformIndexing",
    "shaderStorageImageArrayNonUniformIndexing",
    "shaderInputAttachmentArrayNonUniformIndexing",
    "shaderUniformTexelBufferArrayNonUniformIndexing",
    "shaderStorageTexelBufferArrayNonUniformIndexing",
    "descriptorBindingUniformBufferUpdateAfterBind",
    "descriptorBindingSampledImageUpdateAfterBind",
    "descriptorBindingStorageImageUpdateAfterBind",
    "descriptorBindingStorageBufferUpdateAfterBind",
    "descriptorBindingUniformTexelBufferUpdateAfterBind",
    "descriptorBindingStorageTexelBufferUpdateAfterBind",
    "descriptorBindingUpdateUnusedWhilePending",
    "descriptorBindingPartiallyBound",
    "descriptorBindingVariableDescriptorCount",
    "runtimeDescriptorArray",
    "samplerFilterMinmax",
    "scalarBlockLayout",
    "imagelessFramebuffer",
    "uniformBufferStandardLayout",
    "shaderSubgroupExtendedTypes",
    "separateDepthStencilLayouts",
    "hostQueryReset",
    "timelineSemaphore",
    "bufferDeviceAddress",
    "bufferDeviceAddressCaptureReplay",
    "bufferDeviceAddressMultiDevice",
    "vulkanMemoryModel",
    "vulkanMemoryModelDeviceScope",
    "vulkanMemoryModelAvailabilityVisibilityChains",
    "shaderOutputViewportIndex",
    "shaderOutputLayer",
    "subgroupBroadcastDynamicId",
};
constexpr const char* kVulkan13FeaturesNames[] = {
    "robustImageAccess",
    "inlineUniformBlock",
    "descriptorBindingInlineUniformBlockUpdateAfterBind",
    "pipelineCreationCacheControl",
    "privateData",
    "shaderDemoteToHelperInvocation",
    "shaderTerminateInvocation",
    "subgroupSizeControl",
    "computeFullSubgroups",
    "synchronization2",
    "textureCompressionASTC_HDR",
    "shaderZeroInitializeWorkgroupMemory",
    "dynamicRendering",
    "shaderIntegerDotProduct",
    "maintenance4",
};

struct FeatureTable {
    std::span<const char* const> names;
    size_t first_offset;  // of the first VkBool32 member in its struct
};

constexpr FeatureTable kTables[] = {
    {kFeaturesNames, 0},
    {kVulkan11FeaturesNames, offsetof(VkPhysicalDeviceVulkan11Features, storageBuffer16BitAccess)},
    {kVulkan12FeaturesNames, offsetof(VkPhysicalDeviceVulkan12Features, samplerMirrorClampToEdge)},
    {kVulkan13FeaturesNames, offsetof(VkPhysicalDeviceVulkan13Features, robustImageAccess)},
};

static_assert(sizeof(VkPhysicalDeviceFeatures) == sizeof(kFeaturesNames) / sizeof(char*) * 4);
static_assert(offsetof(VkPhysicalDeviceVulkan11Features, storageBuffer16BitAccess) +
                  sizeof(kVulkan11FeaturesNames) / sizeof(char*) * 4 ==
              sizeof(VkPhysicalDeviceVulkan11Features));
static_assert(offsetof(VkPhysicalDeviceVulkan12Features, samplerMirrorClampToEdge) +
                  sizeof(kVulkan12FeaturesNames) / sizeof(char*) * 4 <=
              sizeof(VkPhysicalDeviceVulkan12Features));
static_assert(offsetof(VkPhysicalDeviceVulkan13Features, robustImageAccess) +
                  sizeof(kVulkan13FeaturesNames) / sizeof(char*) * 4 <=
              sizeof(VkPhysicalDeviceVulkan13Features));

// The table and member index of a feature name.
std::optional<std::pair<size_t, size_t>> find_feature(const std::string& name) {
    for (size_t t = 0; t < std::size(kTables); ++t)
        for (size_t i = 0; i < kTables[t].names.size(); ++i)
            if (name == kTables[t].names[i]) return std::pair{t, i};
    return std::nullopt;
}

VkBool32* member(void* s, size_t table, size_t index) {
    return reinterpret_cast<VkBool32*>(static_cast<char*>(s) + kTables[table].first_offset) + index;
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
    const uint32_t needs_api[] = {0, VK_API_VERSION_1_2, VK_API_VERSION_1_2, VK_API_VERSION_1_3};
    for (const auto& name : required.features) {
        const auto at = find_feature(name);
        if (!at) {
            missing_features.push_back(name + " (a feature this build does not know)");
            continue;
        }
        const auto [t, i] = *at;
        if (api_version < needs_api[t] || !*member(supported[t], t, i)) {
            missing_features.push_back(name);
            continue;
        }
        *member(enable[t], t, i) = VK_TRUE;
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
