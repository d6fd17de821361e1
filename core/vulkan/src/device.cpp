// Vulkan instance, physical-device choice, logical device with one compute queue, and the
// validation message collector.
#include "graphlens/vulkan/device.h"
#include "vulkan/src/device_requirements_apply.h"
#include "vulkan/src/vk_enumerate.h"
#include "vulkan/src/vk_struct.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "graphlens/vulkan/kernel_registry.h"

namespace graphlens {

std::string vk_result_name(VkResult r) {
    switch (r) {
        case VK_SUCCESS:
            return "VK_SUCCESS";
        case VK_NOT_READY:
            return "VK_NOT_READY";
        case VK_TIMEOUT:
            return "VK_TIMEOUT";
        case VK_INCOMPLETE:
            return "VK_INCOMPLETE";
        case VK_ERROR_OUT_OF_HOST_MEMORY:
            return "VK_ERROR_OUT_OF_HOST_MEMORY";
        case VK_ERROR_OUT_OF_DEVICE_MEMORY:
            return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
        case VK_ERROR_INITIALIZATION_FAILED:
            return "VK_ERROR_INITIALIZATION_FAILED";
        case VK_ERROR_DEVICE_LOST:
            return "VK_ERROR_DEVICE_LOST";
        case VK_ERROR_MEMORY_MAP_FAILED:
            return "VK_ERROR_MEMORY_MAP_FAILED";
        case VK_ERROR_LAYER_NOT_PRESENT:
            return "VK_ERROR_LAYER_NOT_PRESENT";
        case VK_ERROR_EXTENSION_NOT_PRESENT:
            return "VK_ERROR_EXTENSION_NOT_PRESENT";
        case VK_ERROR_FEATURE_NOT_PRESENT:
            return "VK_ERROR_FEATURE_NOT_PRESENT";
        case VK_ERROR_INCOMPATIBLE_DRIVER:
            return "VK_ERROR_INCOMPATIBLE_DRIVER";
        case VK_ERROR_TOO_MANY_OBJECTS:
            return "VK_ERROR_TOO_MANY_OBJECTS";
        case VK_ERROR_FORMAT_NOT_SUPPORTED:
            return "VK_ERROR_FORMAT_NOT_SUPPORTED";
        case VK_ERROR_FRAGMENTED_POOL:
            return "VK_ERROR_FRAGMENTED_POOL";
        case VK_ERROR_UNKNOWN:
            return "VK_ERROR_UNKNOWN";
        case VK_ERROR_OUT_OF_POOL_MEMORY:
            return "VK_ERROR_OUT_OF_POOL_MEMORY";
        case VK_ERROR_FRAGMENTATION:
            return "VK_ERROR_FRAGMENTATION";
        default:
            return fmt::format("VkResult {}", static_cast<int>(r));
    }
}

void vk_check(VkResult r, const char* what) {
    if (r == VK_SUCCESS) return;
    const std::string message = fmt::format("Vulkan: {} failed ({}, VkResult {})", what,
                                            vk_result_name(r), static_cast<int>(r));
    if (r == VK_ERROR_DEVICE_LOST) throw DeviceLost(message);
    throw std::runtime_error(message);
}

std::string_view device_type_name(DeviceType t) {
    switch (t) {
        case DeviceType::discrete:
            return "discrete";
        case DeviceType::integrated:
            return "integrated";
        case DeviceType::virtual_gpu:
            return "virtual";
        case DeviceType::cpu:
            return "cpu";
        case DeviceType::other:
            return "other";
    }
    return "other";
}

std::string DeviceFacts::api_version_string() const {
    return fmt::format("{}.{}.{}", VK_API_VERSION_MAJOR(api_version),
                       VK_API_VERSION_MINOR(api_version), VK_API_VERSION_PATCH(api_version));
}

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

bool env_flag(const char* name, bool fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    return std::strcmp(v, "0") != 0 && std::strcmp(v, "false") != 0 && std::strcmp(v, "off") != 0;
}

std::vector<VkExtensionProperties> device_extensions(VkPhysicalDevice pd) {
    return vk_enumerate<VkExtensionProperties>(
        [&](uint32_t* n, VkExtensionProperties* p) {
            return vkEnumerateDeviceExtensionProperties(pd, nullptr, n, p);
        },
        "vkEnumerateDeviceExtensionProperties");
}

bool has_extension(const std::vector<VkExtensionProperties>& exts, const char* name) {
    return std::any_of(exts.begin(), exts.end(), [&](const VkExtensionProperties& e) {
        return std::strcmp(e.extensionName, name) == 0;
    });
}

bool instance_has_layer(const char* name) {
    const auto layers = vk_enumerate<VkLayerProperties>(
        [](uint32_t* n, VkLayerProperties* p) { return vkEnumerateInstanceLayerProperties(n, p); },
        "vkEnumerateInstanceLayerProperties");
    return std::any_of(layers.begin(), layers.end(), [&](const VkLayerProperties& l) {
        return std::strcmp(l.layerName, name) == 0;
    });
}

bool instance_has_extension(const char* name) {
    return has_extension(vk_enumerate<VkExtensionProperties>(
                             [](uint32_t* n, VkExtensionProperties* p) {
                                 return vkEnumerateInstanceExtensionProperties(nullptr, n, p);
                             },
                             "vkEnumerateInstanceExtensionProperties"),
                         name);
}

DeviceType to_device_type(VkPhysicalDeviceType t) {
    switch (t) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
            return DeviceType::discrete;
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
            return DeviceType::integrated;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
            return DeviceType::virtual_gpu;
        case VK_PHYSICAL_DEVICE_TYPE_CPU:
            return DeviceType::cpu;
        default:
            return DeviceType::other;
    }
}

