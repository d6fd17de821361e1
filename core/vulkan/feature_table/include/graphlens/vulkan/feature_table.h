#pragma once
// The VkBool32 members of the Vulkan feature structs, by name: the one table of the device
// features a recorded program enabled (CaptureSource::features). The capture layer reads a
// program's enabled features with it (layer/src/enabled_features.cpp) and the vulkan layer
// enables a recorded program's features with it (core/vulkan/src/device_requirements.cpp).
// Header-only and Vulkan headers only, in an include root of its own
// (graphlens_vulkan_feature_table), so the capture layer uses it without seeing or linking
// anything else of the vulkan layer. offsetof names every member, so a name that is not a
// member of its struct does not compile; a member missing here is caught by the size checks.
#include <vulkan/vulkan_core.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>

namespace graphlens::vulkan_features {

struct FeatureMember {
    const char* name;
    size_t offset;  ///< of the VkBool32 in its struct
};

/// The features of one struct: VkPhysicalDeviceFeatures (Vulkan 1.0, also the `features` of
/// VkPhysicalDeviceFeatures2) or VkPhysicalDeviceVulkan11/12/13Features.
struct FeatureStruct {
    VkStructureType type;  ///< VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 for Vulkan 1.0's
    uint32_t api_version;  ///< the API version a device needs to have the struct
    std::span<const FeatureMember> members;
};

/// A member's VkBool32 in a struct of its kind.
inline VkBool32& member_of(void* feature_struct, const FeatureMember& m) {
    return *reinterpret_cast<VkBool32*>(static_cast<char*>(feature_struct) + m.offset);
}
inline VkBool32 member_of(const void* feature_struct, const FeatureMember& m) {
    return *reinterpret_cast<const VkBool32*>(static_cast<const char*>(feature_struct) + m.offset);
}

#define GRAPHLENS_FEATURE(m)                      \
    FeatureMember {                               \
#m, offsetof(VkPhysicalDeviceFeatures, m) \
    }
inline constexpr FeatureMember kVulkan10Features[] = {
    GRAPHLENS_FEATURE(robustBufferAccess),
    GRAPHLENS_FEATURE(fullDrawIndexUint32),
    GRAPHLENS_FEATURE(imageCubeArray),
    GRAPHLENS_FEATURE(independentBlend),
    GRAPHLENS_FEATURE(geometryShader),
    GRAPHLENS_FEATURE(tessellationShader),
    GRAPHLENS_FEATURE(sampleRateShading),
    GRAPHLENS_FEATURE(dualSrcBlend),
    GRAPHLENS_FEATURE(logicOp),
    GRAPHLENS_FEATURE(multiDrawIndirect),
    GRAPHLENS_FEATURE(drawIndirectFirstInstance),
    GRAPHLENS_FEATURE(depthClamp),
    GRAPHLENS_FEATURE(depthBiasClamp),
    GRAPHLENS_FEATURE(fillModeNonSolid),
    GRAPHLENS_FEATURE(depthBounds),
    GRAPHLENS_FEATURE(wideLines),
    GRAPHLENS_FEATURE(largePoints),
    GRAPHLENS_FEATURE(alphaToOne),
    GRAPHLENS_FEATURE(multiViewport),
    GRAPHLENS_FEATURE(samplerAnisotropy),
    GRAPHLENS_FEATURE(textureCompressionETC2),
    GRAPHLENS_FEATURE(textureCompressionASTC_LDR),
    GRAPHLENS_FEATURE(textureCompressionBC),
    GRAPHLENS_FEATURE(occlusionQueryPrecise),
    GRAPHLENS_FEATURE(pipelineStatisticsQuery),
    GRAPHLENS_FEATURE(vertexPipelineStoresAndAtomics),
    GRAPHLENS_FEATURE(fragmentStoresAndAtomics),
    GRAPHLENS_FEATURE(shaderTessellationAndGeometryPointSize),
    GRAPHLENS_FEATURE(shaderImageGatherExtended),
    GRAPHLENS_FEATURE(shaderStorageImageExtendedFormats),
    GRAPHLENS_FEATURE(shaderStorageImageMultisample),
    GRAPHLENS_FEATURE(shaderStorageImageReadWithoutFormat),
    GRAPHLENS_FEATURE(shaderStorageImageWriteWithoutFormat),
    GRAPHLENS_FEATURE(shaderUniformBufferArrayDynamicIndexing),
    GRAPHLENS_FEATURE(shaderSampledImageArrayDynamicIndexing),
    GRAPHLENS_FEATURE(shaderStorageBufferArrayDynamicIndexing),
    GRAPHLENS_FEATURE(shaderStorageImageArrayDynamicIndexing),
    GRAPHLENS_FEATURE(shaderClipDistance),
    GRAPHLENS_FEATURE(shaderCullDistance),
    GRAPHLENS_FEATURE(shaderFloat64),
    GRAPHLENS_FEATURE(shaderInt64),
    GRAPHLENS_FEATURE(shaderInt16),
    GRAPHLENS_FEATURE(shaderResourceResidency),
    GRAPHLENS_FEATURE(shaderResourceMinLod),
    GRAPHLENS_FEATURE(sparseBinding),
    GRAPHLENS_FEATURE(sparseResidencyBuffer),
    GRAPHLENS_FEATURE(sparseResidencyImage2D),
    GRAPHLENS_FEATURE(sparseResidencyImage3D),
    GRAPHLENS_FEATURE(sparseResidency2Samples),
    GRAPHLENS_FEATURE(sparseResidency4Samples),
    GRAPHLENS_FEATURE(sparseResidency8Samples),
    GRAPHLENS_FEATURE(sparseResidency16Samples),
    GRAPHLENS_FEATURE(sparseResidencyAliased),
    GRAPHLENS_FEATURE(variableMultisampleRate),
    GRAPHLENS_FEATURE(inheritedQueries),
};
#undef GRAPHLENS_FEATURE

#define GRAPHLENS_FEATURE(m)                              \
    FeatureMember {                                       \
#m, offsetof(VkPhysicalDeviceVulkan11Features, m) \
    }
inline constexpr FeatureMember kVulkan11Features[] = {
    GRAPHLENS_FEATURE(storageBuffer16BitAccess),
    GRAPHLENS_FEATURE(uniformAndStorageBuffer16BitAccess),
    GRAPHLENS_FEATURE(storagePushConstant16),
    GRAPHLENS_FEATURE(storageInputOutput16),
    GRAPHLENS_FEATURE(multiview),
    GRAPHLENS_FEATURE(multiviewGeometryShader),
    GRAPHLENS_FEATURE(multiviewTessellationShader),
    GRAPHLENS_FEATURE(variablePointersStorageBuffer),
    GRAPHLENS_FEATURE(variablePointers),
    GRAPHLENS_FEATURE(protectedMemory),
    GRAPHLENS_FEATURE(samplerYcbcrConversion),
    GRAPHLENS_FEATURE(shaderDrawParameters),
};
#undef GRAPHLENS_FEATURE

#define GRAPHLENS_FEATURE(m)                              \
    FeatureMember {                                       \
#m, offsetof(VkPhysicalDeviceVulkan12Features, m) \
    }
inline constexpr FeatureMember kVulkan12Features[] = {
    GRAPHLENS_FEATURE(samplerMirrorClampToEdge),
    GRAPHLENS_FEATURE(drawIndirectCount),
    GRAPHLENS_FEATURE(storageBuffer8BitAccess),
    GRAPHLENS_FEATURE(uniformAndStorageBuffer8BitAccess),
    GRAPHLENS_FEATURE(storagePushConstant8),
    GRAPHLENS_FEATURE(shaderBufferInt64Atomics),
    GRAPHLENS_FEATURE(shaderSharedInt64Atomics),
    GRAPHLENS_FEATURE(shaderFloat16),
    GRAPHLENS_FEATURE(shaderInt8),
    GRAPHLENS_FEATURE(descriptorIndexing),
    GRAPHLENS_FEATURE(shaderInputAttachmentArrayDynamicIndexing),
    GRAPHLENS_FEATURE(shaderUniformTexelBufferArrayDynamicIndexing),
    GRAPHLENS_FEATURE(shaderStorageTexelBufferArrayDynamicIndexing),
    GRAPHLENS_FEATURE(shaderUniformBufferArrayNonUniformIndexing),
    GRAPHLENS_FEATURE(shaderSampledImageArrayNonUniformIndexing),
    GRAPHLENS_FEATURE(shaderStorageBufferArrayNonUniformIndexing),
    GRAPHLENS_FEATURE(shaderStorageImageArrayNonUniformIndexing),
    GRAPHLENS_FEATURE(shaderInputAttachmentArrayNonUniformIndexing),
    GRAPHLENS_FEATURE(shaderUniformTexelBufferArrayNonUniformIndexing),
    GRAPHLENS_FEATURE(shaderStorageTexelBufferArrayNonUniformIndexing),
    GRAPHLENS_FEATURE(descriptorBindingUniformBufferUpdateAfterBind),
    GRAPHLENS_FEATURE(descriptorBindingSampledImageUpdateAfterBind),
    GRAPHLENS_FEATURE(descriptorBindingStorageImageUpdateAfterBind),
    GRAPHLENS_FEATURE(descriptorBindingStorageBufferUpdateAfterBind),
    GRAPHLENS_FEATURE(descriptorBindingUniformTexelBufferUpdateAfterBind),
    GRAPHLENS_FEATURE(descriptorBindingStorageTexelBufferUpdateAfterBind),
    GRAPHLENS_FEATURE(descriptorBindingUpdateUnusedWhilePending),
    GRAPHLENS_FEATURE(descriptorBindingPartiallyBound),
    GRAPHLENS_FEATURE(descriptorBindingVariableDescriptorCount),
    GRAPHLENS_FEATURE(runtimeDescriptorArray),
    GRAPHLENS_FEATURE(samplerFilterMinmax),
    GRAPHLENS_FEATURE(scalarBlockLayout),
    GRAPHLENS_FEATURE(imagelessFramebuffer),
    GRAPHLENS_FEATURE(uniformBufferStandardLayout),
    GRAPHLENS_FEATURE(shaderSubgroupExtendedTypes),
    GRAPHLENS_FEATURE(separateDepthStencilLayouts),
    GRAPHLENS_FEATURE(hostQueryReset),
    GRAPHLENS_FEATURE(timelineSemaphore),
    GRAPHLENS_FEATURE(bufferDeviceAddress),
    GRAPHLENS_FEATURE(bufferDeviceAddressCaptureReplay),
    GRAPHLENS_FEATURE(bufferDeviceAddressMultiDevice),
    GRAPHLENS_FEATURE(vulkanMemoryModel),
    GRAPHLENS_FEATURE(vulkanMemoryModelDeviceScope),
    GRAPHLENS_FEATURE(vulkanMemoryModelAvailabilityVisibilityChains),
    GRAPHLENS_FEATURE(shaderOutputViewportIndex),
    GRAPHLENS_FEATURE(shaderOutputLayer),
    GRAPHLENS_FEATURE(subgroupBroadcastDynamicId),
};
#undef GRAPHLENS_FEATURE

#define GRAPHLENS_FEATURE(m)                              \
    FeatureMember {                                       \
#m, offsetof(VkPhysicalDeviceVulkan13Features, m) \
    }
inline constexpr FeatureMember kVulkan13Features[] = {
    GRAPHLENS_FEATURE(robustImageAccess),
    GRAPHLENS_FEATURE(inlineUniformBlock),
    GRAPHLENS_FEATURE(descriptorBindingInlineUniformBlockUpdateAfterBind),
    GRAPHLENS_FEATURE(pipelineCreationCacheControl),
    GRAPHLENS_FEATURE(privateData),
    GRAPHLENS_FEATURE(shaderDemoteToHelperInvocation),
    GRAPHLENS_FEATURE(shaderTerminateInvocation),
    GRAPHLENS_FEATURE(subgroupSizeControl),
    GRAPHLENS_FEATURE(computeFullSubgroups),
    GRAPHLENS_FEATURE(synchronization2),
    GRAPHLENS_FEATURE(textureCompressionASTC_HDR),
    GRAPHLENS_FEATURE(shaderZeroInitializeWorkgroupMemory),
    GRAPHLENS_FEATURE(dynamicRendering),
    GRAPHLENS_FEATURE(shaderIntegerDotProduct),
    GRAPHLENS_FEATURE(maintenance4),
};
#undef GRAPHLENS_FEATURE

// Every VkBool32 of each struct is listed: the structs hold nothing else after sType/pNext.
static_assert(sizeof(VkPhysicalDeviceFeatures) == std::size(kVulkan10Features) * sizeof(VkBool32));
static_assert(offsetof(VkPhysicalDeviceVulkan11Features, storageBuffer16BitAccess) +
                  std::size(kVulkan11Features) * sizeof(VkBool32) ==
              sizeof(VkPhysicalDeviceVulkan11Features));
static_assert(offsetof(VkPhysicalDeviceVulkan12Features, samplerMirrorClampToEdge) +
                  std::size(kVulkan12Features) * sizeof(VkBool32) <=
              sizeof(VkPhysicalDeviceVulkan12Features));
static_assert(offsetof(VkPhysicalDeviceVulkan13Features, robustImageAccess) +
                  std::size(kVulkan13Features) * sizeof(VkBool32) <=
              sizeof(VkPhysicalDeviceVulkan13Features));

/// In the order of VkPhysicalDeviceFeatures2's chain as device creation builds it.
inline constexpr FeatureStruct kFeatureStructs[] = {
    {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, VK_API_VERSION_1_0, kVulkan10Features},
    {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, VK_API_VERSION_1_2, kVulkan11Features},
    {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, VK_API_VERSION_1_2, kVulkan12Features},
    {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES, VK_API_VERSION_1_3, kVulkan13Features},
};

}  // namespace graphlens::vulkan_features
