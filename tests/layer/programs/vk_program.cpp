#include "vk_program.h"

#include <cstring>

namespace program {

ValidationLog& validation_log() {
    static ValidationLog log;
    return log;
}

namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                          VkDebugUtilsMessageTypeFlagsEXT,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
    const bool error = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    std::printf("validation %s: [%s] %s\n", error ? "error" : "message",
                data->pMessageIdName ? data->pMessageIdName : "", data->pMessage);
    std::fflush(stdout);
    if (error) ++validation_log().errors;
    return VK_FALSE;
}

VkInstance create_instance(bool validate, VkDebugUtilsMessengerCreateInfoEXT& messenger) {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "graphlens layer test program";
    app.apiVersion = VK_API_VERSION_1_3;
    const char* extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    const char* layers[] = {"VK_LAYER_KHRONOS_validation"};
    VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;
    features.pNext = &messenger;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = extensions;
    if (validate) {
        info.enabledLayerCount = 1;
        info.ppEnabledLayerNames = layers;
        info.pNext = &features;
    }
    VkInstance instance;
    VK_CHECK(vkCreateInstance(&info, nullptr, &instance));
    return instance;
}

VkPhysicalDevice pick_device(VkInstance instance) {
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(instance, &n, nullptr);
    std::vector<VkPhysicalDevice> all(n);
    vkEnumeratePhysicalDevices(instance, &n, all.data());
    if (all.empty()) {
        std::fprintf(stderr, "no Vulkan device\n");
        std::exit(2);
    }
    return all.front();  // the test selects lavapipe with VK_DRIVER_FILES
}

}  // namespace

Context create_context(bool validate, uint32_t features) {
    Context c;
    VkDebugUtilsMessengerCreateInfoEXT messenger{
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messenger.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                            VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                            VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messenger.pfnUserCallback = on_message;
    c.instance = create_instance(validate, messenger);
    if (validate) {
        auto create = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            c.instance, "vkCreateDebugUtilsMessengerEXT");
        VK_CHECK(create(c.instance, &messenger, nullptr, &c.messenger));
    }
    c.physical = pick_device(c.instance);
    vkGetPhysicalDeviceMemoryProperties(c.physical, &c.memory);
    uint32_t nf = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(c.physical, &nf, nullptr);
    std::vector<VkQueueFamilyProperties> families(nf);
    vkGetPhysicalDeviceQueueFamilyProperties(c.physical, &nf, families.data());
    for (uint32_t i = 0; i < nf; ++i)
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
            c.family = i;
            break;
        }
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueFamilyIndex = c.family;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    v13.synchronization2 = VK_TRUE;
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    v12.bufferDeviceAddress = (features & kBufferDeviceAddress) ? VK_TRUE : VK_FALSE;
    v12.timelineSemaphore = (features & kTimelineSemaphore) ? VK_TRUE : VK_FALSE;
    if (features) v13.pNext = &v12;
    const char* extensions[] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    info.pNext = &v13;
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = extensions;
    VK_CHECK(vkCreateDevice(c.physical, &info, nullptr, &c.device));
    vkGetDeviceQueue(c.device, c.family, 0, &c.queue);
    auto proc = [&](const char* name) { return vkGetDeviceProcAddr(c.device, name); };
    c.set_name = (PFN_vkSetDebugUtilsObjectNameEXT)proc("vkSetDebugUtilsObjectNameEXT");
    c.begin_label = (PFN_vkCmdBeginDebugUtilsLabelEXT)proc("vkCmdBeginDebugUtilsLabelEXT");
    c.end_label = (PFN_vkCmdEndDebugUtilsLabelEXT)proc("vkCmdEndDebugUtilsLabelEXT");
    // Queue labels through the instance, as some engines do.
    c.queue_begin_label = (PFN_vkQueueBeginDebugUtilsLabelEXT)vkGetInstanceProcAddr(
        c.instance, "vkQueueBeginDebugUtilsLabelEXT");
    c.queue_end_label = (PFN_vkQueueEndDebugUtilsLabelEXT)vkGetInstanceProcAddr(
        c.instance, "vkQueueEndDebugUtilsLabelEXT");
    c.push_descriptor_set = (PFN_vkCmdPushDescriptorSetKHR)proc("vkCmdPushDescriptorSetKHR");
    return c;
}

