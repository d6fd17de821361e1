#pragma once
// Dual command buffer split (llama.cpp): the first command buffer gets the first
// max(min_first, fraction * dispatches) dispatches so the GPU starts while the CPU encodes
// the rest. The split never moves or drops nodes; it only chooses the boundary.
#include <cstddef>
#include <optional>

#include "graphlens/graph/compute_graph.h"

namespace graphlens {

struct SplitOptions {
    size_t min_first = 64;
    double first_fraction = 0.1;
    std::optional<size_t> first_dispatches;  ///< explicit count, overrides the two above
};

struct SplitPoint {
    size_t first_dispatches = 0;   ///< dispatches in the first command buffer
    size_t second_begin_node = 0;  ///< node index where the second command buffer starts
};

/// Clamped to the dispatch count. Barriers right after the last dispatch of the first
/// buffer stay in the first buffer.
SplitPoint split_point(const ComputeGraph& graph, const SplitOptions& options = {});

}  // namespace graphlens
