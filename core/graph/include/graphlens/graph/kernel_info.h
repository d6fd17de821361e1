#pragma once
// What the graph knows of a compute kernel. The per-binding access comes from SPIR-V
// reflection (NonWritable / NonReadable decorations), never from hand annotation.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

struct KernelBinding {
    uint32_t binding = 0;  ///< descriptor binding number (set 0)
    BindingAccess access = BindingAccess::read_write;
    std::string name;  ///< the block's name in the shader, when reflection has one
    friend bool operator==(const KernelBinding&, const KernelBinding&) = default;
};

struct KernelInfo {
    std::string name;
    std::string entry_point = "main";
    std::array<uint32_t, 3> local_size{1, 1, 1};
    uint32_t push_constant_size = 0;
    std::vector<KernelBinding> bindings;  ///< sorted by binding number
    uint64_t spirv_hash = 0;              ///< FNV-1a 64 of the SPIR-V words; 0 if unknown

    const KernelBinding* find_binding(uint32_t binding) const {
        for (const auto& b : bindings)
            if (b.binding == binding) return &b;
        return nullptr;
    }
    friend bool operator==(const KernelInfo&, const KernelInfo&) = default;
};

}  // namespace graphlens
