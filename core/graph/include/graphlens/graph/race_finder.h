#pragma once
// Races: hazards of a schedule that nothing orders. A hazard between two commands is ordered
// when some barrier between them covers it (a full barrier always does; a recorded program's
// barrier only when its scope does, barrier_scope.h). The hazards checked are the
// HazardIndex's, which follows synchronization validation's rule (the latest conflicting
// access to each byte), so a race here is a hazard the validation layer reports too.
#include <cstddef>
#include <string>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/hazard.h"
#include "graphlens/graph/hazard_index.h"

namespace graphlens {

/// A barrier between a race's two commands and why it does not order them.
struct UncoveringBarrier {
    size_t barrier = 0;  ///< node index
    std::string why;     ///< scope_gap()'s explanation
};

struct Race {
    Hazard hazard;
    size_t hazard_position = 0;  ///< its place in HazardIndex::hazards()
    /// Every barrier between the two commands (none: the program has no barrier there).
    std::vector<UncoveringBarrier> barriers;
    /// One line: "RAW on 'act' bytes 0..4096: 'blk.0.q' (node 3) then 'blk.0.k' (node 5) with
    /// no barrier between" or "... barrier at node 4 does not cover it: <why>".
    std::string explanation;
};

/// The races of `graph` in its own order, sorted as the index lists hazards.
std::vector<Race> find_races(const ComputeGraph& graph, const HazardIndex& hazards);
std::vector<Race> find_races(const ComputeGraph& graph);

/// Whether some barrier between nodes `earlier` and `later` orders `hazard` (the ordering
/// rule find_races and explain_barriers share).
bool hazard_is_ordered(const ComputeGraph& graph, const Hazard& hazard);

}  // namespace graphlens
