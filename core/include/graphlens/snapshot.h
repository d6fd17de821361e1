#pragma once
// One stage of the pass pipeline: the graph as that pass left it, its statistics, what the
// pass reported and what changed against the stage before. Plain data: safe to copy across
// threads and to store in capture files.
#include <cstddef>
#include <string>
#include <vector>

#include "graphlens/compute_graph.h"

namespace graphlens {

struct ScheduleStats {
    size_t dispatches = 0;
    size_t barriers = 0;
    size_t groups = 0;  ///< concurrency groups: maximal runs of dispatches between barriers
    double mean_group_size = 0.0;
    std::vector<size_t> group_size_histogram;  ///< [k] = number of groups with k dispatches
    size_t dag_depth = 0;            ///< longest path (in dispatches) of the hazard DAG
    size_t barrier_lower_bound = 0;  ///< fewest barriers any valid order needs (per fenced segment)
    size_t fences = 0;               ///< dispatches nothing may move across
    size_t hazards = 0;
};

/// A fusion the pass applied, or a near miss with the reason it was not applied.
struct FusionDiagnostic {
    std::string pattern;           ///< e.g. "rms_norm→mul"
    std::vector<NodeId> nodes;     ///< ids of the dispatches of the (candidate) chain
    bool applied = false;
    NodeId fused_id = 0;           ///< id of the fused dispatch when applied
    std::string reason;            ///< why not, e.g. "output of blk.4.attn_norm also read by node 212"
};

/// What a stage changed against the stage before it, by NodeId.
struct StageDiff {
    std::vector<NodeId> moved;     ///< dispatches whose relative position changed
    std::vector<NodeId> fused;     ///< new fused dispatches
    std::vector<NodeId> removed;   ///< dispatches absorbed into a fused one
    size_t barriers_added = 0;
    size_t barriers_removed = 0;
};

struct Snapshot {
    std::string stage;  ///< "captured", "fused", "reordered (greedy)", "reordered (levels)", "barriers planned", "split"
    ComputeGraph graph;
    ScheduleStats stats;
    StageDiff diff;
    std::vector<FusionDiagnostic> fusions;
    std::vector<std::string> diagnostics;  ///< human-readable notes of the pass
    size_t reordered = 0;                  ///< dispatches at a different position than before
    /// Only for the split stage: number of dispatches in the first command buffer.
    size_t split_first_dispatches = 0;
    double pass_ms = 0.0;  ///< CPU time the pass took
};

}  // namespace graphlens
