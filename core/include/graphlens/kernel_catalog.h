#pragma once
// The embedded kernels (graphlens/embedded_kernels.h) with their reflected interface:
// local size, push-constant size and per storage-buffer binding its access, read from the
// SPIR-V NonWritable / NonReadable decorations through spirv-cross. Pure CPU: needs no
// Vulkan device, so graph passes and the capture loader look kernels up here by name.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graphlens/kernel_info.h"

namespace graphlens {

/// Reflects one SPIR-V module. Throws std::runtime_error naming the kernel on malformed
/// SPIR-V or on resources GraphLens does not support (descriptor sets other than 0,
/// non-storage-buffer descriptors).
KernelInfo reflect_kernel(std::string_view name, std::span<const uint32_t> spirv);

/// FNV-1a 64 of SPIR-V words (KernelInfo::spirv_hash).
uint64_t spirv_hash(std::span<const uint32_t> spirv);

class KernelCatalog {
  public:
    /// The catalog of every embedded kernel, reflected once (thread-safe).
    static const KernelCatalog& embedded();

    /// Null when no kernel has this name.
    const KernelInfo* find(std::string_view name) const;
    /// Throws std::out_of_range "unknown kernel 'x'" when absent.
    const KernelInfo& get(std::string_view name) const;
    std::span<const uint32_t> spirv(std::string_view name) const;
    /// Kernel names, sorted.
    std::vector<std::string> names() const;
    size_t size() const { return entries_.size(); }

  private:
    struct Entry {
        KernelInfo info;
        std::span<const uint32_t> spirv;
    };
    const Entry* lookup(std::string_view name) const;
    std::vector<Entry> entries_;  // sorted by name
};

}  // namespace graphlens
