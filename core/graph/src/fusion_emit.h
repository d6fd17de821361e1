#pragma once
// Private to graphlens_graph: the second half of the fusion pass, writing the graph with each
// applied chain replaced by its fused node (fusion_search.h decides the chains).
#include <vector>

#include "fusion_search.h"
#include "graphlens/graph/compute_graph.h"

namespace graphlens::detail {

/// Appends to `out` the nodes of `graph` with the applied fusions in place: the first member of
/// a consecutive chain and the last member of a gap chain become the fused node, the other
/// members disappear. Barriers between a chain's members are dropped; a dropped barrier may
/// also have separated other dispatches of its two groups (interleaved chains: q_norm | q_mul
/// k_norm | k_mul rope_q), so every run of dispatches between kept barriers that lost one is
/// re-planned from its ranges; the rest of the schedule is untouched.
void emit_fused(const ComputeGraph& graph, const DispatchIndex& index,
                std::vector<AppliedFusion>& applied, std::vector<Node>& out);

/// Appends every node of `graph` to `out` as it is.
void copy_nodes(const ComputeGraph& graph, std::vector<Node>& out);

}  // namespace graphlens::detail