void destroy_context(Context& c) {
    vkDestroyDevice(c.device, nullptr);
    if (c.messenger) {
        auto destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            c.instance, "vkDestroyDebugUtilsMessengerEXT");
        destroy(c.instance, c.messenger, nullptr);
    }
    vkDestroyInstance(c.instance, nullptr);
}

void name_object(Context& c, VkObjectType type, uint64_t handle, const char* name) {
    VkDebugUtilsObjectNameInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
    info.objectType = type;
    info.objectHandle = handle;
    info.pObjectName = name;
    VK_CHECK(c.set_name(c.device, &info));
}

VkBuffer create_buffer(Context& c, uint64_t size, VkBufferUsageFlags usage, const char* name) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = usage;
    VkBuffer b;
    VK_CHECK(vkCreateBuffer(c.device, &info, nullptr, &b));
    if (name) name_object(c, VK_OBJECT_TYPE_BUFFER, handle_of(b), name);
    return b;
}

VkDeviceMemory allocate_memory(Context& c, uint64_t size, const char* name,
                               VkMemoryAllocateFlags flags) {
    const VkMemoryPropertyFlags want =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    info.allocationSize = size;
    VkMemoryAllocateFlagsInfo flags_info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
    flags_info.flags = flags;
    if (flags) info.pNext = &flags_info;
    for (uint32_t i = 0; i < c.memory.memoryTypeCount; ++i)
        if ((c.memory.memoryTypes[i].propertyFlags & want) == want) {
            info.memoryTypeIndex = i;
            break;
        }
    VkDeviceMemory m;
    VK_CHECK(vkAllocateMemory(c.device, &info, nullptr, &m));
    if (name) name_object(c, VK_OBJECT_TYPE_DEVICE_MEMORY, handle_of(m), name);
    return m;
}

VkShaderModule create_module(Context& c, const uint32_t* words, size_t bytes, const char* name) {
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = bytes;
    info.pCode = words;
    VkShaderModule m;
    VK_CHECK(vkCreateShaderModule(c.device, &info, nullptr, &m));
    if (name) name_object(c, VK_OBJECT_TYPE_SHADER_MODULE, handle_of(m), name);
    return m;
}

VkPipeline create_pipeline(Context& c, VkShaderModule module, VkPipelineLayout layout,
                           const VkSpecializationInfo* spec, const char* name) {
    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = "main";
    info.stage.pSpecializationInfo = spec;
    info.layout = layout;
    VkPipeline p;
    VK_CHECK(vkCreateComputePipelines(c.device, VK_NULL_HANDLE, 1, &info, nullptr, &p));
    if (name) name_object(c, VK_OBJECT_TYPE_PIPELINE, handle_of(p), name);
    return p;
}

void begin_label(Context& c, VkCommandBuffer cb, const char* name) {
    VkDebugUtilsLabelEXT label{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
    label.pLabelName = name;
    c.begin_label(cb, &label);
}

void end_label(Context& c, VkCommandBuffer cb) {
    c.end_label(cb);
}

VkDescriptorPool create_descriptor_pool(Context& c, uint32_t storage_buffers) {
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, storage_buffers};
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.maxSets = 1;
    info.poolSizeCount = 1;
    info.pPoolSizes = &size;
    VkDescriptorPool pool;
    VK_CHECK(vkCreateDescriptorPool(c.device, &info, nullptr, &pool));
    return pool;
}

VkDescriptorSet allocate_set(Context& c, VkDescriptorPool pool, VkDescriptorSetLayout layout) {
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = pool;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &layout;
    VkDescriptorSet set;
    VK_CHECK(vkAllocateDescriptorSets(c.device, &alloc, &set));
    return set;
}

VkCommandBuffer begin_primary(Context& c, VkCommandPool pool) {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cb;
    VK_CHECK(vkAllocateCommandBuffers(c.device, &alloc, &cb));
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_CHECK(vkBeginCommandBuffer(cb, &begin));
    return cb;
}

void submit_and_wait(Context& c, VkCommandBuffer cb) {
    VK_CHECK(vkEndCommandBuffer(cb));
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb;
    VK_CHECK(vkQueueSubmit(c.queue, 1, &submit, VK_NULL_HANDLE));
    VK_CHECK(vkQueueWaitIdle(c.queue));
}

}  // namespace program