// Lower is preferred: discrete > integrated > virtual > CPU.
int type_rank(DeviceType t) {
    switch (t) {
        case DeviceType::discrete:
            return 0;
        case DeviceType::integrated:
            return 1;
        case DeviceType::virtual_gpu:
            return 2;
        case DeviceType::cpu:
            return 3;
        default:
            return 4;
    }
}

// The queue family used for compute: prefer a compute-only family, else any with compute.
std::optional<uint32_t> compute_family(VkPhysicalDevice pd, uint32_t* valid_bits) {
    const auto fams = vk_enumerate<VkQueueFamilyProperties>(
        [&](uint32_t* n, VkQueueFamilyProperties* p) {
            vkGetPhysicalDeviceQueueFamilyProperties(pd, n, p);
        },
        "vkGetPhysicalDeviceQueueFamilyProperties");
    std::optional<uint32_t> any;
    for (uint32_t i = 0; i < fams.size(); ++i) {
        if (!(fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
        if (!any) any = i;
    }
    if (any && valid_bits) *valid_bits = fams[*any].timestampValidBits;
    return any;
}

std::string_view nv_component_name(VkComponentTypeNV t) {
    switch (t) {
        case VK_COMPONENT_TYPE_FLOAT16_NV:
            return "f16";
        case VK_COMPONENT_TYPE_FLOAT32_NV:
            return "f32";
        case VK_COMPONENT_TYPE_FLOAT64_NV:
            return "f64";
        case VK_COMPONENT_TYPE_SINT8_NV:
            return "s8";
        case VK_COMPONENT_TYPE_SINT16_NV:
            return "s16";
        case VK_COMPONENT_TYPE_SINT32_NV:
            return "s32";
        case VK_COMPONENT_TYPE_SINT64_NV:
            return "s64";
        case VK_COMPONENT_TYPE_UINT8_NV:
            return "u8";
        case VK_COMPONENT_TYPE_UINT16_NV:
            return "u16";
        case VK_COMPONENT_TYPE_UINT32_NV:
            return "u32";
        case VK_COMPONENT_TYPE_UINT64_NV:
            return "u64";
        default:
            return "?";
    }
}

// VK_NV_cooperative_matrix: the listed shapes, and whether matmul_tc.comp's is among them.
void gather_cooperative_matrix_nv(VkInstance instance, VkPhysicalDevice pd, DeviceFacts& f,
                                  bool& tc_shape) {
    tc_shape = false;
    auto props_fn = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
        vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
    if (!props_fn) return;
    uint32_t n = 0;
    if (props_fn(pd, &n, nullptr) != VK_SUCCESS) return;
    std::vector<VkCooperativeMatrixPropertiesNV> props(
        n, vk_struct<VkCooperativeMatrixPropertiesNV>(
               VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV));
    if (props_fn(pd, &n, props.data()) != VK_SUCCESS) return;
    props.resize(n);
    for (const auto& p : props) {
        f.cooperative_matrix_nv_shapes.push_back(fmt::format(
            "{}x{}x{} {}*{}+{}->{} {}", p.MSize, p.NSize, p.KSize, nv_component_name(p.AType),
            nv_component_name(p.BType), nv_component_name(p.CType), nv_component_name(p.DType),
            p.scope == VK_SCOPE_SUBGROUP_NV ? "subgroup" : "other-scope"));
        if (p.MSize == 16 && p.NSize == 16 && p.KSize == 16 &&
            p.AType == VK_COMPONENT_TYPE_FLOAT16_NV && p.BType == VK_COMPONENT_TYPE_FLOAT16_NV &&
            p.CType == VK_COMPONENT_TYPE_FLOAT32_NV && p.DType == VK_COMPONENT_TYPE_FLOAT32_NV &&
            p.scope == VK_SCOPE_SUBGROUP_NV)
            tc_shape = true;
    }
}

// Vulkan 1.3 when the loader has it (core synchronization2), else 1.2.
uint32_t instance_api_version() {
    uint32_t v = VK_API_VERSION_1_0;
    if (vkEnumerateInstanceVersion(&v) != VK_SUCCESS) v = VK_API_VERSION_1_0;
    return v >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2;
}

// What the compute-shader subgroups of a device can do (the attention twin's requirement).
struct SubgroupSupport {
    VkSubgroupFeatureFlags operations = 0;
    VkShaderStageFlags stages = 0;
};

// Name, driver, limits and timestamp support, from the core properties.
SubgroupSupport gather_properties(VkPhysicalDevice pd, DeviceFacts& f) {
    VkPhysicalDeviceDriverProperties driver = vk_struct<VkPhysicalDeviceDriverProperties>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES);
    VkPhysicalDeviceSubgroupProperties subgroup = vk_struct<VkPhysicalDeviceSubgroupProperties>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES);
    subgroup.pNext = &driver;
    VkPhysicalDeviceProperties2 props =
        vk_struct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
    props.pNext = &subgroup;
    vkGetPhysicalDeviceProperties2(pd, &props);
    const auto& p = props.properties;
    f.name = p.deviceName;
    f.type = to_device_type(p.deviceType);
    f.vendor_id = p.vendorID;
    f.device_id = p.deviceID;
    f.api_version = p.apiVersion;
    f.driver_name = driver.driverName;
    f.driver_info = driver.driverInfo;
    f.subgroup_size = subgroup.subgroupSize;
    f.max_shared_memory = p.limits.maxComputeSharedMemorySize;
    f.max_push_constants = p.limits.maxPushConstantsSize;
    f.max_storage_buffer_range = p.limits.maxStorageBufferRange;
    f.storage_offset_alignment = p.limits.minStorageBufferOffsetAlignment;
    for (int i = 0; i < 3; ++i) f.max_workgroup_count[i] = p.limits.maxComputeWorkGroupCount[i];
    f.timestamp_period_ns = p.limits.timestampPeriod;
    uint32_t valid_bits = 0;
    compute_family(pd, &valid_bits);
    f.timestamp_valid_bits = valid_bits;
    f.timestamps = valid_bits > 0 && p.limits.timestampPeriod > 0;
    return {subgroup.supportedOperations, subgroup.supportedStages};
}

