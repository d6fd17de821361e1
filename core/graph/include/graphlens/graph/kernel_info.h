#pragma once
// What the graph knows of a compute kernel. The per-binding access comes from SPIR-V
// reflection (NonWritable / NonReadable decorations), never from hand annotation.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphlens/graph/kernel_stage.h"

namespace graphlens {

enum class BindingAccess : uint8_t { read, write, read_write };

std::string_view binding_access_name(BindingAccess a);
std::optional<BindingAccess> binding_access_from_name(std::string_view name);
inline bool access_reads(BindingAccess a) {
    return a != BindingAccess::write;
}
inline bool access_writes(BindingAccess a) {
    return a != BindingAccess::read;
}

/// Where a binding's access comes from: the NonWritable / NonReadable decorations, or (a
/// foreign kernel whose buffer has neither) the loads and stores its code makes through it.
enum class AccessEvidence : uint8_t { decoration, code };
std::string_view access_evidence_name(AccessEvidence e);  // "decoration", "code"
std::optional<AccessEvidence> access_evidence_from_name(std::string_view name);

/// What a binding's descriptor is, as far as byte ranges care: buffers have ranges; images,
/// samplers and the rest make a dispatch's ranges unknown.
enum class DescriptorKind : uint8_t { storage_buffer, uniform_buffer, other };
std::string_view descriptor_kind_name(DescriptorKind k);  // "storage_buffer", ...
std::optional<DescriptorKind> descriptor_kind_from_name(std::string_view name);

struct KernelBinding {
    uint32_t binding = 0;  ///< descriptor binding number
    BindingAccess access = BindingAccess::read_write;
    std::string name;  ///< the block's name in the shader, when reflection has one
    uint32_t set = 0;  ///< descriptor set (GraphLens's own kernels use set 0 only)
    AccessEvidence evidence = AccessEvidence::decoration;
    DescriptorKind descriptor = DescriptorKind::storage_buffer;
    friend bool operator==(const KernelBinding&, const KernelBinding&) = default;
};

/// A VkSpecializationMapEntry with its bytes: constant_id and the value the pipeline used.
struct SpecializationConstant {
    uint32_t id = 0;
    std::vector<uint8_t> bytes;
    friend bool operator==(const SpecializationConstant&, const SpecializationConstant&) = default;
};

struct KernelInfo {
    std::string name;
    std::string entry_point = "main";
    std::array<uint32_t, 3> local_size{1, 1, 1};
    uint32_t push_constant_size = 0;
    std::vector<KernelBinding> bindings;  ///< sorted by (set, binding)
    uint64_t spirv_hash = 0;  ///< graphlens::spirv::spirv_hash of the SPIR-V words; 0 if unknown
    /// The stage its commands run in (graphlens/graph/barrier_scope.h's SyncStage):
    /// kStageCompute for kernels, kStageTransfer for the copy / fill / update commands a
    /// recorded program issues (pseudo-kernels without code whose nodes state their ranges).
    uint8_t stage = 1;
    /// A foreign kernel's code and pipeline, as recorded (empty for GraphLens's own kernels,
    /// whose code is in the build): replay compiles them, analysis reads the reflection above.
    std::vector<uint32_t> spirv;
    std::vector<SpecializationConstant> specialization;
    uint32_t required_subgroup_size = 0;  ///< 0 = none required
    uint32_t pipeline_flags = 0;          ///< VkPipelineCreateFlags as recorded
    /// The dependent stages inside one dispatch, in order, ordered by arrival counters
    /// (graphlens/graph/kernel_stage.h); empty for a kernel of one stage. Declared by the
    /// workload that knows the kernel's code, checked against the reflected bindings.
    std::vector<KernelStage> stages;

    const KernelBinding* find_binding(uint32_t binding) const { return find_binding(0, binding); }
    const KernelBinding* find_binding(uint32_t set, uint32_t binding) const {
        for (const auto& b : bindings)
            if (b.set == set && b.binding == binding) return &b;
        return nullptr;
    }
    friend bool operator==(const KernelInfo&, const KernelInfo&) = default;
};

}  // namespace graphlens
