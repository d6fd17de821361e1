#pragma once
// Graphviz DOT of a graph's dependencies: one vertex per dispatch (clustered by concurrency
// group), one edge per listed hazard (HazardIndex) coloured by kind (RAW blue, WAR orange,
// WAW vermilion) and labelled with the allocation and byte range, plus dashed grey edges for
// the ordering fences impose. `graphlens-cli dot` is the CLI face; `dot -Tsvg` renders it.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>

#include "graphlens/graph/compute_graph.h"

namespace graphlens {

struct DotOptions {
    std::string title;  ///< graph label, e.g. "capture.json: captured"
    /// Only nodes with index in [first, last] (inclusive) of the graph.
    std::optional<std::pair<size_t, size_t>> node_range;
    /// Only dispatches whose label belongs to layer "blk.<layer>".
    std::optional<size_t> layer;
    bool cluster_groups = true;  ///< draw each concurrency group as a cluster
    /// Refuse to draw more dispatches than this (Graphviz becomes unusable); select a range.
    size_t max_dispatches = 5000;
};

/// Throws std::invalid_argument when the selection is empty or larger than max_dispatches.
std::string dependency_dot(const ComputeGraph& graph, const DotOptions& options = {});

}  // namespace graphlens