// Largest allocation, device-local bytes and whether host and device share memory.
void gather_memory(VkPhysicalDevice pd, DeviceFacts& f) {
    VkPhysicalDeviceMaintenance3Properties m3 = vk_struct<VkPhysicalDeviceMaintenance3Properties>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES);
    VkPhysicalDeviceProperties2 props_m3 =
        vk_struct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
    props_m3.pNext = &m3;
    vkGetPhysicalDeviceProperties2(pd, &props_m3);
    f.max_allocation_size = m3.maxMemoryAllocationSize;

    VkPhysicalDeviceMemoryProperties mem{};
    vkGetPhysicalDeviceMemoryProperties(pd, &mem);
    for (uint32_t i = 0; i < mem.memoryHeapCount; ++i)
        if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
            f.device_local_bytes += mem.memoryHeaps[i].size;
    const VkMemoryPropertyFlags unified = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    // Resizable BAR on a discrete GPU also gives such a type, but staging is faster to read
    // back there; the fast path is for CPU and integrated devices.
    if (f.type == DeviceType::cpu || f.type == DeviceType::integrated)
        for (uint32_t i = 0; i < mem.memoryTypeCount; ++i)
            if ((mem.memoryTypes[i].propertyFlags & unified) == unified) f.unified_memory = true;
}

// The optional extensions GraphLens uses, noted in f; returns whether the device offers
// VK_KHR_synchronization2 as an extension.
bool gather_extensions(VkPhysicalDevice pd, DeviceFacts& f) {
    const auto exts = device_extensions(pd);
    auto note = [&](const char* name, bool& flag) {
        flag = has_extension(exts, name);
        if (flag) f.extensions.emplace_back(name);
    };
    note(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME, f.push_descriptor);
    bool sync2_ext = false;
    note(VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME, sync2_ext);
    note(VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME, f.calibrated_timestamps);
    note(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME, f.subgroup_size_control);
    note(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME, f.shader_float16);
    note(VK_KHR_16BIT_STORAGE_EXTENSION_NAME, f.storage_16bit);
    note(VK_KHR_8BIT_STORAGE_EXTENSION_NAME, f.storage_8bit);
    note("VK_KHR_cooperative_matrix", f.cooperative_matrix);
    note(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME, f.cooperative_matrix_nv);
    return sync2_ext;
}

