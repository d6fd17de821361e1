#pragma once
// Analysis of a schedule (a graph whose barrier nodes are meaningful): concurrency groups,
// statistics and "why is this barrier here".
#include <cstddef>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/dependency_dag.h"
#include "graphlens/graph/hazard.h"
#include "graphlens/graph/hazard_index.h"
#include "graphlens/graph/snapshot.h"

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

/// The group part of ScheduleStats, counted by a walk that reports each node in order.
class GroupCounter {
  public:
    void barrier() {
        ++s_.barriers;
        close();
    }
    void dispatch() {
        ++s_.dispatches;
        ++run_;
    }
    ScheduleStats finish() {
        close();
        s_.mean_group_size =
            s_.groups ? static_cast<double>(s_.dispatches) / static_cast<double>(s_.groups) : 0.0;
        return s_;
    }

  private:
    void close() {
        if (run_ == 0) return;
        if (s_.group_size_histogram.size() <= run_) s_.group_size_histogram.resize(run_ + 1, 0);
        ++s_.group_size_histogram[run_];
        ++s_.groups;
        run_ = 0;
    }
    ScheduleStats s_;
    size_t run_ = 0;  ///< dispatches of the open group
};

/// The same in one walk that also calls on_dispatch(node) for every dispatch in order (the pass
/// pipeline collects a stage's ids in that walk).
template <class OnDispatch>
ScheduleStats group_stats(const ComputeGraph& graph, OnDispatch&& on_dispatch) {
    GroupCounter groups;
    for (const Node& n : graph.nodes) {
        if (n.is_barrier()) {
            groups.barrier();
        } else {
            on_dispatch(n);
            groups.dispatch();
        }
    }
    return groups.finish();
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
    /// Where each of `hazards` stands in the analysed HazardIndex::hazards(), so a viewer that
    /// lists the index's hazards points at the same ones without searching for them.
    std::vector<size_t> hazard_positions;
    std::vector<size_t> fences;  ///< fences in the adjacent groups that force it
    bool redundant = true;
};

std::vector<BarrierExplanation> explain_barriers(const ComputeGraph& graph,
                                                 const HazardIndex& hazards);
std::vector<BarrierExplanation> explain_barriers(const ComputeGraph& graph);

}  // namespace graphlens
