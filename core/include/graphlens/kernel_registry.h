#pragma once
// Compute pipelines of one Device, created on first use from the embedded SPIR-V and cached
// for the Device's lifetime. Descriptor set 0 holds one storage buffer per reflected
// binding; its layout is a push-descriptor layout when the device supports
// VK_KHR_push_descriptor.
#include <vulkan/vulkan.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "graphlens/kernel_info.h"

namespace graphlens {

class Device;

struct KernelPipeline {
    const KernelInfo* info = nullptr;  ///< from KernelCatalog::embedded()
    VkShaderModule module = VK_NULL_HANDLE;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
};

class KernelRegistry {
  public:
    explicit KernelRegistry(Device& device);
    ~KernelRegistry();
    KernelRegistry(const KernelRegistry&) = delete;
    KernelRegistry& operator=(const KernelRegistry&) = delete;

    /// The pipeline of an embedded kernel; creates it on first use. Throws
    /// std::out_of_range for an unknown kernel name.
    const KernelPipeline& get(std::string_view name);
    /// Number of pipelines created so far.
    size_t size() const;

  private:
    Device& device_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, std::unique_ptr<KernelPipeline>> pipelines_;
};

}  // namespace graphlens