bool integer_dot_product_accelerated(VkPhysicalDevice pd) {
    VkPhysicalDeviceShaderIntegerDotProductProperties idp =
        vk_struct<VkPhysicalDeviceShaderIntegerDotProductProperties>(
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_PROPERTIES);
    VkPhysicalDeviceProperties2 props_idp =
        vk_struct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
    props_idp.pNext = &idp;
    vkGetPhysicalDeviceProperties2(pd, &props_idp);
    return idp.integerDotProduct4x8BitPackedMixedSignednessAccelerated;
}

// Synchronization2, integer dot products and tensor cores: the features behind them, and for
// tensor cores the shape, subgroup and shared-memory needs of the *_tc.comp kernels.
void gather_features(VkPhysicalDevice pd, DeviceFacts& f, bool sync2_ext, bool tc_shape,
                     SubgroupSupport subgroup) {
    const uint32_t api = f.api_version;
    VkPhysicalDeviceSynchronization2Features sync2 =
        vk_struct<VkPhysicalDeviceSynchronization2Features>(
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES);
    VkPhysicalDeviceFeatures2 feats =
        vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
    void** tail = &feats.pNext;
    if (sync2_ext || api >= VK_API_VERSION_1_3) {
        *tail = &sync2;
        tail = &sync2.pNext;
    }
    VkPhysicalDeviceCooperativeMatrixFeaturesNV coop =
        vk_struct<VkPhysicalDeviceCooperativeMatrixFeaturesNV>(
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV);
    VkPhysicalDeviceVulkan12Features v12 = vk_struct<VkPhysicalDeviceVulkan12Features>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
    if (f.cooperative_matrix_nv && api >= VK_API_VERSION_1_2) {
        *tail = &coop;
        coop.pNext = &v12;
    }
    VkPhysicalDeviceVulkan13Features v13 = vk_struct<VkPhysicalDeviceVulkan13Features>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
    const bool v13_ok = api >= VK_API_VERSION_1_3 && instance_api_version() >= VK_API_VERSION_1_3;
    if (v13_ok) {
        v13.pNext = feats.pNext;
        feats.pNext = &v13;
    }
    vkGetPhysicalDeviceFeatures2(pd, &feats);
    f.integer_dot_product = v13_ok && v13.shaderIntegerDotProduct;
    if (f.integer_dot_product)
        f.integer_dot_product_accelerated = integer_dot_product_accelerated(pd);
    f.synchronization2 = (sync2_ext || api >= VK_API_VERSION_1_3) && sync2.synchronization2;
    f.tensor_cores = f.cooperative_matrix_nv && api >= VK_API_VERSION_1_2 &&
                     coop.cooperativeMatrix && tc_shape && v12.vulkanMemoryModel &&
                     v12.shaderFloat16 && f.subgroup_size == 32 &&
                     // the two-stage 128 x 128 mat-mat twin (matmul_tc.comp) keeps 48 KiB
                     f.max_shared_memory >= 48u * 1024u &&
                     // the attention twin (sdpa_tc.comp) reduces rows with clustered operations
                     (subgroup.operations & VK_SUBGROUP_FEATURE_CLUSTERED_BIT) &&
                     (subgroup.stages & VK_SHADER_STAGE_COMPUTE_BIT);
}

DeviceFacts gather_facts(VkInstance instance, VkPhysicalDevice pd, uint32_t index) {
    DeviceFacts f;
    f.index = index;
    const SubgroupSupport subgroup = gather_properties(pd, f);
    gather_memory(pd, f);
    const bool sync2_ext = gather_extensions(pd, f);
    bool tc_shape = false;
    if (f.cooperative_matrix_nv) gather_cooperative_matrix_nv(instance, pd, f, tc_shape);
    gather_features(pd, f, sync2_ext, tc_shape, subgroup);
    return f;
}

VkInstance make_instance(bool validation, bool debug_utils,
                         VkDebugUtilsMessengerCreateInfoEXT* messenger_info) {
    VkApplicationInfo app = vk_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
    app.pApplicationName = "GraphLens";
    app.pEngineName = "GraphLens";
    app.apiVersion = instance_api_version();
    std::vector<const char*> layers;
    std::vector<const char*> exts;
    if (validation) layers.push_back(kValidationLayer);
    if (debug_utils) exts.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    bool portability = instance_has_extension(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    if (portability) exts.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);

    VkInstanceCreateInfo ci =
        vk_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
    ci.pApplicationInfo = &app;
    ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
    ci.ppEnabledLayerNames = layers.data();
    ci.enabledExtensionCount = static_cast<uint32_t>(exts.size());
    ci.ppEnabledExtensionNames = exts.data();
    if (portability) ci.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;

    // Synchronization validation is what makes a missing barrier an error.
    VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features =
        vk_struct<VkValidationFeaturesEXT>(VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT);
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;
    if (validation) {
        features.pNext = messenger_info;  // also catches messages of vkCreateInstance itself
        ci.pNext = &features;
    }
    VkInstance instance = VK_NULL_HANDLE;
    vk_check(vkCreateInstance(&ci, nullptr, &instance), "vkCreateInstance");
    return instance;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    ValidationMessage m;
    m.error = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    m.id = data->pMessageIdName ? data->pMessageIdName : "";
    m.text = data->pMessage ? data->pMessage : "";
    static_cast<Device*>(user)->record_validation_message(std::move(m));
    return VK_FALSE;
}

