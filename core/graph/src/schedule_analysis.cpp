#include "graphlens/graph/schedule_analysis.h"

#include <algorithm>
#include <cstdint>

#include "graph/src/barrier_positions.h"
#include "graphlens/graph/race_finder.h"

namespace graphlens {

std::vector<ConcurrencyGroup> concurrency_groups(const ComputeGraph& graph) {
    std::vector<ConcurrencyGroup> groups;
    bool open = false;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (graph.nodes[i].is_barrier()) {
            open = false;
            continue;
        }
        if (!open) {
            groups.push_back({i, i, {}});
            open = true;
        }
        groups.back().dispatches.push_back(i);
        groups.back().end_node = i + 1;
    }
    return groups;
}

ScheduleStats group_stats(const ComputeGraph& graph) {
    return group_stats(graph, [](const Node&) {});
}

ScheduleStats schedule_stats(const ComputeGraph& graph, const HazardIndex& hazards,
                             const DependencyDag& dag) {
    ScheduleStats s = group_stats(graph);
    s.dag_depth = dag.depth();
    s.barrier_lower_bound = dag.barrier_lower_bound();
    s.fences = dag.fence_count();
    s.hazards = hazards.size();
    return s;
}

ScheduleStats schedule_stats(const ComputeGraph& graph) {
    const HazardIndex hazards(graph);
    return schedule_stats(graph, hazards, DependencyDag(graph, hazards));
}

bool schedule_is_valid(const ComputeGraph& graph, const HazardIndex& hazards) {
    const size_t n = graph.nodes.size();
    std::vector<uint32_t> group_of(n, 0);
    uint32_t barriers = 0;
    bool fences_fenced = true;  // every fence has barriers (or the graph's ends) on both sides
    for (size_t i = 0; i < n; ++i) {
        const Node& node = graph.nodes[i];
        group_of[i] = barriers;
        if (node.is_barrier()) ++barriers;
        if (node.is_fence() && ((i > 0 && graph.nodes[i - 1].is_dispatch()) ||
                                (i + 1 < n && graph.nodes[i + 1].is_dispatch())))
            fences_fenced = false;
    }
    // A recorded program's barriers order only what their scopes cover.
    if (!graph.barrier_scopes.empty()) return fences_fenced && find_races(graph, hazards).empty();
    for (const HazardPair& h : hazards.pairs())
        if (group_of[h.earlier] == group_of[h.later]) return false;
    return fences_fenced;
}

namespace {

// The barrier that alone orders `h`, if exactly one of those between its ends does (else
// SIZE_MAX): with full barriers that is the one barrier between them, if there is one; with
// recorded scopes, the one whose scope covers it.
size_t only_ordering_barrier(const ComputeGraph& graph, const detail::BarrierPositions& barriers,
                             const std::vector<size_t>& group_of, const Hazard& h) {
    const size_t before = group_of[h.earlier];
    if (graph.barrier_scopes.empty()) return group_of[h.later] == before + 1 ? before : SIZE_MAX;
    size_t only = SIZE_MAX;
    for (size_t b : barriers.between(h.earlier, h.later)) {
        if (!detail::barrier_orders(graph, b, h)) continue;
        if (only != SIZE_MAX) return SIZE_MAX;
        only = group_of[b];
    }
    return only;
}

}  // namespace

std::vector<BarrierExplanation> explain_barriers(const ComputeGraph& graph,
                                                 const HazardIndex& hazards) {
    const size_t n = graph.nodes.size();
    // group_of[i] = number of barriers before node i, so a barrier b separates group
    // group_of[b] (before) from group_of[b] + 1 (after), and is the group_of[b]-th barrier.
    const detail::BarrierPositions barriers(graph);
    const std::vector<size_t>& barrier_nodes = barriers.nodes();
    std::vector<size_t> group_of(n, 0);
    for (size_t i = 0, b = 0; i < n; ++i) {
        group_of[i] = b;
        if (graph.nodes[i].is_barrier()) ++b;
    }
    std::vector<BarrierExplanation> out(barrier_nodes.size());
    for (size_t k = 0; k < barrier_nodes.size(); ++k) out[k].barrier = barrier_nodes[k];
    const std::vector<Hazard>& all = hazards.hazards();
    for (size_t k = 0; k < all.size(); ++k) {
        const size_t b = only_ordering_barrier(graph, barriers, group_of, all[k]);
        if (b == SIZE_MAX) continue;
        out[b].hazards.push_back(all[k]);
        out[b].hazard_positions.push_back(k);
    }
    for (size_t i = 0; i < n; ++i) {
        if (!graph.nodes[i].is_fence()) continue;
        const size_t g = group_of[i];
        // The fence's group is g: it forces the barrier before it (index g - 1) and after (g),
        // when the group on the other side holds a dispatch.
        auto other_side_has_dispatch = [&](size_t barrier_idx, bool after) {
            const size_t b = barrier_nodes[barrier_idx];
            const size_t j = after ? b + 1 : b - 1;  // b > 0 before, as the fence precedes it
            return j < n && graph.nodes[j].is_dispatch();
        };
        if (g > 0 && other_side_has_dispatch(g - 1, false)) out[g - 1].fences.push_back(i);
        if (g < barrier_nodes.size() && other_side_has_dispatch(g, true))
            out[g].fences.push_back(i);
    }
    for (auto& e : out) e.redundant = e.hazards.empty() && e.fences.empty();
    return out;
}

std::vector<BarrierExplanation> explain_barriers(const ComputeGraph& graph) {
    return explain_barriers(graph, HazardIndex(graph));
}

}  // namespace graphlens
