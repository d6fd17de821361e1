#pragma once
// A device allocation as the graph sees it: id, size, name and what it holds.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "graphlens/graph/byte_range.h"

namespace graphlens {

enum class AllocationUsage : uint8_t { weights, activations, kv_cache, scratch, input, output };

std::string_view allocation_usage_name(AllocationUsage u);
std::optional<AllocationUsage> allocation_usage_from_name(std::string_view name);

struct AllocationInfo {
    AllocationId id = 0;  ///< equals its index in ComputeGraph::allocations
    uint64_t size = 0;    ///< bytes
    std::string name;
    AllocationUsage usage = AllocationUsage::scratch;
    /// A recorded program created a buffer on it with VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT
    /// (a driver may derive addresses of it, e.g. for cooperative-matrix decode callbacks): its
    /// replay's buffer gets that usage and memory allocated with the device-address flag.
    bool device_address = false;
    friend bool operator==(const AllocationInfo&, const AllocationInfo&) = default;
};

}  // namespace graphlens
