#pragma once
// Levels reorder: schedule the dispatches by their ASAP level in the DependencyDag, stable
// (original order) within a level, with one barrier between consecutive levels. That is
// depth - 1 barriers, the lower bound for the graph; fences are their own level, so with
// fences the bound holds per fenced segment. Barrier nodes of the input are stripped first.
#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/dependency_dag.h"
#include "graphlens/graph/reorder_greedy.h"  // ReorderResult

namespace graphlens {

ReorderResult reorder_levels(const ComputeGraph& graph);
/// The same with the graph's DependencyDag already built (node indices of `graph`).
ReorderResult reorder_levels(const ComputeGraph& graph, const DependencyDag& dag);

}  // namespace graphlens
