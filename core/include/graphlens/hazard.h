#pragma once
// A memory hazard between two dispatches of one graph. Read-read never conflicts.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "graphlens/byte_range.h"

namespace graphlens {

enum class HazardKind : uint8_t {
    raw,  ///< later reads what earlier wrote
    war,  ///< later writes what earlier read
    waw,  ///< both write
};

std::string_view hazard_kind_name(HazardKind k);  // "RAW", "WAR", "WAW"
std::optional<HazardKind> hazard_kind_from_name(std::string_view name);

struct Hazard {
    HazardKind kind = HazardKind::raw;
    size_t earlier = 0;  ///< index into ComputeGraph::nodes
    size_t later = 0;    ///< index into ComputeGraph::nodes, later > earlier
    ByteRange overlap;   ///< the bytes both touch (allocation inside)
    friend bool operator==(const Hazard&, const Hazard&) = default;
};

/// The two ends of a Hazard in 8 bytes (node indices below 2^32), for walks over many hazards
/// that read only their ends (verification, the DAG): a sixth of the memory to stream.
struct HazardPair {
    uint32_t earlier = 0;
    uint32_t later = 0;
    friend bool operator==(const HazardPair&, const HazardPair&) = default;
};

}  // namespace graphlens
