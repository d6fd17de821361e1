#pragma once
// The layer's entry points by Vulkan name. Each hooks_*.cpp adds its own; vkGetDeviceProcAddr
// and vkGetInstanceProcAddr answer from here and pass every other name down the chain.
#include <vulkan/vulkan.h>

#include <string>
#include <unordered_map>

namespace graphlens::layer {

struct HookTable {
    std::unordered_map<std::string, PFN_vkVoidFunction> instance;  ///< instance-level
    std::unordered_map<std::string, PFN_vkVoidFunction> device;    ///< device-level
};

/// The complete table, built once.
const HookTable& hook_table();

void add_instance_hooks(HookTable& table);        // hooks_instance.cpp
void add_object_hooks(HookTable& table);          // hooks_objects.cpp
void add_pipeline_hooks(HookTable& table);        // hooks_pipelines.cpp
void add_descriptor_hooks(HookTable& table);      // hooks_descriptors.cpp
void add_command_buffer_hooks(HookTable& table);  // hooks_command_buffers.cpp
void add_command_hooks(HookTable& table);         // hooks_commands.cpp
void add_transfer_hooks(HookTable& table);        // hooks_transfers.cpp
void add_sync_command_hooks(HookTable& table);    // hooks_sync_commands.cpp
void add_queue_hooks(HookTable& table);           // hooks_queue.cpp
void add_semaphore_hooks(HookTable& table);       // hooks_semaphores.cpp
void add_debug_utils_hooks(HookTable& table);     // hooks_debug_utils.cpp

template <class Fn>
PFN_vkVoidFunction as_void_fn(Fn* fn) {
    return reinterpret_cast<PFN_vkVoidFunction>(fn);
}

}  // namespace graphlens::layer
