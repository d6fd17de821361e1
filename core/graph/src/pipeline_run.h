#pragma once
// Private to graphlens_graph: one run of the pass pipeline over a capture, stage by stage
// (PassPipeline::run calls them in order), each pushed as a Snapshot.
//
// The stages share their nodes: "captured" holds the shared capture, "fused" the fusion pass's
// graph (or the capture when nothing fused: the pass then makes no copy), and the reordered,
// planned and split stages are orders over the nodes of the fused stage's graph, `base`
// (snapshot.h). The dependency analysis of base is computed once and reused by the reorders
// and the planner; only an applied fusion changes it.
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "graph_validator.h"
#include "graphlens/graph/dependency_dag.h"
#include "graphlens/graph/hazard_index.h"
#include "graphlens/graph/pass_pipeline.h"
#include "stage_scan.h"
#include "verifier_detail.h"

namespace graphlens::detail {

class PipelineRun {
  public:
    PipelineRun(std::shared_ptr<const ComputeGraph> capture, const PassOptions& options);

    /// The capture as it came: its stats, validation and whether its barriers order every
    /// hazard (the captured stage's diagnostics say which do not).
    void captured();
    /// The fusion pass: base becomes its graph, or the capture itself when nothing fused.
    void fused();
    /// Without fusion the capture is base.
    void capture_as_base();
    /// The reorder of the options (greedy or levels), as an order over base.
    void reordered();
    /// Barriers only where a hazard of the latest order needs one.
    void barriers_planned();
    /// The planned stage with the boundary between its two command buffers.
    void split();

    std::vector<Snapshot> take_snapshots() { return std::move(out_); }

  private:
    using Clock = std::chrono::steady_clock;

    /// Verifies the stage against the capture (throws when a pass lost a hazard);
    /// `own_hazards` is the stage's hazard analysis when the pipeline already has it.
    void verify(Snapshot& s, const HazardIndex* own_hazards) const;
    /// Pushes the stage with its diff against the previous one; `stage_scan` is its walk.
    void push_stage(Snapshot s, StageScan stage_scan, Clock::time_point t0,
                    bool verify_stage = true, const HazardIndex* own_hazards = nullptr);

    const PassOptions& options_;
    std::shared_ptr<const ComputeGraph> shared_capture_;
    const ComputeGraph& captured_;
    std::vector<Snapshot> out_;
    std::shared_ptr<const ComputeGraph> base_;
    // The index's walk also makes captured.validate()'s checks (graph_validator.h).
    GraphValidator captured_validator_;
    const HazardIndex captured_hazards_;
    const DependencyDag captured_dag_;
    // The dependency analysis of base's dispatches, by its node indices.
    const HazardIndex* stage_hazards_ = &captured_hazards_;
    const DependencyDag* stage_dag_ = &captured_dag_;
    std::optional<HazardIndex> fused_hazards_;
    std::optional<DependencyDag> fused_dag_;
    ScheduleStats dependency_part_;
    // The captured side of every verification, read from its nodes once; and how base's nodes
    // stand for the captured dispatches (the capture itself: each for itself), so that the
    // stages that are orders over base are checked without reading their nodes.
    std::optional<OriginalTables> captured_tables_;
    std::optional<BaseMap> fused_map_;
    const BaseMap* base_map_ = nullptr;
    // A capture without barriers (a foreign one, a synthetic one) is not a valid schedule; the
    // fused stage keeps its barriers, so it is verified only when the capture is valid.
    bool captured_valid_ = true;
    StageScan scan_;  ///< of the latest stage pushed
    // [node index of base] = the id of that dispatch: from the captured stage's walk, and the
    // fused stage's when a fusion made base a graph of its own.
    std::vector<NodeId> base_ids_;
    // The order of the latest stage over base's nodes; empty: base's own order.
    std::span<const uint32_t> latest_order_;
};

}  // namespace graphlens::detail
