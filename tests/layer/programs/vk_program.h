#pragma once
// The Vulkan set-up the test programs share, written the way an engine would: an instance
// with debug utils (and, on request, the validation layer with synchronization validation),
// one compute queue, buffers placed in memory the program allocates itself.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace program {

#define VK_CHECK(call)                                                                           \
    do {                                                                                         \
        const VkResult result_ = (call);                                                         \
        if (result_ != VK_SUCCESS) {                                                             \
            std::fprintf(stderr, "%s failed: %d (%s:%d)\n", #call, result_, __FILE__, __LINE__); \
            std::exit(2);                                                                        \
        }                                                                                        \
    } while (0)

struct Context {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    uint32_t family = 0;
    VkPhysicalDeviceMemoryProperties memory{};
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    PFN_vkSetDebugUtilsObjectNameEXT set_name = nullptr;
    PFN_vkCmdBeginDebugUtilsLabelEXT begin_label = nullptr;
    PFN_vkCmdEndDebugUtilsLabelEXT end_label = nullptr;
    PFN_vkQueueBeginDebugUtilsLabelEXT queue_begin_label = nullptr;
    PFN_vkQueueEndDebugUtilsLabelEXT queue_end_label = nullptr;
    PFN_vkCmdPushDescriptorSetKHR push_descriptor_set = nullptr;
};

/// Validation messages seen with --validate: every one is printed; errors are counted.
struct ValidationLog {
    int errors = 0;
};
ValidationLog& validation_log();

/// Features a program enables besides synchronization2 (create_context's `features`).
enum ContextFeature : uint32_t {
    kBufferDeviceAddress = 1,  ///< VkPhysicalDeviceVulkan12Features::bufferDeviceAddress
    kTimelineSemaphore = 2,    ///< VkPhysicalDeviceVulkan12Features::timelineSemaphore
};

/// Creates instance, device (with VK_KHR_push_descriptor, synchronization2 and the
/// ContextFeature bits in `features`) and queue.
Context create_context(bool validate, uint32_t features = 0);
void destroy_context(Context& c);

VkBuffer create_buffer(Context& c, uint64_t size, VkBufferUsageFlags usage, const char* name);
/// Host-visible, coherent memory (lavapipe's memory is all of that); `flags` go into a
/// VkMemoryAllocateFlagsInfo when not 0 (VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT).
VkDeviceMemory allocate_memory(Context& c, uint64_t size, const char* name,
                               VkMemoryAllocateFlags flags = 0);
VkShaderModule create_module(Context& c, const uint32_t* words, size_t bytes, const char* name);
VkPipeline create_pipeline(Context& c, VkShaderModule module, VkPipelineLayout layout,
                           const VkSpecializationInfo* spec, const char* name);
void name_object(Context& c, VkObjectType type, uint64_t handle, const char* name);
/// A pool of `storage_buffers` storage-buffer descriptors for one set, and that set.
VkDescriptorPool create_descriptor_pool(Context& c, uint32_t storage_buffers);
VkDescriptorSet allocate_set(Context& c, VkDescriptorPool pool, VkDescriptorSetLayout layout);
/// A primary command buffer of `pool`, begun.
VkCommandBuffer begin_primary(Context& c, VkCommandPool pool);
/// Ends `cb`, submits it alone and waits until the queue is idle.
void submit_and_wait(Context& c, VkCommandBuffer cb);
void begin_label(Context& c, VkCommandBuffer cb, const char* name);
void end_label(Context& c, VkCommandBuffer cb);

template <class Handle>
uint64_t handle_of(Handle h) {
    return (uint64_t)h;
}

}  // namespace program
