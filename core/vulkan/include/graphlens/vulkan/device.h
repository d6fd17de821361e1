#pragma once
// A Vulkan instance, one physical device and one compute queue.
//
// Selection: discrete > integrated > virtual > CPU, unless GRAPHLENS_DEVICE=<index|name
// substring> (or Device::Options::selector) names one. With GRAPHLENS_VALIDATION=1 (or
// Options::validation) the Khronos validation layer runs with synchronization validation;
// every warning and error it reports is collected and counted, so tests can fail on them.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "graphlens/vulkan/device_facts.h"
#include "graphlens/vulkan/device_requirements.h"
#include "graphlens/vulkan/retired_work.h"

namespace graphlens {

class KernelRegistry;

/// Every physical device the Vulkan loader reports, in enumeration order. Creates (and
/// destroys) a temporary instance; throws std::runtime_error when Vulkan is unavailable.
std::vector<DeviceFacts> list_devices();

struct ValidationMessage {
    bool error = false;  ///< severity ERROR (else WARNING)
    std::string id;      ///< message id name, e.g. "SYNC-HAZARD-READ-AFTER-WRITE"
    std::string text;
};

/// Extension entry points, null when the extension is absent.
struct DeviceFunctions {
    PFN_vkCmdPushDescriptorSetKHR push_descriptor_set = nullptr;
    PFN_vkCmdPipelineBarrier2KHR pipeline_barrier2 = nullptr;
    PFN_vkCmdBeginDebugUtilsLabelEXT begin_label = nullptr;
    PFN_vkCmdEndDebugUtilsLabelEXT end_label = nullptr;
    /// VK_KHR_pipeline_executable_properties, when Options::pipeline_statistics enabled it.
    PFN_vkGetPipelineExecutablePropertiesKHR executable_properties = nullptr;
    PFN_vkGetPipelineExecutableStatisticsKHR executable_statistics = nullptr;
    /// VK_EXT_debug_utils object names, so RenderDoc, Nsight and the validation layer's
    /// messages show GraphLens's names for its buffers, pipelines and command buffers.
    PFN_vkSetDebugUtilsObjectNameEXT set_object_name = nullptr;
};

class Device {
  public:
    struct Options {
        /// Index or case-insensitive name substring; empty = GRAPHLENS_DEVICE, else best.
        std::optional<std::string> selector;
        /// Empty = GRAPHLENS_VALIDATION=1.
        std::optional<bool> validation;
        /// Debug-utils labels around every dispatch (when the extension exists), so
        /// RenderDoc and Nsight show op labels. Empty = on unless GRAPHLENS_LABELS=0.
        std::optional<bool> labels;
        /// Use VK_KHR_push_descriptor when present (false forces pooled descriptor sets).
        bool allow_push_descriptor = true;
        /// Use synchronization2 barriers when present.
        bool allow_synchronization2 = true;
        /// Waiting on a fence first polls it for this long before blocking: a blocking wait
        /// wakes tens of µs after the GPU finishes, which is a measurable share of a 1 ms
        /// decode step. Empty = GRAPHLENS_FENCE_SPIN_US, else 50000 on a GPU (a whole prefill
        /// step) and 2000 on a CPU device (lavapipe: polling takes a core from its work);
        /// 0 = always block.
        std::optional<uint32_t> fence_spin_us;
        /// Run the mat-mat kernels that have a tensor-core twin (KernelCatalog) on tensor cores
        /// when the device can (DeviceFacts::tensor_cores). Empty = on unless
        /// GRAPHLENS_TENSOR_CORES=0. The recorded graph is the same either way.
        std::optional<bool> tensor_cores;
        /// Which tensor-core twins: "" the default, else a tag (KernelCatalog: `<kernel>__tc<tag>`;
        /// kernels without that tag use their default twin). Empty = GRAPHLENS_TC_VARIANT, else "".
        std::optional<std::string> tensor_core_variant;
        /// Ask the driver for each pipeline's statistics (VK_KHR_pipeline_executable_properties:
        /// registers, shared memory, spills, ... as the driver names them), read with
        /// KernelRegistry::statistics. Empty = GRAPHLENS_PIPELINE_STATS=1; ignored where the
        /// extension is missing.
        std::optional<bool> pipeline_statistics;
        /// Extensions and features enabled besides GraphLens's own: those a recorded
        /// program enabled, so that its kernels run as they ran there. Creation throws
        /// MissingDeviceRequirements when the device lacks any of them.
        DeviceRequirements required;
    };

