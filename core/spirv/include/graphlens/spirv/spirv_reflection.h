#pragma once
// Reflection of a foreign compute kernel from its SPIR-V words alone (no Vulkan, no
// spirv-cross): per descriptor binding whether the entry point reads, writes or both, the
// resolved local size and the push-constant block size. The Vulkan capture layer records
// other programs' pipelines (SPIR-V, entry point, specialization constants) and feeds them
// here, so the barrier analysis can reason about kernels GraphLens did not write.
//
// Access comes from the NonWritable / NonReadable decorations when they decide it, else from
// the code: pointers are followed from each variable through access chains, copies, selects,
// phis and function calls (into the callee's parameters and back through returned pointers)
// to the loads, stores, atomics and copies that use them. A pointer that reaches an
// instruction the walker does not understand makes the binding read_write: a barrier analysis
// survives an extra hazard, never a missed write.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graphlens/graph/kernel_info.h"
#include "graphlens/spirv/spirv_error.h"

namespace graphlens::spirv {

/// Where a binding's access comes from.
enum class AccessEvidence : uint8_t {
    decoration,       ///< NonWritable / NonReadable on the variable or on every block member
    descriptor_type,  ///< read-only by its kind: uniform buffer, sampled image, sampler
    code,             ///< derived from the instructions of the entry point's call tree
};

enum class DescriptorClass : uint8_t {
    storage_buffer,  ///< StorageBuffer, or Uniform + BufferBlock (SPIR-V 1.0-1.2 style)
    uniform_buffer,
    storage_image,
    sampled_image,  ///< a separate sampled image or a combined image sampler
    sampler,
    other,  ///< texel buffers, acceleration structures, ...
};

/// What the kernel's PhysicalStorageBuffer pointers (buffer device addresses) can reach.
enum class DeviceAddresses : uint8_t {
    none,  ///< its code holds no PhysicalStorageBuffer pointer
    /// Only pointers the driver derives from bound buffers: the parameters of the decode
    /// callbacks of cooperative-matrix tensor loads (SPV_NV_cooperative_matrix2), passed on,
    /// offset or re-typed, only read through; never formed from data. Its bindings' ranges
    /// are all it touches.
    within_bindings,
    /// The code forms an address from data (an integer converted or bitcast to a pointer, a
    /// pointer loaded from memory, a pointer in a push-constant, uniform or storage block),
    /// writes through one, or uses one in a way the analysis does not follow: what it touches
    /// cannot be known from its bindings.
    unknown,
};

struct ReflectedBinding {
    uint32_t set = 0;
    uint32_t binding = 0;
    DescriptorClass descriptor = DescriptorClass::storage_buffer;
    /// A binding the entry point lists but never loads from, stores to or passes anywhere is
    /// `read`: no instruction can write it, and a read still orders it after earlier writers.
    BindingAccess access = BindingAccess::read_write;
    AccessEvidence evidence = AccessEvidence::code;
    uint32_t array_size = 1;  ///< descriptor array length; 0 for a runtime array
    std::string name;         ///< OpName of the variable, else of its block type; may be empty
    friend bool operator==(const ReflectedBinding&, const ReflectedBinding&) = default;
};

/// One VkSpecializationMapEntry: its constantID (the SpecId decoration) and its data bytes
/// (1, 2, 4 or 8, little endian; a bool is a 4-byte VkBool32).
struct SpecializationValue {
    uint32_t id = 0;
    std::vector<uint8_t> bytes;
};

struct ReflectedKernel {
    std::string entry_point;
    /// The WorkgroupSize built-in constant if the module has one, else LocalSizeId, else
    /// LocalSize; specialization constants take the values given, else their defaults.
    std::array<uint32_t, 3> local_size{1, 1, 1};
    /// Some component comes from a specialization constant, so the pipeline's
    /// specialization data can change it.
    bool local_size_specialized = false;
    /// Bytes of the PushConstant block the entry point uses: max(Offset + size) of its members.
    uint32_t push_constant_size = 0;
    /// Sorted by (set, binding); only the variables of the entry point's interface (SPIR-V
    /// 1.4+) or of its call tree (older). Variables aliasing one binding are merged.
    std::vector<ReflectedBinding> bindings;
    /// What its PhysicalStorageBuffer pointers can reach, and why (one sentence naming the
    /// instruction that decided it; empty for `none` without the capability).
    DeviceAddresses device_addresses = DeviceAddresses::none;
    std::string device_address_reason;
};

/// Reflects the GLCompute entry point `entry_point` of a module (either byte order). Throws
/// SpirvError on malformed input, an absent entry point (naming those present), or a
/// specialization constant expression it cannot evaluate where a size depends on it.
ReflectedKernel reflect_compute_kernel(std::span<const uint32_t> words,
                                       std::string_view entry_point,
                                       std::span<const SpecializationValue> specialization = {});

}  // namespace graphlens::spirv
