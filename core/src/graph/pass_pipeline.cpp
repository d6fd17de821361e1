#include "graphlens/pass_pipeline.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "graphlens/barrier_planner.h"
#include "graphlens/dependency_dag.h"
#include "graphlens/hazard_index.h"
#include "graphlens/reorder_greedy.h"
#include "graphlens/reorder_levels.h"
#include "graphlens/schedule_analysis.h"
#include "graphlens/verifier.h"
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

StageDiff diff_stages(const ComputeGraph& before, const ComputeGraph& after) {
    StageDiff d;
    // One pass over each graph's nodes: its dispatch ids in order and its barrier count; the
    // rest works on those compact lists. Only dispatch ids are compared (not origins), so the
    // largest id bounds the tables.
    auto dispatch_ids = [](const ComputeGraph& g, std::vector<NodeId>& ids, size_t& barriers) {
        ids.reserve(g.nodes.size());
        for (const Node& n : g.nodes) {
            if (n.is_dispatch())
                ids.push_back(n.id);
            else
                ++barriers;
        }
    };
    std::vector<NodeId> ids_before, ids_after;
    size_t b0 = 0, b1 = 0;
    dispatch_ids(before, ids_before, b0);
    dispatch_ids(after, ids_after, b1);
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
    d.barriers_added = b1 > b0 ? b1 - b0 : 0;
    d.barriers_removed = b0 > b1 ? b0 - b1 : 0;
    return d;
}

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// Stats whose dependency part (depth, bound, hazards) comes from an analysis of the same
/// dispatches; reorders and planning keep the dispatches, so one analysis serves them all.
ScheduleStats stats_with(const ComputeGraph& graph, const ScheduleStats& dependency_part) {
    ScheduleStats s = dependency_part;
    const ScheduleStats own = group_stats(graph);
    s.dispatches = own.dispatches;
    s.barriers = own.barriers;
    s.groups = own.groups;
    s.mean_group_size = own.mean_group_size;
    s.group_size_histogram = own.group_size_histogram;
    return s;
}

}  // namespace

std::vector<Snapshot> PassPipeline::run(const ComputeGraph& captured, const PassOptions& options) {
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
    std::vector<Snapshot> out;
    out.reserve(5);  // captured, fused, reordered, planned, split
    const HazardIndex captured_hazards(captured);
    const DependencyDag captured_dag(captured, captured_hazards);
    // The dependency analysis of the latest stage's dispatches, by its node indices: reused by
    // the reorders; only an applied fusion changes it.
    const HazardIndex* stage_hazards = &captured_hazards;
    const DependencyDag* stage_dag = &captured_dag;
    std::optional<HazardIndex> fused_hazards;
    std::optional<DependencyDag> fused_dag;

    // The captured side of every verification, read from its nodes once.
    std::optional<detail::OriginalTables> captured_tables;
    if (options.verify) captured_tables.emplace(captured);

    // A capture without barriers (a foreign one, a synthetic one) is not a valid schedule;
    // the fused stage keeps its barriers, so it is verified only when the capture is valid.
    bool captured_valid = true;
    // The hazard analysis of the stage being verified when the pipeline already has it.
    auto verify = [&](Snapshot& s, const HazardIndex* own_hazards) {
        if (!options.verify) return;
        if (s.stage == "fused" && !captured_valid) {
            s.diagnostics.push_back("not verified: the captured schedule itself lacks barriers");
            return;
        }
        const VerificationReport r = detail::verify_transformation(
            captured, captured_hazards, s.graph, own_hazards, {}, &*captured_tables);
        if (!r.ok())
            throw std::logic_error(
                fmt::format("pass '{}' produced an invalid schedule: {}", s.stage, r.summary()));
    };

    {
        const auto t0 = Clock::now();
        Snapshot s;
        s.stage = "captured";
        s.graph = captured;
        s.stats = schedule_stats(captured, captured_hazards, captured_dag);
        s.diagnostics = captured.validate();
        captured_valid = schedule_is_valid(captured, captured_hazards);
        if (!captured_valid)
            s.diagnostics.push_back(
                fmt::format("the captured schedule is not barrier-complete: {}",
                            verify_transformation(captured, captured_hazards, captured).summary()));
        s.pass_ms = ms_since(t0);
        out.push_back(std::move(s));
    }
    auto push_stage = [&](Snapshot s, Clock::time_point t0, bool verify_stage = true,
                          const HazardIndex* own_hazards = nullptr) {
        s.diff = diff_stages(out.back().graph, s.graph);
        s.reordered = s.diff.moved.size();
        s.pass_ms = ms_since(t0);
        if (verify_stage) verify(s, own_hazards);
        out.push_back(std::move(s));
    };

    ScheduleStats dependency_part = out.back().stats;
    if (options.fuse) {
        const auto t0 = Clock::now();
        FusionResult fused = fuse(out.back().graph, *stage_hazards, options.recipes);
        Snapshot s;
        s.stage = "fused";
        s.graph = std::move(fused.graph);
        s.fusions = std::move(fused.diagnostics);
        s.diagnostics.push_back(fmt::format("{} fusion(s) applied, {} near miss(es)", fused.applied,
                                            s.fusions.size() - fused.applied));
        if (fused.applied) {
            fused_hazards.emplace(s.graph);
            fused_dag.emplace(s.graph, *fused_hazards);
            stage_hazards = &*fused_hazards;
            stage_dag = &*fused_dag;
            s.stats = schedule_stats(s.graph, *stage_hazards, *stage_dag);
        } else {
            s.stats = stats_with(s.graph, dependency_part);
        }
        dependency_part = s.stats;
        // The fused graph's own hazards, when a fusion made the pipeline compute them.
        push_stage(std::move(s), t0, true, fused.applied ? &*fused_hazards : nullptr);
    }
    if (options.reorder != ReorderMode::none) {
        const auto t0 = Clock::now();
        ReorderResult r = options.reorder == ReorderMode::greedy
                              ? reorder_greedy(out.back().graph, *stage_dag, {options.window})
                              : reorder_levels(out.back().graph, *stage_dag);
        Snapshot s;
        s.stage = fmt::format("reordered ({})", reorder_mode_name(options.reorder));
        s.graph = std::move(r.graph);
        s.diagnostics = std::move(r.diagnostics);
        s.diagnostics.push_back(fmt::format("{} dispatch(es) moved", r.moved));
        s.stats = stats_with(s.graph, dependency_part);
        push_stage(std::move(s), t0);
    }
    {
        const auto t0 = Clock::now();
        Snapshot s;
        s.stage = "barriers planned";
        s.graph = plan_barriers(out.back().graph);
        s.stats = stats_with(s.graph, dependency_part);
        push_stage(std::move(s), t0);
    }
    {
        const auto t0 = Clock::now();
        Snapshot s;
        s.stage = "split";
        s.graph = out.back().graph;
        const SplitPoint p = split_point(s.graph, options.split);
        s.split_first_dispatches = p.first_dispatches;
        s.diagnostics.push_back(
            fmt::format("first command buffer: {} dispatch(es); second starts at node {}",
                        p.first_dispatches, p.second_begin_node));
        s.stats = stats_with(s.graph, dependency_part);
        // The split only chooses a boundary: the graph is the verified planned one.
        const bool verify_split = false;
        push_stage(std::move(s), t0, verify_split);
    }
    return out;
}

}  // namespace graphlens
