#pragma once
// The next layer's (or the driver's) functions, per instance and per device. The layer wraps
// no handles: it finds an object's table by the dispatch key the loader puts in the first
// word of every dispatchable handle (instance, physical device, device, queue, command
// buffer), which is the same for a device and the queues and command buffers made from it.
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

namespace graphlens::layer {

/// The device functions the layer intercepts: X(name without the vk prefix).
#define GRAPHLENS_DEVICE_HOOKS(X)          \
    X(DestroyDevice)                       \
    X(GetDeviceQueue)                      \
    X(GetDeviceQueue2)                     \
    X(CreateShaderModule)                  \
    X(DestroyShaderModule)                 \
    X(CreateComputePipelines)              \
    X(DestroyPipeline)                     \
    X(CreateDescriptorSetLayout)           \
    X(DestroyDescriptorSetLayout)          \
    X(CreatePipelineLayout)                \
    X(DestroyPipelineLayout)               \
    X(AllocateDescriptorSets)              \
    X(FreeDescriptorSets)                  \
    X(ResetDescriptorPool)                 \
    X(DestroyDescriptorPool)               \
    X(UpdateDescriptorSets)                \
    X(CreateDescriptorUpdateTemplate)      \
    X(CreateDescriptorUpdateTemplateKHR)   \
    X(DestroyDescriptorUpdateTemplate)     \
    X(DestroyDescriptorUpdateTemplateKHR)  \
    X(UpdateDescriptorSetWithTemplate)     \
    X(UpdateDescriptorSetWithTemplateKHR)  \
    X(CreateBuffer)                        \
    X(DestroyBuffer)                       \
    X(AllocateMemory)                      \
    X(FreeMemory)                          \
    X(BindBufferMemory)                    \
    X(BindBufferMemory2)                   \
    X(BindBufferMemory2KHR)                \
    X(AllocateCommandBuffers)              \
    X(FreeCommandBuffers)                  \
    X(ResetCommandPool)                    \
    X(DestroyCommandPool)                  \
    X(BeginCommandBuffer)                  \
    X(ResetCommandBuffer)                  \
    X(CmdBindPipeline)                     \
    X(CmdBindDescriptorSets)               \
    X(CmdPushDescriptorSetKHR)             \
    X(CmdPushDescriptorSetWithTemplateKHR) \
    X(CmdPushConstants)                    \
    X(CmdDispatch)                         \
    X(CmdDispatchBase)                     \
    X(CmdDispatchBaseKHR)                  \
    X(CmdDispatchIndirect)                 \
    X(CmdCopyBuffer)                       \
    X(CmdCopyBuffer2)                      \
    X(CmdCopyBuffer2KHR)                   \
    X(CmdFillBuffer)                       \
    X(CmdUpdateBuffer)                     \
    X(CmdPipelineBarrier)                  \
    X(CmdPipelineBarrier2)                 \
    X(CmdPipelineBarrier2KHR)              \
    X(CmdSetEvent)                         \
    X(CmdSetEvent2)                        \
    X(CmdSetEvent2KHR)                     \
    X(CmdResetEvent)                       \
    X(CmdResetEvent2)                      \
    X(CmdResetEvent2KHR)                   \
    X(CmdWaitEvents)                       \
    X(CmdWaitEvents2)                      \
    X(CmdWaitEvents2KHR)                   \
    X(CmdExecuteCommands)                  \
    X(CmdBeginDebugUtilsLabelEXT)          \
    X(CmdEndDebugUtilsLabelEXT)            \
    X(CmdInsertDebugUtilsLabelEXT)         \
    X(QueueBeginDebugUtilsLabelEXT)        \
    X(QueueEndDebugUtilsLabelEXT)          \
    X(QueueInsertDebugUtilsLabelEXT)       \
    X(SetDebugUtilsObjectNameEXT)          \
    X(QueueSubmit)                         \
    X(QueueSubmit2)                        \
    X(QueueSubmit2KHR)                     \
    X(QueueWaitIdle)                       \
    X(DeviceWaitIdle)                      \
    X(WaitForFences)                       \
    X(GetFenceStatus)                      \
    X(CreateSemaphore)                     \
    X(DestroySemaphore)                    \
    X(SetEvent)                            \
    X(ResetEvent)                          \
    X(SignalSemaphore)                     \
    X(SignalSemaphoreKHR)                  \
    X(WaitSemaphores)                      \
    X(WaitSemaphoresKHR)

struct DeviceDispatch {
    PFN_vkGetDeviceProcAddr GetDeviceProcAddr = nullptr;
#define GRAPHLENS_DEVICE_MEMBER(name) PFN_vk##name name = nullptr;
    GRAPHLENS_DEVICE_HOOKS(GRAPHLENS_DEVICE_MEMBER)
#undef GRAPHLENS_DEVICE_MEMBER
};

struct InstanceDispatch {
    PFN_vkGetInstanceProcAddr GetInstanceProcAddr = nullptr;
    PFN_vkDestroyInstance DestroyInstance = nullptr;
    PFN_vkCreateDevice CreateDevice = nullptr;
    PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties = nullptr;
    PFN_vkGetPhysicalDeviceProperties GetPhysicalDeviceProperties = nullptr;
    PFN_vkGetPhysicalDeviceProperties2 GetPhysicalDeviceProperties2 = nullptr;
    PFN_vkGetPhysicalDeviceQueueFamilyProperties GetPhysicalDeviceQueueFamilyProperties = nullptr;
};

inline void* dispatch_key(const void* dispatchable_handle) {
    return *static_cast<void* const*>(dispatchable_handle);
}

/// Fills `table` from the next layer's vkGetDeviceProcAddr (absent functions stay null).
void load_device_dispatch(VkDevice device, PFN_vkGetDeviceProcAddr next, DeviceDispatch& table);
void load_instance_dispatch(VkInstance instance, PFN_vkGetInstanceProcAddr next,
                            InstanceDispatch& table);

}  // namespace graphlens::layer
