#pragma once
// What the DOT and SVG drawings of the dependency graph show: the dispatches a DotOptions
// selects, and the edges between them (one per listed hazard, plus the ordering a fence imposes
// where no byte hazard does).
#include <optional>
#include <vector>

#include "graphlens/capture/dot_export.h"
#include "graphlens/graph/hazard.h"

namespace graphlens {

struct DependencyEdge {
    size_t from = 0, to = 0;       ///< node indices
    std::optional<Hazard> hazard;  ///< none: a fence's ordering
};

/// Per node: whether it is drawn. Throws std::invalid_argument when the selection is empty or
/// larger than options.max_dispatches.
std::vector<bool> select_dispatches(const ComputeGraph& graph, const DotOptions& options);

/// Hazard edges first (in HazardIndex order), then fence edges.
std::vector<DependencyEdge> dependency_edges(const ComputeGraph& graph,
                                             const std::vector<bool>& selected);

}  // namespace graphlens
