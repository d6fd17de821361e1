#include "stage_scan.h"

#include <algorithm>

namespace graphlens::detail {

StageScan scan_stage(const ComputeGraph& g, std::vector<NodeId>* id_of_node) {
    StageScan scan;
    scan.ids.reserve(g.nodes.size());
    if (id_of_node) id_of_node->assign(g.nodes.size(), 0);
    scan.groups = group_stats(g, [&](const Node& n) {
        scan.ids.push_back(n.id);
        if (id_of_node) (*id_of_node)[static_cast<size_t>(&n - g.nodes.data())] = n.id;
    });
    return scan;
}

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

}  // namespace graphlens::detail
