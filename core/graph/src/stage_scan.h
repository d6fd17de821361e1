#pragma once
// Private to graphlens_graph: one walk over a stage's dispatches (their ids and group
// statistics), from which the pass pipeline takes both a stage's stats and its diff against
// the stage before.
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/dependency_dag.h"
#include "graphlens/graph/hazard_index.h"
#include "graphlens/graph/schedule_analysis.h"
#include "graphlens/graph/snapshot.h"

namespace graphlens::detail {

/// A stage's dispatch ids in order, and the group part of its ScheduleStats (dispatches,
/// barriers, groups, mean and histogram, as group_stats()).
struct StageScan {
    std::vector<NodeId> ids;
    ScheduleStats groups;
};

/// `id_of_node`, when given, gets [node index] = the id of that dispatch (the same walk), for
/// the scans of the orders over g.
StageScan scan_stage(const ComputeGraph& g, std::vector<NodeId>* id_of_node = nullptr);

/// scan_stage of a stage given as an order over base whose entries are dispatches besides
/// kBarrier (a reorder's or the planner's), without making its graph: from base's dispatch ids
/// by node index (its scan's `id_of_node`), so that the nodes, cold at 100k and visited at
/// random in a levels order, are not read.
StageScan scan_dispatch_order(const StageGraph& stage, const std::vector<NodeId>& id_of_node);

/// The stats of a stage: its own groups, and the dependency part (depth, bound, fences,
/// hazards) of an analysis of the same dispatches.
ScheduleStats stats_of(const StageScan& scan, const ScheduleStats& dependency_part);

ScheduleStats dependency_stats(const HazardIndex& hazards, const DependencyDag& dag);

StageDiff diff_scans(const StageScan& before, const StageScan& after);

}  // namespace graphlens::detail
