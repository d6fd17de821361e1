// The names of the device features a program enabled: every VkBool32 of VkPhysicalDeviceFeatures
// (given directly or in VkPhysicalDeviceFeatures2) and of the Vulkan 1.1, 1.2 and 1.3 feature
// structs in the device create info's chain. The member lists are vulkan_core.h's, in
// declaration order; the structs lay their VkBool32 members out consecutively, which the
// static_asserts check against the structs' sizes.
#include <algorithm>
#include <cstddef>
#include <span>

#include "layer/src/enabled_features.h"

namespace graphlens::layer {
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

template <class Struct, size_t N>
void add_true(const Struct& s, size_t first_offset, const char* const (&names)[N],
              std::vector<std::string>& out) {
    static_assert(N > 0);
    const auto* bools =
        reinterpret_cast<const VkBool32*>(reinterpret_cast<const char*>(&s) + first_offset);
    for (size_t i = 0; i < N; ++i)
        if (bools[i]) out.emplace_back(names[i]);
}

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

}  // namespace

std::vector<std::string> enabled_feature_names(const VkDeviceCreateInfo& info) {
    std::vector<std::string> out;
    if (info.pEnabledFeatures) add_true(*info.pEnabledFeatures, 0, kFeaturesNames, out);
    for (auto* s = static_cast<const VkBaseInStructure*>(info.pNext); s; s = s->pNext) {
        switch (s->sType) {
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2: {
                const auto& f = *reinterpret_cast<const VkPhysicalDeviceFeatures2*>(s);
                add_true(f.features, 0, kFeaturesNames, out);
                break;
            }
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES:
                add_true(*reinterpret_cast<const VkPhysicalDeviceVulkan11Features*>(s),
                         offsetof(VkPhysicalDeviceVulkan11Features, storageBuffer16BitAccess),
                         kVulkan11FeaturesNames, out);
                break;
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES:
                add_true(*reinterpret_cast<const VkPhysicalDeviceVulkan12Features*>(s),
                         offsetof(VkPhysicalDeviceVulkan12Features, samplerMirrorClampToEdge),
                         kVulkan12FeaturesNames, out);
                break;
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES:
                add_true(*reinterpret_cast<const VkPhysicalDeviceVulkan13Features*>(s),
                         offsetof(VkPhysicalDeviceVulkan13Features, robustImageAccess),
                         kVulkan13FeaturesNames, out);
                break;
            default:
                break;
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace graphlens::layer