bool matches_selector(const DeviceFacts& f, const std::string& sel) {
    if (!sel.empty() &&
        std::all_of(sel.begin(), sel.end(), [](unsigned char c) { return std::isdigit(c); }))
        return f.index == static_cast<uint32_t>(std::stoul(sel));
    auto lower = [](std::string s) {
        for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    return lower(f.name).find(lower(sel)) != std::string::npos;
}

std::vector<VkPhysicalDevice> physical_devices(VkInstance instance) {
    return vk_enumerate<VkPhysicalDevice>(
        [&](uint32_t* n, VkPhysicalDevice* p) {
            return vkEnumeratePhysicalDevices(instance, n, p);
        },
        "vkEnumeratePhysicalDevices");
}

// The device GRAPHLENS_DEVICE (or Options::selector) names, else the most capable device with a
// compute queue (discrete before integrated before virtual before CPU).
uint32_t choose_device(const std::vector<VkPhysicalDevice>& pds,
                       const std::vector<DeviceFacts>& facts, const std::string& selector) {
    std::optional<uint32_t> chosen;
    if (!selector.empty()) {
        for (const auto& f : facts)
            if (matches_selector(f, selector)) {
                chosen = f.index;
                break;
            }
        if (!chosen) {
            std::string names;
            for (const auto& f : facts)
                names += fmt::format("{}{}: {}", names.empty() ? "" : ", ", f.index, f.name);
            throw std::runtime_error(
                fmt::format("GRAPHLENS_DEVICE='{}' matches no device (have {})", selector, names));
        }
    } else {
        for (const auto& f : facts) {
            if (!compute_family(pds[f.index], nullptr)) continue;
            if (!chosen || type_rank(f.type) < type_rank(facts[*chosen].type)) chosen = f.index;
        }
        if (!chosen) throw std::runtime_error("Vulkan: no device with a compute queue");
    }
    return *chosen;
}

// The device extensions to enable and the optional paths they switch on.
struct ExtensionPlan {
    std::vector<const char*> names;
    std::vector<VkExtensionProperties> available;
    bool push_descriptor = false;
    bool synchronization2 = false;
    bool synchronization2_core = false;  // Vulkan 1.3 device and instance: no KHR suffix
    bool tensor_cores = false;
    bool pipeline_statistics = false;
};

ExtensionPlan plan_extensions(VkPhysicalDevice physical, const DeviceFacts& facts,
                              const Device::Options& options) {
    ExtensionPlan plan;
    plan.push_descriptor = options.allow_push_descriptor && facts.push_descriptor;
    if (plan.push_descriptor) plan.names.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    plan.synchronization2 = options.allow_synchronization2 && facts.synchronization2;
    plan.synchronization2_core =
        facts.api_version >= VK_API_VERSION_1_3 && instance_api_version() >= VK_API_VERSION_1_3;
    if (plan.synchronization2 && !plan.synchronization2_core)
        plan.names.push_back(VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME);
    // Features ops may use when present; enabling them costs nothing.
    plan.available = device_extensions(physical);
    for (const char* e : {VK_KHR_16BIT_STORAGE_EXTENSION_NAME, VK_KHR_8BIT_STORAGE_EXTENSION_NAME,
                          VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME})
        if (has_extension(plan.available, e) && facts.api_version < VK_API_VERSION_1_2)
            plan.names.push_back(e);

    // Tensor cores: VK_NV_cooperative_matrix, plus the Vulkan memory model its SPIR-V declares.
    plan.tensor_cores = facts.tensor_cores &&
                        options.tensor_cores.value_or(env_flag("GRAPHLENS_TENSOR_CORES", true));
    if (plan.tensor_cores) plan.names.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    plan.pipeline_statistics =
        options.pipeline_statistics.value_or(env_flag("GRAPHLENS_PIPELINE_STATS", false)) &&
        has_extension(plan.available, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    if (plan.pipeline_statistics)
        plan.names.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    return plan;
}

// The feature structs vkCreateDevice enables, chained from `head`. The chain points into this
// object, so it is built in place and never copied.
class EnabledFeatureChain {
  public:
    EnabledFeatureChain(VkPhysicalDevice physical, const DeviceFacts& facts,
                        const DeviceRequirements& required, ExtensionPlan& plan);
    EnabledFeatureChain(const EnabledFeatureChain&) = delete;
    EnabledFeatureChain& operator=(const EnabledFeatureChain&) = delete;

    const VkPhysicalDeviceFeatures2* head() const { return &enable_; }

  private:
    void append(void* next, void** next_tail) {
        *tail_ = next;
        tail_ = next_tail;
    }

    VkPhysicalDeviceFeatures2 enable_ =
        vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
    VkPhysicalDeviceVulkan11Features e11_ = vk_struct<VkPhysicalDeviceVulkan11Features>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
    VkPhysicalDeviceVulkan12Features e12_ = vk_struct<VkPhysicalDeviceVulkan12Features>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
    VkPhysicalDeviceVulkan13Features e13_ = vk_struct<VkPhysicalDeviceVulkan13Features>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
    VkPhysicalDeviceSynchronization2Features sync2_ =
        vk_struct<VkPhysicalDeviceSynchronization2Features>(
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES);
    VkPhysicalDeviceCooperativeMatrixFeaturesNV coop_ =
        vk_struct<VkPhysicalDeviceCooperativeMatrixFeaturesNV>(
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV);
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR stats_ =
        vk_struct<VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR>(
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR);
    void** tail_ = &enable_.pNext;
};

EnabledFeatureChain::EnabledFeatureChain(VkPhysicalDevice physical, const DeviceFacts& facts,
                                         const DeviceRequirements& required, ExtensionPlan& plan) {
    VkPhysicalDeviceVulkan12Features v12 = vk_struct<VkPhysicalDeviceVulkan12Features>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
    VkPhysicalDeviceVulkan11Features v11 = vk_struct<VkPhysicalDeviceVulkan11Features>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
    VkPhysicalDeviceFeatures2 feats =
        vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
    const bool v12_ok = facts.api_version >= VK_API_VERSION_1_2;
    if (v12_ok) {
        feats.pNext = &v11;
        v11.pNext = &v12;
    }
    vkGetPhysicalDeviceFeatures2(physical, &feats);
    // Keep only the storage/arithmetic features kernels may rely on.
    enable_.features.shaderInt64 = feats.features.shaderInt64;
    enable_.features.shaderInt16 = feats.features.shaderInt16;
    enable_.features.shaderFloat64 = feats.features.shaderFloat64;
    if (v12_ok) {
        e11_.storageBuffer16BitAccess = v11.storageBuffer16BitAccess;
        e11_.uniformAndStorageBuffer16BitAccess = v11.uniformAndStorageBuffer16BitAccess;
        e12_.storageBuffer8BitAccess = v12.storageBuffer8BitAccess;
        e12_.uniformAndStorageBuffer8BitAccess = v12.uniformAndStorageBuffer8BitAccess;
        e12_.shaderFloat16 = v12.shaderFloat16;
        e12_.shaderInt8 = v12.shaderInt8;
        e12_.hostQueryReset = v12.hostQueryReset;
        append(&e11_, &e11_.pNext);
        e11_.pNext = &e12_;
        tail_ = &e12_.pNext;
    }
    // A recorded program's extensions and features (replay of its kernels), or a refusal
    // naming what this device lacks.
    const RequiredFeatureStructs needs =
        apply_device_requirements(physical, facts.name, facts.api_version, required, plan.available,
                                  plan.names, enable_.features, e11_, e12_, e13_);
    if ((needs.vulkan11 || needs.vulkan12) && !v12_ok)
        throw std::logic_error("Vulkan 1.2 features required of a Vulkan 1.1 device");
    // Integer dot products (the 8-bit-x mat-vecs), core in Vulkan 1.3.
    if ((facts.integer_dot_product || needs.vulkan13) && plan.synchronization2_core) {
        e13_.shaderIntegerDotProduct = facts.integer_dot_product ? VK_TRUE : VK_FALSE;
        if (plan.synchronization2) e13_.synchronization2 = VK_TRUE;  // one struct: 1.3 forbids both
        append(&e13_, &e13_.pNext);
    }
    if (plan.synchronization2 && !e13_.synchronization2) {
        sync2_.synchronization2 = VK_TRUE;
        append(&sync2_, &sync2_.pNext);
    }
    if (plan.tensor_cores) {  // facts.tensor_cores implies Vulkan 1.2, so e12 is in the chain
        coop_.cooperativeMatrix = VK_TRUE;
        e12_.vulkanMemoryModel = VK_TRUE;
        append(&coop_, &coop_.pNext);
    }
    if (plan.pipeline_statistics) {
        stats_.pipelineExecutableInfo = VK_TRUE;
        append(&stats_, &stats_.pNext);
    }
}

VkDevice create_logical_device(VkPhysicalDevice physical, uint32_t queue_family,
                               const EnabledFeatureChain& features,
                               const std::vector<const char*>& extensions) {
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi =
        vk_struct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
    qi.queueFamilyIndex = queue_family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    VkDeviceCreateInfo di = vk_struct<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
    di.pNext = features.head();
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    di.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    di.ppEnabledExtensionNames = extensions.data();
    VkDevice device = VK_NULL_HANDLE;
    vk_check(vkCreateDevice(physical, &di, nullptr, &device), "vkCreateDevice");
    return device;
}

// Entry points of the extensions the plan enabled; a pair that does not fully load stays off.
void load_device_functions(DeviceFunctions& fn, VkInstance instance, VkDevice device,
                           const ExtensionPlan& plan, bool labels, bool debug_utils) {
    if (plan.push_descriptor)
        fn.push_descriptor_set = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(
            vkGetDeviceProcAddr(device, "vkCmdPushDescriptorSetKHR"));
    if (plan.synchronization2)
        fn.pipeline_barrier2 = reinterpret_cast<PFN_vkCmdPipelineBarrier2KHR>(
            vkGetDeviceProcAddr(device, plan.synchronization2_core ? "vkCmdPipelineBarrier2"
                                                                   : "vkCmdPipelineBarrier2KHR"));
    if (plan.pipeline_statistics) {
        fn.executable_properties = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
            vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR"));
        fn.executable_statistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
            vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR"));
        if (!fn.executable_properties || !fn.executable_statistics)
            fn.executable_properties = nullptr, fn.executable_statistics = nullptr;
    }
    if (labels && debug_utils) {
        fn.begin_label = reinterpret_cast<PFN_vkCmdBeginDebugUtilsLabelEXT>(
            vkGetInstanceProcAddr(instance, "vkCmdBeginDebugUtilsLabelEXT"));
        fn.end_label = reinterpret_cast<PFN_vkCmdEndDebugUtilsLabelEXT>(
            vkGetInstanceProcAddr(instance, "vkCmdEndDebugUtilsLabelEXT"));
        if (!fn.begin_label || !fn.end_label) fn.begin_label = nullptr, fn.end_label = nullptr;
    }
    // Names cost nothing per dispatch, so they are on wherever the extension is, labels or not.
    if (debug_utils)
        fn.set_object_name = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
            vkGetDeviceProcAddr(device, "vkSetDebugUtilsObjectNameEXT"));
}

}  // namespace

