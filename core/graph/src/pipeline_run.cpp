#include "pipeline_run.h"

#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>

#include "fusion_detail.h"
#include "graphlens/graph/barrier_planner.h"
#include "graphlens/graph/pipeline_stage.h"
#include "graphlens/graph/race_finder.h"
#include "graphlens/graph/reorder_greedy.h"
#include "graphlens/graph/reorder_levels.h"
#include "graphlens/graph/split.h"
#include "graphlens/graph/verifier.h"
#include "stage_order.h"

namespace graphlens::detail {

namespace {

// Kernels the capture layer recorded carry their SPIR-V; GraphLens's own do not (their code is
// in the build), and only those have fusion recipes.
bool recorded_from_another_program(const ComputeGraph& g) {
    return !g.kernels.empty() && std::all_of(g.kernels.begin(), g.kernels.end(), [](const auto& k) {
        return !k.spirv.empty() || k.stage != kStageCompute;
    });
}

// The captured stage's diagnostic when its own barriers leave hazards unordered: its races
// (a recorded program's barriers order only what their scopes cover) or, with full barriers,
// the verifier's account of the same.
std::string incompleteness_of(const ComputeGraph& captured, const HazardIndex& hazards) {
    if (captured.barrier_scopes.empty())
        return fmt::format("the captured schedule is not barrier-complete: {}",
                           verify_transformation(captured, hazards, captured).summary());
    const std::vector<Race> races = find_races(captured, hazards);
    std::string s = fmt::format("the captured schedule has {} race{}", races.size(),
                                races.size() == 1 ? "" : "s");
    constexpr size_t kListed = 5;
    for (size_t k = 0; k < races.size() && k < kListed; ++k) s += "\n  " + races[k].explanation;
    if (races.size() > kListed) s += fmt::format("\n  ... and {} more", races.size() - kListed);
    return s;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

PipelineRun::PipelineRun(std::shared_ptr<const ComputeGraph> capture, const PassOptions& options)
    : options_(options),
      shared_capture_(std::move(capture)),
      captured_(*shared_capture_),
      captured_validator_(captured_),
      captured_hazards_(captured_, &captured_validator_),
      captured_dag_(captured_, captured_hazards_) {
    out_.reserve(5);  // captured, fused, reordered, planned, split
    if (options.verify) {
        captured_tables_.emplace(captured_);
        if (captured_tables_->identity) base_map_ = &*captured_tables_->identity;
    }
}

void PipelineRun::captured() {
    const auto t0 = Clock::now();
    Snapshot s;
    s.stage = pipeline_stage_name(PipelineStage::captured);
    scan_ = scan_stage(captured_, &base_ids_);
    s.stats = stats_of(scan_, dependency_stats(captured_hazards_, captured_dag_));
    s.diagnostics = captured_validator_.take_errors();  // captured.validate()
    captured_valid_ = schedule_is_valid(captured_, captured_hazards_);
    if (!captured_valid_) s.diagnostics.push_back(incompleteness_of(captured_, captured_hazards_));
    s.pass_ms = ms_since(t0);
    s.graph = StageGraph(shared_capture_);
    dependency_part_ = s.stats;
    out_.push_back(std::move(s));
}

void PipelineRun::capture_as_base() {
    base_ = std::move(shared_capture_);
}

void PipelineRun::fused() {
    const auto t0 = Clock::now();
    // Without a copy of the capture when nothing fuses (fusion_detail.h).
    FusionResult fused = detail::fuse(captured_, *stage_hazards_, options_.recipes, false);
    Snapshot s;
    s.stage = pipeline_stage_name(PipelineStage::fused);
    const bool changed = fused.applied != 0;
    if (!changed)
        base_ = std::move(shared_capture_);
    else
        base_ = std::make_shared<const ComputeGraph>(std::move(fused.graph));
    s.graph = StageGraph(base_);
    s.fusions = std::move(fused.diagnostics);
    s.diagnostics.push_back(fmt::format("{} fusion(s) applied, {} near miss(es)", fused.applied,
                                        s.fusions.size() - fused.applied));
    if (recorded_from_another_program(captured_))
        s.diagnostics.push_back(
            "no fusion recipe applies: the kernels were recorded from another program (their "
            "SPIR-V is the program's own, not GraphLens's kernel library)");
    // An unchanged copy walks as the capture did.
    StageScan fused_scan = changed ? scan_stage(*base_, &base_ids_) : scan_;
    if (changed) {
        base_map_ = nullptr;
        if (options_.verify) {
            fused_map_ = map_base(captured_, *base_, *captured_tables_);
            if (fused_map_) base_map_ = &*fused_map_;
        }
        fused_hazards_.emplace(*base_);
        fused_dag_.emplace(*base_, *fused_hazards_);
        stage_hazards_ = &*fused_hazards_;
        stage_dag_ = &*fused_dag_;
        dependency_part_ = dependency_stats(*stage_hazards_, *stage_dag_);
    }
    s.stats = stats_of(fused_scan, dependency_part_);
    dependency_part_ = s.stats;
    // The fused graph's own hazards, when a fusion made the pipeline compute them.
    push_stage(std::move(s), std::move(fused_scan), t0, true, changed ? &*fused_hazards_ : nullptr);
}

void PipelineRun::reordered() {
    const auto t0 = Clock::now();
    StageOrder r = options_.reorder == ReorderMode::greedy
                       ? greedy_order(*base_, *stage_dag_, {options_.window})
                       : levels_order(*base_, *stage_dag_);
    Snapshot s;
    s.stage = pipeline_stage_name(options_.reorder == ReorderMode::levels
                                      ? PipelineStage::reordered_levels
                                      : PipelineStage::reordered_greedy);
    s.graph = StageGraph(base_, std::move(r.order));
    s.diagnostics.push_back(fmt::format("{} dispatch(es) moved", r.moved));
    latest_order_ = *s.graph.order();
    StageScan reordered_scan = scan_dispatch_order(s.graph, base_ids_);
    s.stats = stats_of(reordered_scan, dependency_part_);
    push_stage(std::move(s), std::move(reordered_scan), t0);
}

void PipelineRun::barriers_planned() {
    const auto t0 = Clock::now();
    Snapshot s;
    s.stage = pipeline_stage_name(PipelineStage::barriers_planned);
    // A reorder's order holds dispatches only; without fences the planner need not read the
    // nodes.
    s.graph = StageGraph(base_, planned_order(*base_, latest_order_, *stage_hazards_,
                                              stage_dag_->fence_count() == 0));
    StageScan planned_scan = scan_dispatch_order(s.graph, base_ids_);
    s.stats = stats_of(planned_scan, dependency_part_);
    push_stage(std::move(s), std::move(planned_scan), t0);
}

void PipelineRun::split() {
    const auto t0 = Clock::now();
    Snapshot s;
    s.stage = pipeline_stage_name(PipelineStage::split);
    // The planned stage's graph itself (shared, not copied): so are its walk and stats.
    s.graph = out_.back().graph;
    const SplitPoint p = split_point_of_order(*s.graph.order(), options_.split);
    s.split_first_dispatches = p.first_dispatches;
    s.diagnostics.push_back(
        fmt::format("first command buffer: {} dispatch(es); second starts at node {}",
                    p.first_dispatches, p.second_begin_node));
    StageScan split_scan = scan_;
    s.stats = out_.back().stats;
    // The split only chooses a boundary: the graph is the verified planned one.
    const bool verify_split = false;
    push_stage(std::move(s), std::move(split_scan), t0, verify_split);
}

void PipelineRun::push_stage(Snapshot s, StageScan stage_scan, Clock::time_point t0,
                             bool verify_stage, const HazardIndex* own_hazards) {
    s.diff = diff_scans(scan_, stage_scan);
    scan_ = std::move(stage_scan);
    s.reordered = s.diff.moved.size();
    s.pass_ms = ms_since(t0);
    if (verify_stage) verify(s, own_hazards);
    out_.push_back(std::move(s));
}

void PipelineRun::verify(Snapshot& s, const HazardIndex* own_hazards) const {
    if (!options_.verify) return;
    if (s.stage == pipeline_stage_name(PipelineStage::fused) && !captured_valid_) {
        s.diagnostics.push_back("not verified: the captured schedule itself lacks barriers");
        return;
    }
    // The capture itself (the fused stage when nothing fused), every dispatch standing for
    // itself (the identity map): its verification against the capture can only fail where the
    // capture is not a valid schedule, which schedule_is_valid already answered
    // (ScheduleValidityProperty: the two agree).
    if (s.graph.base().get() == &captured_ && !s.graph.order() && captured_valid_ &&
        captured_tables_->identity)
        return;
    const VerificationReport r = verify_transformation(
        captured_, captured_hazards_, Schedule{*s.graph.base(), s.graph.order()}, own_hazards, {},
        &*captured_tables_, base_map_);
    if (!r.ok())
        throw std::logic_error(
            fmt::format("pass '{}' produced an invalid schedule: {}", s.stage, r.summary()));
}

}  // namespace graphlens::detail
