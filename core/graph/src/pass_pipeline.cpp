#include "graphlens/graph/pass_pipeline.h"
#include "graphlens/graph/pipeline_stage.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>

#include "fusion_detail.h"
#include "graph_validator.h"
#include "graphlens/graph/barrier_planner.h"
#include "graphlens/graph/dependency_dag.h"
#include "graphlens/graph/hazard_index.h"
#include "graphlens/graph/race_finder.h"
#include "graphlens/graph/reorder_greedy.h"
#include "graphlens/graph/reorder_levels.h"
#include "graphlens/graph/schedule_analysis.h"
#include "graphlens/graph/verifier.h"
#include "stage_order.h"
#include "verifier_detail.h"

namespace graphlens {

std::string_view reorder_mode_name(ReorderMode m) {
    switch (m) {
        case ReorderMode::none:
            return "none";
        case ReorderMode::greedy:
            return "greedy";
        case ReorderMode::levels:
            return "levels";
    }
    return "none";
}

std::optional<ReorderMode> reorder_mode_from_name(std::string_view name) {
    for (ReorderMode m : {ReorderMode::none, ReorderMode::greedy, ReorderMode::levels})
        if (reorder_mode_name(m) == name) return m;
    return std::nullopt;
}

namespace {

/// One walk over a stage's nodes: its dispatch ids in order, and the group part of its
/// ScheduleStats (dispatches, barriers, groups, mean and histogram, as group_stats()).
/// The diff against the next stage and the stage's stats both come from it.
struct StageScan {
    std::vector<NodeId> ids;
    ScheduleStats groups;
};

/// `id_of_node`, when given, gets [node index] = the id of that dispatch (the same walk), for
/// the scans of the orders over g.
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

StageScan scan_stage(const ComputeGraph& g, std::vector<NodeId>* id_of_node = nullptr) {
    StageScan scan;
    scan.ids.reserve(g.nodes.size());
    if (id_of_node) id_of_node->assign(g.nodes.size(), 0);
    scan.groups = group_stats(g, [&](const Node& n) {
        scan.ids.push_back(n.id);
        if (id_of_node) (*id_of_node)[static_cast<size_t>(&n - g.nodes.data())] = n.id;
    });
    return scan;
}

/// scan_stage of a stage given as an order over base whose entries are dispatches besides
/// kBarrier (a reorder's or the planner's), without making its graph: from base's dispatch ids
/// by node index (its scan's `id_of_node`), so that the nodes, cold at 100k and visited at
/// random in a levels order, are not read.
StageScan scan_dispatch_order(const StageGraph& stage, const std::vector<NodeId>& id_of_node) {
    const std::vector<uint32_t>* order = stage.order();
    if (!order) return scan_stage(*stage.base());
    StageScan scan;
    scan.ids.reserve(order->size());
    GroupCounter groups;
    for (const uint32_t i : *order) {
        if (i == StageGraph::kBarrier) {
            groups.barrier();
        } else {
            scan.ids.push_back(id_of_node[i]);
            groups.dispatch();
        }
    }
    scan.groups = groups.finish();
    return scan;
}

/// The stats of a stage: its own groups, and the dependency part (depth, bound, fences,
/// hazards) of an analysis of the same dispatches.
ScheduleStats stats_of(const StageScan& scan, const ScheduleStats& dependency_part) {
    ScheduleStats s = dependency_part;
    s.dispatches = scan.groups.dispatches;
    s.barriers = scan.groups.barriers;
    s.groups = scan.groups.groups;
    s.mean_group_size = scan.groups.mean_group_size;
    s.group_size_histogram = scan.groups.group_size_histogram;
    return s;
}

ScheduleStats dependency_stats(const HazardIndex& hazards, const DependencyDag& dag) {
    ScheduleStats s;
    s.dag_depth = dag.depth();
    s.barrier_lower_bound = dag.barrier_lower_bound();
    s.fences = dag.fence_count();
    s.hazards = hazards.size();
    return s;
}

StageDiff diff_scans(const StageScan& before, const StageScan& after) {
    StageDiff d;
    const std::vector<NodeId>& ids_before = before.ids;
    const std::vector<NodeId>& ids_after = after.ids;
    const size_t b0 = before.groups.barriers, b1 = after.groups.barriers;
    d.barriers_added = b1 > b0 ? b1 - b0 : 0;
    d.barriers_removed = b0 > b1 ? b0 - b1 : 0;
    // The same dispatches in the same order (a fused stage where nothing fused, the split
    // stage): nothing fused, removed or moved, found by one comparison instead of the tables.
    if (ids_before == ids_after) return d;
    // Only dispatch ids are compared (not origins), so the largest id bounds the tables.
    NodeId ids = 0;
    for (const std::vector<NodeId>* list : {&ids_before, &ids_after})
        for (NodeId id : *list) ids = std::max<NodeId>(ids, id + 1);
    std::vector<char> in_before(ids, 0), in_after(ids, 0);
    for (NodeId id : ids_before) in_before[id] = 1;
    for (NodeId id : ids_after) in_after[id] = 1;
    for (NodeId id : ids_after)
        if (!in_before[id]) d.fused.push_back(id);
    for (NodeId id : ids_before)
        if (!in_after[id]) d.removed.push_back(id);
    // Moved: surviving dispatches whose rank among the survivors changed.
    size_t i = 0, j = 0;
    while (true) {
        while (i < ids_before.size() && !in_after[ids_before[i]]) ++i;
        while (j < ids_after.size() && !in_before[ids_after[j]]) ++j;
        if (i == ids_before.size() || j == ids_after.size()) break;
        if (ids_after[j] != ids_before[i]) d.moved.push_back(ids_after[j]);
        ++i;
        ++j;
    }
    return d;
}

}  // namespace

StageDiff diff_stages(const ComputeGraph& before, const ComputeGraph& after) {
    return diff_scans(scan_stage(before), scan_stage(after));
}

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

namespace {

/// Refuses a reorder of dispatches with unknown ranges when the options say so.
void check_unknown_ranges(const ComputeGraph& captured, const PassOptions& options) {
    if (options.reorder != ReorderMode::none && options.unknown_ranges == UnknownRanges::refuse) {
        for (size_t i = 0; i < captured.nodes.size(); ++i) {
            const Node& n = captured.nodes[i];
            if (n.is_dispatch() && !n.ranges_known)
                throw std::invalid_argument(fmt::format(
                    "cannot reorder: node {} '{}' (id {}) has unknown ranges; capture its ranges "
                    "or run with reorder none",
                    i, n.label, n.id));
        }
    }
}

}  // namespace

std::vector<Snapshot> PassPipeline::run(const ComputeGraph& captured, const PassOptions& options) {
    check_unknown_ranges(captured, options);
    // The stages keep a copy of the capture: the one copy the pipeline makes.
    return run(std::make_shared<const ComputeGraph>(captured), options);
}

std::vector<Snapshot> PassPipeline::run(std::shared_ptr<const ComputeGraph> shared_capture,
                                        const PassOptions& options) {
    if (!shared_capture) throw std::invalid_argument("PassPipeline::run: no captured graph");
    const ComputeGraph& captured = *shared_capture;
    check_unknown_ranges(captured, options);
    std::vector<Snapshot> out;
    out.reserve(5);  // captured, fused, reordered, planned, split
    // The stages share their nodes: "captured" holds the shared capture, "fused" the fusion
    // pass's graph (or the capture when nothing fused: the pass then makes no copy), and the
    // reordered, planned and split stages are orders over the nodes of the fused stage's graph
    // (snapshot.h). `base` is set with the captured stage's graph after the fusion pass.
    std::shared_ptr<const ComputeGraph> base;
    // The index's walk also makes captured.validate()'s checks (graph_validator.h).
    detail::GraphValidator captured_validator(captured);
    const HazardIndex captured_hazards(captured, &captured_validator);
    const DependencyDag captured_dag(captured, captured_hazards);
    // The dependency analysis of base's dispatches, by its node indices: reused by the
    // reorders; only an applied fusion changes it.
    const HazardIndex* stage_hazards = &captured_hazards;
    const DependencyDag* stage_dag = &captured_dag;
    std::optional<HazardIndex> fused_hazards;
    std::optional<DependencyDag> fused_dag;

    // The captured side of every verification, read from its nodes once; and how base's nodes
    // stand for the captured dispatches (the capture itself: each for itself), so that
    // the stages that are orders over base are checked without reading their nodes.
    std::optional<detail::OriginalTables> captured_tables;
    std::optional<detail::BaseMap> fused_map;
    const detail::BaseMap* base_map = nullptr;
    if (options.verify) {
        captured_tables.emplace(captured);
        if (captured_tables->identity) base_map = &*captured_tables->identity;
    }

    // A capture without barriers (a foreign one, a synthetic one) is not a valid schedule;
    // the fused stage keeps its barriers, so it is verified only when the capture is valid.
    bool captured_valid = true;
    // The hazard analysis of the stage being verified when the pipeline already has it.
    auto verify = [&](Snapshot& s, const HazardIndex* own_hazards) {
        if (!options.verify) return;
        if (s.stage == pipeline_stage_name(PipelineStage::fused) && !captured_valid) {
            s.diagnostics.push_back("not verified: the captured schedule itself lacks barriers");
            return;
        }
        // The capture itself (the fused stage when nothing fused), every dispatch standing for
        // itself (the identity map): its verification against the capture can only fail where
        // the capture is not a valid schedule, which schedule_is_valid already answered
        // (ScheduleValidityProperty: the two agree).
        if (s.graph.base().get() == &captured && !s.graph.order() && captured_valid &&
            captured_tables->identity)
            return;
        const VerificationReport r = detail::verify_transformation(
            captured, captured_hazards, detail::Schedule{*s.graph.base(), s.graph.order()},
            own_hazards, {}, &*captured_tables, base_map);
        if (!r.ok())
            throw std::logic_error(
                fmt::format("pass '{}' produced an invalid schedule: {}", s.stage, r.summary()));
    };

    StageScan scan;  // of the latest stage pushed
    // [node index of base] = the id of that dispatch: from the captured stage's walk, and the
    // fused stage's when a fusion made base a graph of its own.
    std::vector<NodeId> base_ids;
    {
        const auto t0 = Clock::now();
        Snapshot s;
        s.stage = pipeline_stage_name(PipelineStage::captured);
        scan = scan_stage(captured, &base_ids);
        s.stats = stats_of(scan, dependency_stats(captured_hazards, captured_dag));
        s.diagnostics = captured_validator.take_errors();  // captured.validate()
        captured_valid = schedule_is_valid(captured, captured_hazards);
        if (!captured_valid) s.diagnostics.push_back(incompleteness_of(captured, captured_hazards));
        s.pass_ms = ms_since(t0);
        out.push_back(std::move(s));
    }
    // The stage's walk (scan_stage) is done by the caller, which needs it for the stats first.
    auto push_stage = [&](Snapshot s, StageScan stage_scan, Clock::time_point t0,
                          bool verify_stage = true, const HazardIndex* own_hazards = nullptr) {
        s.diff = diff_scans(scan, stage_scan);
        scan = std::move(stage_scan);
        s.reordered = s.diff.moved.size();
        s.pass_ms = ms_since(t0);
        if (verify_stage) verify(s, own_hazards);
        out.push_back(std::move(s));
    };

    ScheduleStats dependency_part = out.back().stats;
    out.front().graph = StageGraph(shared_capture);
    if (!options.fuse) {
        base = std::move(shared_capture);
    } else {
        const auto t0 = Clock::now();
        // Without a copy of the capture when nothing fuses (fusion_detail.h).
        FusionResult fused = detail::fuse(captured, *stage_hazards, options.recipes, false);
        Snapshot s;
        s.stage = pipeline_stage_name(PipelineStage::fused);
        // A graph of its own when something fused; otherwise the capture itself.
        const bool changed = fused.applied != 0;
        if (!changed)
            base = std::move(shared_capture);
        else
            base = std::make_shared<const ComputeGraph>(std::move(fused.graph));
        s.graph = StageGraph(base);
        s.fusions = std::move(fused.diagnostics);
        s.diagnostics.push_back(fmt::format("{} fusion(s) applied, {} near miss(es)", fused.applied,
                                            s.fusions.size() - fused.applied));
        if (recorded_from_another_program(captured))
            s.diagnostics.push_back(
                "no fusion recipe applies: the kernels were recorded from another program "
                "(their SPIR-V is the program's own, not GraphLens's kernel library)");
        // An unchanged copy walks as the capture did.
        StageScan fused_scan = changed ? scan_stage(*base, &base_ids) : scan;
        if (changed) {
            base_map = nullptr;
            if (options.verify) {
                fused_map = detail::map_base(captured, *base, *captured_tables);
                if (fused_map) base_map = &*fused_map;
            }
            fused_hazards.emplace(*base);
            fused_dag.emplace(*base, *fused_hazards);
            stage_hazards = &*fused_hazards;
            stage_dag = &*fused_dag;
            dependency_part = dependency_stats(*stage_hazards, *stage_dag);
        }
        s.stats = stats_of(fused_scan, dependency_part);
        dependency_part = s.stats;
        // The fused graph's own hazards, when a fusion made the pipeline compute them.
        push_stage(std::move(s), std::move(fused_scan), t0, true,
                   changed ? &*fused_hazards : nullptr);
    }
    // The order of the latest stage over base's nodes; empty: base's own order.
    std::span<const uint32_t> latest_order;
    if (options.reorder != ReorderMode::none) {
        const auto t0 = Clock::now();
        detail::StageOrder r = options.reorder == ReorderMode::greedy
                                   ? detail::greedy_order(*base, *stage_dag, {options.window})
                                   : detail::levels_order(*base, *stage_dag);
        Snapshot s;
        s.stage = pipeline_stage_name(options.reorder == ReorderMode::levels
                                          ? PipelineStage::reordered_levels
                                          : PipelineStage::reordered_greedy);
        s.graph = StageGraph(base, std::move(r.order));
        s.diagnostics.push_back(fmt::format("{} dispatch(es) moved", r.moved));
        latest_order = *s.graph.order();
        StageScan reordered_scan = scan_dispatch_order(s.graph, base_ids);
        s.stats = stats_of(reordered_scan, dependency_part);
        push_stage(std::move(s), std::move(reordered_scan), t0);
    }
    {
        const auto t0 = Clock::now();
        Snapshot s;
        s.stage = pipeline_stage_name(PipelineStage::barriers_planned);
        // A reorder's order holds dispatches only; without fences the planner need not read
        // the nodes.
        s.graph = StageGraph(base, detail::planned_order(*base, latest_order, *stage_hazards,
                                                         stage_dag->fence_count() == 0));
        StageScan planned_scan = scan_dispatch_order(s.graph, base_ids);
        s.stats = stats_of(planned_scan, dependency_part);
        push_stage(std::move(s), std::move(planned_scan), t0);
    }
    {
        const auto t0 = Clock::now();
        Snapshot s;
        s.stage = pipeline_stage_name(PipelineStage::split);
        // The planned stage's graph itself (shared, not copied).
        s.graph = out.back().graph;
        const SplitPoint p = detail::split_point_of_order(*s.graph.order(), options.split);
        s.split_first_dispatches = p.first_dispatches;
        s.diagnostics.push_back(
            fmt::format("first command buffer: {} dispatch(es); second starts at node {}",
                        p.first_dispatches, p.second_begin_node));
        // The graph is the planned one: so are its walk and stats.
        StageScan split_scan = scan;
        s.stats = out.back().stats;
        // The split only chooses a boundary: the graph is the verified planned one.
        const bool verify_split = false;
        push_stage(std::move(s), std::move(split_scan), t0, verify_split);
    }
    return out;
}

}  // namespace graphlens