std::vector<DeviceFacts> list_devices() {
    VkInstance instance = make_instance(false, false, nullptr);
    std::vector<DeviceFacts> out;
    try {
        auto pds = physical_devices(instance);
        for (uint32_t i = 0; i < pds.size(); ++i) out.push_back(gather_facts(instance, pds[i], i));
    } catch (...) {
        vkDestroyInstance(instance, nullptr);
        throw;
    }
    vkDestroyInstance(instance, nullptr);
    return out;
}

Device::Device() : Device(Options{}) {}

Device::Device(const Options& options) {
    bool validation = options.validation.value_or(env_flag("GRAPHLENS_VALIDATION", false));
    if (validation && !instance_has_layer(kValidationLayer))
        throw std::runtime_error(
            "GRAPHLENS_VALIDATION=1 but the Khronos validation layer is not installed "
            "(Debian: apt-get install vulkan-validationlayers)");
    validation_ = validation;
    std::optional<uint32_t> spin = options.fence_spin_us;
    if (!spin)
        if (const char* v = std::getenv("GRAPHLENS_FENCE_SPIN_US"); v && *v) {
            char* end = nullptr;
            const unsigned long us = std::strtoul(v, &end, 10);
            if (*end != '\0' || us > 10'000'000)
                throw std::runtime_error(fmt::format(
                    "GRAPHLENS_FENCE_SPIN_US='{}': expected microseconds from 0 to 10000000", v));
            spin = static_cast<uint32_t>(us);
        }
    try {
        create_instance(validation);
        pick_and_create_device(options);
    } catch (...) {
        release();
        throw;
    }
    // A GPU's work is waited for by polling long enough to cover a whole prefill step: a
    // blocking wait wakes late by a measurable share of a decode step (docs/architecture.md,
    // "Execution modes"). A CPU device (lavapipe) runs the work on the CPU cores a poll would
    // take from it, so it blocks after a short poll.
    fence_spin_us_ = spin.value_or(facts_.type == DeviceType::cpu ? 2000 : 50000);
}

