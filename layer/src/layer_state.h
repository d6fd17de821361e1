#pragma once
// The layer's per-instance and per-device state, found by dispatch key.
#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "layer/src/dispatch_tables.h"
#include "layer/src/handle_map.h"
#include "layer/src/recorded_command.h"
#include "layer/src/tracked_objects.h"

namespace graphlens::layer {

struct InstanceState {
    VkInstance instance = VK_NULL_HANDLE;
    InstanceDispatch dispatch;
    uint32_t api_version = VK_API_VERSION_1_0;
    std::vector<std::string> extensions;  ///< enabled by the program, sorted
    bool debug_utils = false;
};

struct CommandBufferState {
    uint64_t pool = 0;
    /// The recording since the last begin or reset; replaced, not cleared.
    std::shared_ptr<CommandList> list = std::make_shared<CommandList>();
};

struct QueueInfo {
    uint32_t family = 0;
    uint32_t index = 0;
};

struct DeviceState {
    VkDevice device = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    std::shared_ptr<InstanceState> instance;
    DeviceDispatch dispatch;
    std::vector<std::string> extensions;  ///< enabled by the program, sorted
    std::vector<std::string> features;    ///< enabled features by name, sorted

    HandleMap<MemoryState> memories;
    HandleMap<BufferState> buffers;
    HandleMap<ShaderModuleState> modules;
    HandleMap<PipelineState> pipelines;
    HandleMap<const SetLayoutState> set_layouts;
    HandleMap<const PipelineLayoutState> pipeline_layouts;
    HandleMap<DescriptorSetState> descriptor_sets;
    HandleMap<const UpdateTemplateState> update_templates;
    HandleMap<CommandBufferState> command_buffers;
    HandleMap<QueueInfo> queues;

    /// Debug-utils object names by (object type, handle).
    std::string object_name(VkObjectType type, uint64_t handle) const;
    void set_object_name(VkObjectType type, uint64_t handle, std::string name);

    uint32_t next_pipeline_serial() { return pipeline_serial_++; }

  private:
    mutable std::mutex names_mutex_;
    std::map<std::pair<VkObjectType, uint64_t>, std::string> names_;
    std::atomic<uint32_t> pipeline_serial_{0};
};

/// Registries by dispatch key. find_* return null for a handle the layer does not know (a
/// device created before the layer was loaded cannot happen, but a null is never fatal).
std::shared_ptr<InstanceState> find_instance(const void* dispatchable);
void add_instance(const void* dispatchable, std::shared_ptr<InstanceState> state);
void remove_instance(const void* dispatchable);
std::shared_ptr<DeviceState> find_device(const void* dispatchable);
void add_device(const void* dispatchable, std::shared_ptr<DeviceState> state);
void remove_device(const void* dispatchable);

/// The device of a command buffer (or any dispatchable handle) on the hot path: a per-thread
/// cache of the last one found, checked against a counter every device removal increases, so
/// that a hit takes no lock and touches no shared reference count. The pointer stays valid
/// while the program may use the handle (Vulkan forbids destroying a device in use).
DeviceState* device_of(const void* dispatchable);

/// Called after command buffer states were added or removed (a device removed removes its
/// own): the per-thread cached ones are looked up again (command_recording.h).
void command_buffers_changed();

/// The command buffer's state, or null (then the command is passed on unrecorded).
std::shared_ptr<CommandBufferState> find_command_buffer(DeviceState& device, VkCommandBuffer cb);

}  // namespace graphlens::layer
