#pragma once
// A memory hazard between two dispatches of one graph. Read-read never conflicts.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "graphlens/graph/byte_range.h"

namespace graphlens {

enum class HazardKind : uint8_t {
    raw,  ///< later reads what earlier wrote
    war,  ///< later writes what earlier read
    waw,  ///< both write
};

std::string_view hazard_kind_name(HazardKind k);  // "RAW", "WAR", "WAW"
std::optional<HazardKind> hazard_kind_from_name(std::string_view name);

/// 32 bytes: node indices below 2^32 (as HazardPair), and the overlap's fields packed after
/// them (a ByteRange member, with its 4 bytes of padding, and the kind's 7 made it 48). An
/// index of a 100k-dispatch graph writes hundreds of thousands of these at every run.
struct Hazard {
    Hazard() = default;
    Hazard(HazardKind k, size_t earlier_node, size_t later_node, const ByteRange& bytes)
        : kind(k),
          earlier(static_cast<uint32_t>(earlier_node)),
          later(static_cast<uint32_t>(later_node)),
          allocation_(bytes.allocation),
          begin_(bytes.begin),
          end_(bytes.end) {}

    HazardKind kind = HazardKind::raw;
    uint32_t earlier = 0;  ///< index into ComputeGraph::nodes
    uint32_t later = 0;    ///< index into ComputeGraph::nodes, later > earlier
    /// The bytes both touch (allocation inside).
    ByteRange overlap() const { return {allocation_, begin_, end_}; }

    friend bool operator==(const Hazard&, const Hazard&) = default;

  private:
    AllocationId allocation_ = 0;
    uint64_t begin_ = 0;
    uint64_t end_ = 0;  ///< exclusive
};
static_assert(sizeof(Hazard) == 32);

/// The two ends of a Hazard in 8 bytes (node indices below 2^32), for walks over many hazards
/// that read only their ends (verification, the DAG): a quarter of the memory to stream.
struct HazardPair {
    uint32_t earlier = 0;
    uint32_t later = 0;
    friend bool operator==(const HazardPair&, const HazardPair&) = default;
};

}  // namespace graphlens