void Device::create_instance(bool validation) {
    instance_debug_utils_ = instance_has_extension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    VkDebugUtilsMessengerCreateInfoEXT mi = vk_struct<VkDebugUtilsMessengerCreateInfoEXT>(
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = on_validation_message;
    mi.pUserData = this;
    instance_ = make_instance(validation, instance_debug_utils_,
                              validation && instance_debug_utils_ ? &mi : nullptr);
    if (validation && instance_debug_utils_) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
        if (create)
            vk_check(create(instance_, &mi, nullptr, &messenger_),
                     "vkCreateDebugUtilsMessengerEXT");
    }
}

void Device::pick_and_create_device(const Options& options) {
    auto pds = physical_devices(instance_);
    if (pds.empty())
        throw std::runtime_error(
            "Vulkan: no physical device found (install mesa-vulkan-drivers for lavapipe)");
    std::vector<DeviceFacts> facts;
    for (uint32_t i = 0; i < pds.size(); ++i) facts.push_back(gather_facts(instance_, pds[i], i));

    std::string selector = options.selector.value_or("");
    if (selector.empty())
        if (const char* env = std::getenv("GRAPHLENS_DEVICE")) selector = env;
    const uint32_t chosen = choose_device(pds, facts, selector);
    physical_ = pds[chosen];
    facts_ = facts[chosen];
    auto family = compute_family(physical_, nullptr);
    if (!family)
        throw std::runtime_error(fmt::format("device '{}' has no compute queue", facts_.name));
    queue_family_ = *family;

    ExtensionPlan plan = plan_extensions(physical_, facts_, options);
    const EnabledFeatureChain features(physical_, facts_, options.required, plan);
    device_ = create_logical_device(physical_, queue_family_, features, plan.names);
    vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
    tensor_cores_ = plan.tensor_cores;
    if (options.tensor_core_variant) {
        tensor_core_variant_ = *options.tensor_core_variant;
    } else if (const char* v = std::getenv("GRAPHLENS_TC_VARIANT")) {
        tensor_core_variant_ = v;
    }

    const bool labels = options.labels.value_or(env_flag("GRAPHLENS_LABELS", true));
    load_device_functions(fn_, instance_, device_, plan, labels, instance_debug_utils_);
    kernels_ = std::make_unique<KernelRegistry>(*this);
    retired_ = std::make_unique<RetiredWork>(device_);
}

