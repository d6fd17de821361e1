#pragma once
// Compute pipelines of one Device, created on first use from the embedded SPIR-V and cached
// for the Device's lifetime. Descriptor set 0 holds one storage buffer per reflected
// binding; its layout is a push-descriptor layout when the device supports
// VK_KHR_push_descriptor.
//
// On a device that uses tensor cores (Device::uses_tensor_cores), a kernel with a tensor-core
// twin (KernelCatalog::tensor_core_twin) gets the twin's module under its own name: the
// catalog has checked that both have the same interface, so the layout, the recorded dispatch
// and the graph are the same on every device; only the pipeline differs.
#include <vulkan/vulkan.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graphlens/graph/kernel_info.h"

namespace graphlens {

class Device;

struct KernelPipeline {
    const KernelInfo* info = nullptr;  ///< from KernelCatalog::embedded()
    VkShaderModule module = VK_NULL_HANDLE;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    bool tensor_cores = false;  ///< built from the kernel's tensor-core twin
    std::string module_name;    ///< the kernel's name, or its twin's `<kernel>__tc<tag>`
};

/// One statistic the driver reports for a pipeline (VkPipelineExecutableStatisticKHR), e.g.
/// NVIDIA's "Register Count" or "Local Memory Size", its value formatted.
struct KernelStatistic {
    std::string executable;  ///< the pipeline executable (a compute pipeline has one)
    std::string name;
    std::string value;
    std::string description;
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
    /// What the driver reports about the kernel's pipeline (creating it first): empty unless
    /// the device was created with Options::pipeline_statistics on a driver that has
    /// VK_KHR_pipeline_executable_properties.
    std::vector<KernelStatistic> statistics(std::string_view name);

  private:
    Device& device_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, std::unique_ptr<KernelPipeline>> pipelines_;
};

}  // namespace graphlens
