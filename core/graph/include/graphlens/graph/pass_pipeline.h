#pragma once
// PassPipeline: captured → fused → reordered (greedy | levels) → barriers planned → split,
// one Snapshot per stage (graph, stats, diagnostics, diff against the stage before, pass time).
//
// Unknown ranges: a dispatch with ranges_known == false is a fence (compute_graph.h). With
// UnknownRanges::as_fence (the default) the reorders keep every such dispatch in place and move
// nothing across it. With UnknownRanges::refuse, run() throws std::invalid_argument naming the
// first such dispatch when a reorder is requested (GraphSession::finish_optimized uses this).
// Every stage is verified against the captured graph when `verify` is on; a failure is a pass
// bug and throws std::logic_error with the verifier's report. Two exceptions, noted in the
// stage's diagnostics where they apply: "fused" keeps the capture's barriers, so it is
// verified only when the capture itself is barrier-complete (schedule_is_valid), and when
// nothing fused it is the capture itself, which that check has then verified; "split" only
// chooses a boundary on the verified "barriers planned" graph.
//
// Snapshot fields: graph (a StageGraph: the stages share their nodes; "captured" is the capture
// (shared, or a copy), "fused" the fusion pass's graph or the captured one when nothing fused, and
// the reordered, planned and split stages are orders over the fused stage's nodes, made into
// graphs when first read; see snapshot.h), stats (ScheduleStats of the stage's own schedule;
// depth, lower bound and hazards of its dispatches), fusions (fused stage: applied and near
// misses), diff against the previous stage, reordered (= diff.moved.size()),
// split_first_dispatches (split stage), pass_ms.
#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/fusion.h"
#include "graphlens/graph/snapshot.h"
#include "graphlens/graph/split.h"

namespace graphlens {

enum class ReorderMode : uint8_t { none, greedy, levels };
enum class UnknownRanges : uint8_t { as_fence, refuse };

struct PassOptions {
    bool fuse = true;
    /// The fusion table (a workload's: the LLM workload's ops::fusion_recipes()); empty: the
    /// fused stage fuses nothing.
    std::vector<FusionRecipe> recipes;
    ReorderMode reorder = ReorderMode::greedy;
    size_t window = 64;  ///< greedy lookahead
    SplitOptions split;
    bool verify = true;
    UnknownRanges unknown_ranges = UnknownRanges::as_fence;
};

std::string_view reorder_mode_name(ReorderMode m);  // "none", "greedy", "levels"
std::optional<ReorderMode> reorder_mode_from_name(std::string_view name);

/// The diff of two stages by NodeId (moved = relative order changed among surviving ids).
StageDiff diff_stages(const ComputeGraph& before, const ComputeGraph& after);

class PassPipeline {
  public:
    /// Snapshots in order: "captured", "fused" (when fuse), "reordered (greedy|levels)" (when
    /// reorder != none), "barriers planned", "split".
    static std::vector<Snapshot> run(const ComputeGraph& captured, const PassOptions& options);
    /// The same over a capture the caller shares: the "captured" stage holds `captured` itself
    /// (and so does "fused" when nothing fused), so the capture is not copied; the run above
    /// copies it once. Throws std::invalid_argument when `captured` is null.
    static std::vector<Snapshot> run(std::shared_ptr<const ComputeGraph> captured,
                                     const PassOptions& options);
};

}  // namespace graphlens
