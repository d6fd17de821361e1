#pragma once
// A node's internal stages as lines of text (graphlens/graph/internal_stages.h), for the CLI
// (`graphlens-cli passes --show-stages N`) and the reports: each stage with its ordering and
// its bytes, then each hazard the arrival counters keep.
#include <string>
#include <vector>

#include "graphlens/graph/internal_stages.h"

namespace graphlens {

/// The lines of one node, unindented:
///   stage 1 'rows of y': first
///     reads  binding 0 w[0, 1024)
///     writes binding 2 y[0, 64)
///   stage 2 'add + norm + q8x': after the last workgroup to arrive at binding 8, counter
///   arrivals[0, 4)
///     reads  binding 2 y[0, 64)
///   RAW stage 1 -> stage 2: y[0, 64)
/// Empty when the node has no stages.
std::vector<std::string> internal_stages_lines(const ComputeGraph& graph,
                                               const NodeInternalStages& stages);

}  // namespace graphlens
