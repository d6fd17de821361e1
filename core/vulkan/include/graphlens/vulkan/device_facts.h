#pragma once
// What GraphLens needs to know about a Vulkan physical device: identity, timestamp support
// and the extensions the engine uses. Plain data, filled without creating a logical device.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace graphlens {

enum class DeviceType : uint8_t { discrete, integrated, virtual_gpu, cpu, other };

std::string_view device_type_name(DeviceType t);

struct DeviceFacts {
    uint32_t index = 0;  ///< position in vkEnumeratePhysicalDevices order
    std::string name;
    DeviceType type = DeviceType::other;
    uint32_t vendor_id = 0;
    uint32_t device_id = 0;
    std::string driver_name;   ///< VkPhysicalDeviceDriverProperties::driverName
    std::string driver_info;   ///< VkPhysicalDeviceDriverProperties::driverInfo
    uint32_t api_version = 0;  ///< VK_MAKE_API_VERSION encoded
    std::string api_version_string() const;

    // Timestamps: a queue family with timestampValidBits > 0 supports them.
    bool timestamps = false;
    double timestamp_period_ns = 0;  ///< nanoseconds per timestamp tick
    uint32_t timestamp_valid_bits = 0;

    uint32_t subgroup_size = 0;
    uint32_t max_shared_memory = 0;  ///< maxComputeSharedMemorySize, bytes
    uint32_t max_push_constants = 0;
    uint64_t max_storage_buffer_range = 0;  ///< largest bindable view, bytes
    uint64_t max_allocation_size = 0;       ///< largest single allocation, bytes
    uint64_t storage_offset_alignment = 0;  ///< view offsets must be multiples of this
    uint32_t max_workgroup_count[3] = {0, 0, 0};
    uint64_t device_local_bytes = 0;  ///< sum of DEVICE_LOCAL heaps
    /// A memory type is both device-local and host-visible (CPU and integrated devices,
    /// resizable BAR): uploads are plain memcpy without staging.
    bool unified_memory = false;

    // Extensions and features GraphLens uses when present.
    bool push_descriptor = false;        ///< VK_KHR_push_descriptor
    bool synchronization2 = false;       ///< Vulkan 1.3 or VK_KHR_synchronization2 (feature on)
    bool calibrated_timestamps = false;  ///< VK_EXT_calibrated_timestamps
    bool subgroup_size_control = false;
    bool shader_float16 = false;
    bool storage_16bit = false;
    bool storage_8bit = false;
    bool cooperative_matrix = false;     ///< VK_KHR_cooperative_matrix
    bool cooperative_matrix_nv = false;  ///< VK_NV_cooperative_matrix (v1, what glslang 12 targets)
    /// Shapes VK_NV_cooperative_matrix lists (vkGetPhysicalDeviceCooperativeMatrixPropertiesNV),
    /// as "MxNxK A*B+C->D scope", e.g. "16x16x16 f16*f16+f32->f32 subgroup".
    std::vector<std::string> cooperative_matrix_nv_shapes;
    /// What the tensor-core mat-mat (workloads/llm/shaders/templates/matmul_tc.comp) needs:
    /// VK_NV_cooperative_matrix with its feature bit and the 16x16x16 f16*f16+f32->f32 subgroup
    /// shape, the Vulkan memory model, shaderFloat16, subgroups of 32 with clustered operations
    /// (the attention twin) and 48 KiB of shared memory (the two-stage 128 x 128 twin).
    bool tensor_cores = false;
    /// shaderIntegerDotProduct (Vulkan 1.3 core): OpSDot/OpSUDot on packed 4x8-bit integers,
    /// what the 8-bit-x mat-vecs (workloads/llm/shaders/templates/matvec_blocks.comp, X_Q8) use.
    bool integer_dot_product = false;
    /// integerDotProduct4x8BitPackedMixedSignednessAccelerated: the driver maps those dot
    /// products to one instruction (NVIDIA: dp4a). Software devices (lavapipe) emulate them.
    bool integer_dot_product_accelerated = false;
    /// Names of the extensions above that the device exposes (for printing).
    std::vector<std::string> extensions;
};

}  // namespace graphlens