    Device();
    explicit Device(const Options& options);
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    const DeviceFacts& facts() const { return facts_; }
    VkInstance instance() const { return instance_; }
    VkPhysicalDevice physical_device() const { return physical_; }
    VkDevice handle() const { return device_; }
    VkQueue queue() const { return queue_; }
    uint32_t queue_family() const { return queue_family_; }
    const DeviceFunctions& functions() const { return fn_; }
    /// True when dispatches bind buffers with vkCmdPushDescriptorSetKHR.
    bool uses_push_descriptor() const { return fn_.push_descriptor_set != nullptr; }
    bool uses_synchronization2() const { return fn_.pipeline_barrier2 != nullptr; }
    bool labels_enabled() const { return fn_.begin_label != nullptr; }
    /// True when VK_NV_cooperative_matrix is enabled and kernels with a tensor-core twin use it.
    bool uses_tensor_cores() const { return tensor_cores_; }
    /// Options::tensor_core_variant as resolved at creation.
    const std::string& tensor_core_variant() const { return tensor_core_variant_; }
    /// True when pipelines are created with their statistics (Options::pipeline_statistics).
    bool pipeline_statistics() const { return fn_.executable_statistics != nullptr; }
    /// How long a fence wait polls before it blocks (Options::fence_spin_us).
    uint32_t fence_spin_us() const { return fence_spin_us_; }

    /// True when objects get debug-utils names (name_object does something).
    bool names_objects() const { return fn_.set_object_name != nullptr; }
    /// Gives a Vulkan object of this device a debug-utils name; does nothing without
    /// VK_EXT_debug_utils.
    void name_object(VkObjectType type, uint64_t handle, const std::string& name) const;
    template <typename Handle>
    void name_object(VkObjectType type, Handle handle, const std::string& name) const {
        name_object(type, reinterpret_cast<uint64_t>(handle), name);
    }

    /// Pipelines of this device, created on first use.
    KernelRegistry& kernels();
    /// The objects of abandoned (cancelled) executions, destroyed once the GPU is done with
    /// them; the device waits for all of them before it is destroyed.
    RetiredWork& retired_work() { return *retired_; }

    // --- validation ---
    bool validation_enabled() const { return validation_; }
    size_t validation_errors() const;
    size_t validation_warnings() const;
    std::vector<ValidationMessage> validation_messages() const;
    void clear_validation_messages();

    /// Submits one command buffer and waits for it (throws on device loss / timeout).
    void submit_and_wait(VkCommandBuffer cmd) const;
    /// Submits one command buffer signalling `fence` (may be null); the queue is guarded by
    /// a mutex, so several threads may submit.
    void submit(VkCommandBuffer cmd, VkFence fence) const;

    /// Called by the debug messenger; public only for the C callback.
    void record_validation_message(ValidationMessage m);

  private:
    void create_instance(bool validation);
    void pick_and_create_device(const Options& options);
    void release();

    VkInstance instance_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    VkPhysicalDevice physical_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t queue_family_ = 0;
    DeviceFacts facts_;
    DeviceFunctions fn_;
    bool validation_ = false;
    bool instance_debug_utils_ = false;
    uint32_t fence_spin_us_ = 2000;
    bool tensor_cores_ = false;
    std::string tensor_core_variant_;
    std::unique_ptr<KernelRegistry> kernels_;
    std::unique_ptr<RetiredWork> retired_;

    mutable std::mutex queue_mutex_;
    mutable std::mutex messages_mutex_;
    std::vector<ValidationMessage> messages_;
    size_t errors_ = 0;
    size_t warnings_ = 0;
};

/// The Vulkan device was lost (VK_ERROR_DEVICE_LOST): nothing more can run on it. Callers that
/// carry on after other errors (a Runner mode, a GUI request) stop at this one; a new Device
/// must be created.
class DeviceLost : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// The name of a VkResult ("VK_ERROR_OUT_OF_DEVICE_MEMORY"), or "VkResult <n>" for codes
/// without one here.
std::string vk_result_name(VkResult r);

/// Throws when `r` is not VK_SUCCESS: DeviceLost for VK_ERROR_DEVICE_LOST, else
/// std::runtime_error; the message names `what` and the result ("Vulkan: vkQueueSubmit failed
/// (VK_ERROR_DEVICE_LOST, VkResult -4)").
void vk_check(VkResult r, const char* what);

}  // namespace graphlens
