#pragma once
// The embedded kernels (graphlens/vulkan/embedded_kernels.h) with their reflected interface:
// local size, push-constant size and per storage-buffer binding its access, read from the
// SPIR-V NonWritable / NonReadable decorations through spirv-cross. Pure CPU: needs no
// Vulkan device, so graph passes and the capture loader look kernels up here by name.
//
// Tensor-core twins: an embedded module named `<kernel>__tc` (GL_NV_cooperative_matrix) is not
// a kernel of its own but a device-specific implementation of `<kernel>`, which the kernel
// registry swaps in on devices with VK_NV_cooperative_matrix. spirv-cross 2021 cannot parse
// cooperative-matrix types, so the catalog reflects `<kernel>__tc_reflect` instead (the same
// source compiled with -DTC_REFLECT: same declarations, the matrix operations left out) and
// requires its interface (entry point, local size, push-constant size, bindings and their
// access) to equal `<kernel>`'s, so one pipeline layout and one recorded dispatch serve both.
// `<kernel>__tc<tag>` (tag e.g. "_bk64", reflected from `<kernel>__tc<tag>_reflect`) is an
// alternative twin that a Device can ask for by tag (Device::Options::tensor_core_variant), for
// timing alternatives on the device without rebuilding.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graphlens/graph/kernel_info.h"

namespace graphlens {

struct EmbeddedKernel;

/// Suffix of a tensor-core twin's module name, and of its reflection twin after that.
inline constexpr std::string_view kTensorCoreSuffix = "__tc";
inline constexpr std::string_view kTensorCoreReflectSuffix = "_reflect";

/// One tensor-core twin of a kernel.
struct TensorCoreTwin {
    std::string tag;                  ///< "" for the default twin, else e.g. "_bk64"
    std::span<const uint32_t> spirv;  ///< the module the pipeline is built from
    KernelInfo info;  ///< reflected from the reflection twin; named `<kernel>__tc<tag>`
};

/// Reflects one SPIR-V module. Throws std::runtime_error naming the kernel on malformed
/// SPIR-V or on resources GraphLens does not support (descriptor sets other than 0,
/// non-storage-buffer descriptors).
KernelInfo reflect_kernel(std::string_view name, std::span<const uint32_t> spirv);

/// The hash of SPIR-V words KernelInfo::spirv_hash stores (an FNV-1a 64 with GraphLens's offset
/// basis: graphlens/spirv/spirv_hash.h, whose function must give the same value).
uint64_t spirv_hash(std::span<const uint32_t> spirv);

class KernelCatalog {
  public:
    /// The catalog of every embedded kernel, reflected once (thread-safe).
    static const KernelCatalog& embedded();
    /// A catalog of the given modules (embedded() uses embedded_kernels()). Throws
    /// std::runtime_error when a tensor-core twin lacks its kernel or reflection twin, or when
    /// the reflection twin's interface differs from the kernel's.
    static KernelCatalog from_modules(std::span<const EmbeddedKernel> modules);

    /// Null when no kernel has this name.
    const KernelInfo* find(std::string_view name) const;
    /// Throws std::out_of_range "unknown kernel 'x'" when absent.
    const KernelInfo& get(std::string_view name) const;
    std::span<const uint32_t> spirv(std::string_view name) const;
    /// Kernel names, sorted.
    std::vector<std::string> names() const;
    size_t size() const { return entries_.size(); }

    /// `name`'s tensor-core twin of this tag, else its default twin, else null. Its info is
    /// reflected from `<name>__tc<tag>_reflect`, named `<name>__tc<tag>`, with the hash of
    /// the real twin's SPIR-V.
    const TensorCoreTwin* tensor_core_twin(std::string_view name, std::string_view tag = {}) const;
    /// Kernels that have a default tensor-core twin, sorted.
    std::vector<std::string> tensor_core_kernels() const;
    /// Tags of the alternative twins (not ""), sorted, each once.
    std::vector<std::string> tensor_core_tags() const;

  private:
    struct Entry {
        KernelInfo info;
        std::span<const uint32_t> spirv;
        std::vector<TensorCoreTwin> tc;  ///< tensor-core twins, the default ("") first
    };
    const Entry* lookup(std::string_view name) const;
    std::vector<Entry> entries_;  // sorted by name
};

/// Whether a SPIR-V module declares a capability of SPV_KHR_integer_dot_product (the `_xq8`
/// mat-vecs): such a kernel needs DeviceFacts::integer_dot_product, and KernelRegistry refuses
/// it with a clear error on a device without.
bool spirv_uses_integer_dot_product(std::span<const uint32_t> spirv);

}  // namespace graphlens