void Device::name_object(VkObjectType type, uint64_t handle, const std::string& name) const {
    if (!fn_.set_object_name || handle == 0) return;
    VkDebugUtilsObjectNameInfoEXT info = vk_struct<VkDebugUtilsObjectNameInfoEXT>(
        VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT);
    info.objectType = type;
    info.objectHandle = handle;
    info.pObjectName = name.c_str();
    fn_.set_object_name(device_, &info);
}

Device::~Device() {
    release();
}

void Device::release() {
    if (device_) vkDeviceWaitIdle(device_);
    if (retired_) retired_->finish();
    retired_.reset();
    kernels_.reset();
    if (device_) vkDestroyDevice(device_, nullptr);
    device_ = VK_NULL_HANDLE;
    if (messenger_) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance_, messenger_, nullptr);
        messenger_ = VK_NULL_HANDLE;
    }
    if (instance_) vkDestroyInstance(instance_, nullptr);
    instance_ = VK_NULL_HANDLE;
}

KernelRegistry& Device::kernels() {
    return *kernels_;
}

void Device::record_validation_message(ValidationMessage m) {
    std::lock_guard lock(messages_mutex_);
    (m.error ? errors_ : warnings_)++;
    if (messages_.size() < 1000) messages_.push_back(std::move(m));
}

size_t Device::validation_errors() const {
    std::lock_guard lock(messages_mutex_);
    return errors_;
}
size_t Device::validation_warnings() const {
    std::lock_guard lock(messages_mutex_);
    return warnings_;
}
std::vector<ValidationMessage> Device::validation_messages() const {
    std::lock_guard lock(messages_mutex_);
    return messages_;
}
void Device::clear_validation_messages() {
    std::lock_guard lock(messages_mutex_);
    messages_.clear();
    errors_ = warnings_ = 0;
}

void Device::submit(VkCommandBuffer cmd, VkFence fence) const {
    VkSubmitInfo si = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    std::lock_guard lock(queue_mutex_);
    vk_check(vkQueueSubmit(queue_, 1, &si, fence), "vkQueueSubmit");
}

void Device::submit_and_wait(VkCommandBuffer cmd) const {
    VkFenceCreateInfo fi = vk_struct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    VkFence fence = VK_NULL_HANDLE;
    vk_check(vkCreateFence(device_, &fi, nullptr, &fence), "vkCreateFence");
    VkResult r = VK_SUCCESS;
    try {
        submit(cmd, fence);
    } catch (...) {
        vkDestroyFence(device_, fence, nullptr);
        throw;
    }
    r = vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX);
    vkDestroyFence(device_, fence, nullptr);
    vk_check(r, "vkQueueSubmit/vkWaitForFences");
}

}  // namespace graphlens
