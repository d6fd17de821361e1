#pragma once
// Analysis of a schedule (a graph whose barrier nodes are meaningful): concurrency groups,
// statistics and "why is this barrier here".
#include <cstddef>
#include <vector>

#include "graphlens/compute_graph.h"
#include "graphlens/dependency_dag.h"
#include "graphlens/hazard.h"
#include "graphlens/hazard_index.h"
#include "graphlens/snapshot.h"

namespace graphlens {

/// The dispatches between two barriers (or the graph's ends). Empty runs (two barriers in a
/// row) are not groups.
struct ConcurrencyGroup {
    size_t first_node = 0;           ///< node index of the first dispatch
    size_t end_node = 0;             ///< one past the last dispatch
    std::vector<size_t> dispatches;  ///< node indices
};

std::vector<ConcurrencyGroup> concurrency_groups(const ComputeGraph& graph);

/// Only the group part of the stats (dispatches, barriers, groups, mean size, histogram);
/// O(nodes), no hazard analysis.
ScheduleStats group_stats(const ComputeGraph& graph);

/// The same in one walk that also calls on_dispatch(node) for every dispatch in order (the pass
/// pipeline collects a stage's ids in that walk).
template <class OnDispatch>
ScheduleStats group_stats(const ComputeGraph& graph, OnDispatch&& on_dispatch) {
    ScheduleStats s;
    size_t run = 0;  // dispatches of the open group
    auto close = [&] {
        if (run == 0) return;
        if (s.group_size_histogram.size() <= run) s.group_size_histogram.resize(run + 1, 0);
        ++s.group_size_histogram[run];
        ++s.groups;
        run = 0;
    };
    for (const Node& n : graph.nodes) {
        if (n.is_barrier()) {
            ++s.barriers;
            close();
        } else {
            on_dispatch(n);
            ++s.dispatches;
            ++run;
        }
    }
    close();
    s.mean_group_size =
        s.groups ? static_cast<double>(s.dispatches) / static_cast<double>(s.groups) : 0.0;
    return s;
}

/// Stats of the schedule as it stands (its own barriers), with DAG depth, lower bound,
/// fences and hazard count from the given analysis of the same graph.
ScheduleStats schedule_stats(const ComputeGraph& graph, const HazardIndex& hazards,
                             const DependencyDag& dag);
ScheduleStats schedule_stats(const ComputeGraph& graph);

/// True when the schedule is valid in its own order: every hazard has a barrier between its
/// ends and every fence is alone in its group. O(nodes + hazards); the verifier says more.
bool schedule_is_valid(const ComputeGraph& graph, const HazardIndex& hazards);

/// Why a barrier is there. Definition: removing this one barrier (and no other) merges the
/// group right before it with the group right after it; the barrier is needed exactly when a
/// hazard of the schedule's own order has its earlier end in the group before and its later
/// end in the group after (a hazard spanning more barriers is kept apart by the others), or
/// when one of the two groups holds a fence. Those hazards are listed; a barrier with none is
/// `redundant`: it can be removed on its own without making the schedule invalid (removing
/// several redundant barriers at once may not be). Barriers at the ends of the graph or next
/// to another barrier separate nothing and are redundant too.
struct BarrierExplanation {
    size_t barrier = 0;           ///< node index of the barrier
    std::vector<Hazard> hazards;  ///< hazards crossing only this barrier
    std::vector<size_t> fences;   ///< fences in the adjacent groups that force it
    bool redundant = true;
};

std::vector<BarrierExplanation> explain_barriers(const ComputeGraph& graph,
                                                 const HazardIndex& hazards);
std::vector<BarrierExplanation> explain_barriers(const ComputeGraph& graph);

}  // namespace graphlens
