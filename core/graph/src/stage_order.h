#pragma once
// Private to graphlens_graph: the passes that only reorder dispatches and place barriers, with
// their result as an order over the input graph's node indices (StageGraph::kBarrier for a
// barrier) instead of a graph of copied nodes. The pass pipeline keeps such orders as its
// stages (snapshot.h); the public functions (reorder_greedy, reorder_levels, plan_barriers)
// make their graphs from them.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/dependency_dag.h"
#include "graphlens/graph/hazard_index.h"
#include "graphlens/graph/reorder_greedy.h"
#include "graphlens/graph/snapshot.h"
#include "graphlens/graph/split.h"

namespace graphlens::detail {

struct StageOrder {
    std::vector<uint32_t> order;  ///< node indices of the input; StageGraph::kBarrier: a barrier
    size_t moved = 0;             ///< as ReorderResult::moved
};

StageOrder greedy_order(const ComputeGraph& graph, const DependencyDag& dag,
                        const GreedyReorderOptions& options);
StageOrder levels_order(const ComputeGraph& graph, const DependencyDag& dag);

/// The dispatches of `order` (node indices of graph, its barriers skipped) in that order with
/// planned barriers; an empty order means graph's own node order.
std::vector<uint32_t> planned_order(const ComputeGraph& graph, std::span<const uint32_t> order);
/// The same result from `hazards` (graph's HazardIndex) instead of the nodes' ranges: a
/// dispatch is cut from the current group when a listed hazard into it comes from the group.
/// While the group has no conflict inside, that is exactly when its ranges conflict with the
/// group: a conflicting pair has a chain of listed hazards, and in an order that keeps every
/// listed hazard in order the chain's nodes lie between its ends, so in the group, where a
/// first hazard inside would already have cut it. An order that does not keep them (or takes
/// a node twice) is planned from the ranges. `dispatches_without_fences`: the caller knows that
/// every entry of a non-empty `order` but kBarrier is a dispatch and that graph has no fence
/// (a reorder's order over a graph whose DAG has no fence edge); the nodes are then not read
/// (at 100k nodes they are cold, and a levels order visits them at random).
std::vector<uint32_t> planned_order(const ComputeGraph& graph, std::span<const uint32_t> order,
                                    const HazardIndex& hazards,
                                    bool dispatches_without_fences = false);

/// The graph whose nodes are graph.nodes[order[k]] (kBarrier: a barrier node), with graph's
/// allocations, kernels and metadata.
ComputeGraph graph_of_order(const ComputeGraph& graph, std::span<const uint32_t> order);

/// split_point of a schedule given as an order (barriers are kBarrier, every other entry a
/// dispatch: the orders above).
SplitPoint split_point_of_order(std::span<const uint32_t> order, const SplitOptions& options);

}  // namespace graphlens::detail
