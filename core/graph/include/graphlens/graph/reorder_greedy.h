#pragma once
// Greedy reorder (llama.cpp's Metal lookahead, as ported by the seed): walk the dispatches in
// order; when the next one conflicts with the current concurrency group, look ahead up to
// `window` dispatches and pull into the current group every later dispatch that conflicts
// neither with the group nor with any dispatch it would skip over; then start a new group.
// A fence (Node::is_fence()) ends the lookahead and is never pulled; nothing moves across it.
// Barrier nodes of the input are stripped first; the output has a barrier exactly at each
// group cut (what plan_barriers would place for that order).
//
// Implementation: "conflicts with neither the group nor a skipped dispatch" is decided on the
// DependencyDag: a dispatch may join the current group exactly when all its DAG predecessors
// sit in closed groups (a conflict with a group member or a skipped dispatch always ends in a
// DAG edge from the current group or from an unplaced dispatch; tests compare this with the
// range-tracking walk of llama.cpp on thousands of random graphs). That makes one lookahead
// step cost the node's in-degree instead of a scan of every range in the window.
#include <cstddef>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/dependency_dag.h"

namespace graphlens {

struct ReorderResult {
    ComputeGraph graph;
    size_t moved = 0;  ///< dispatches at a different position than in the input's dispatch order
};

struct GreedyReorderOptions {
    size_t window = 64;  ///< dispatches looked at after the conflicting one
};

ReorderResult reorder_greedy(const ComputeGraph& graph, const GreedyReorderOptions& options = {});
/// The same with the graph's DependencyDag already built (node indices of `graph`).
ReorderResult reorder_greedy(const ComputeGraph& graph, const DependencyDag& dag,
                             const GreedyReorderOptions& options = {});

}  // namespace graphlens
