#pragma once
// One stage of the pass pipeline: the graph as that pass left it, its statistics, what the
// pass reported and what changed against the stage before. Plain data: safe to copy across
// threads and to store in capture files.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graphlens/graph/compute_graph.h"

namespace graphlens {

struct ScheduleStats {
    size_t dispatches = 0;
    size_t barriers = 0;
    size_t groups = 0;  ///< concurrency groups: maximal runs of dispatches between barriers
    double mean_group_size = 0.0;
    std::vector<size_t> group_size_histogram;  ///< [k] = number of groups with k dispatches
    size_t dag_depth = 0;                      ///< longest path (in dispatches) of the hazard DAG
    size_t barrier_lower_bound = 0;  ///< fewest barriers any valid order needs (per fenced segment)
    size_t fences = 0;               ///< dispatches nothing may move across
    size_t hazards = 0;
};

/// A fusion the pass applied, or a near miss with the reason it was not applied.
struct FusionDiagnostic {
    std::string pattern;        ///< e.g. "rms_norm→mul"
    std::vector<NodeId> nodes;  ///< ids of the dispatches of the (candidate) chain
    bool applied = false;
    NodeId fused_id = 0;  ///< id of the fused dispatch when applied
    std::string reason;   ///< why not, e.g. "output of blk.4.attn_norm also read by node 212"
};

/// What a stage changed against the stage before it, by NodeId.
struct StageDiff {
    std::vector<NodeId> moved;    ///< dispatches whose relative position changed
    std::vector<NodeId> fused;    ///< new fused dispatches
    std::vector<NodeId> removed;  ///< dispatches absorbed into a fused one
    size_t barriers_added = 0;
    size_t barriers_removed = 0;
};

/// The graph of a stage, immutable once made. Read it like a pointer to a const ComputeGraph
/// (`stage.graph->nodes`, `*stage.graph`) or pass it where a `const ComputeGraph&` is taken;
/// assign a ComputeGraph to replace it.
///
/// A stage that only reorders dispatches and places barriers (reorder, plan, split) does not
/// copy them: it holds its order over the nodes of the graph it started from (one 32-bit node
/// index a node, `kBarrier` for a barrier) and shares that graph. Its ComputeGraph is made from
/// the order the first time it is read (once, safe from several threads) and then kept; copies
/// of a StageGraph, and of its Snapshot, share both the order and the graph made from it.
class StageGraph {
  public:
    /// An entry of order() that stands for a barrier.
    static constexpr uint32_t kBarrier = UINT32_MAX;

    StageGraph();  ///< an empty graph
    StageGraph(ComputeGraph graph);
    explicit StageGraph(std::shared_ptr<const ComputeGraph> graph);
    /// The graph whose nodes are `base->nodes[order[k]]` in that order (kBarrier: a barrier
    /// node) and whose allocations, kernels and metadata are base's.
    StageGraph(std::shared_ptr<const ComputeGraph> base, std::vector<uint32_t> order);

    const ComputeGraph& get() const;
    operator const ComputeGraph&() const { return get(); }
    const ComputeGraph& operator*() const { return get(); }
    const ComputeGraph* operator->() const { return &get(); }

    /// The graph the order refers to; without an order, the graph itself (never null).
    const std::shared_ptr<const ComputeGraph>& base() const { return base_; }
    /// The order over base()'s nodes; nullptr when the stage's graph is base() itself.
    const std::vector<uint32_t>* order() const;

  private:
    struct Ordered;
    std::shared_ptr<const ComputeGraph> base_;
    std::shared_ptr<Ordered> ordered_;  ///< null: the graph is base_ itself
};

struct Snapshot {
    std::string stage;  ///< "captured", "fused", "reordered (greedy)", "reordered (levels)",
                        ///< "barriers planned", "split"
    StageGraph graph;
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
