#include "graphlens/graph/barrier_planner.h"

#include "stage_order.h"

namespace graphlens {

namespace {

bool overlaps_any(const std::vector<ByteRange>& group, const ByteRange& r) {
    for (const ByteRange& g : group)
        if (g.overlaps(r)) return true;
    return false;
}

}  // namespace

bool GroupTracker::conflicts(const Node& dispatch) const {
    if (empty_) return false;
    if (has_fence_ || dispatch.is_fence()) return true;
    if (in_tracker_) return tracker_.conflicts(dispatch.reads, dispatch.writes);
    // The same decision as ConflictTracker::conflicts, on the flat lists.
    for (const ByteRange& r : dispatch.reads)
        if (overlaps_any(writes_, r)) return true;  // RAW
    for (const ByteRange& w : dispatch.writes)
        if (overlaps_any(writes_, w) || overlaps_any(reads_, w)) return true;  // WAW, WAR
    return false;
}

void GroupTracker::add(const Node& dispatch) {
    has_fence_ = has_fence_ || dispatch.is_fence();
    empty_ = false;
    const size_t added = dispatch.reads.size() + dispatch.writes.size();
    if (!in_tracker_ && reads_.size() + writes_.size() + added > kFlatRanges) {
        tracker_.add(reads_, writes_);
        reads_.clear();
        writes_.clear();
        in_tracker_ = true;
    }
    if (in_tracker_) {
        tracker_.add(dispatch.reads, dispatch.writes);
        return;
    }
    for (const ByteRange& r : dispatch.reads)
        if (!r.empty()) reads_.push_back(r);
    for (const ByteRange& w : dispatch.writes)
        if (!w.empty()) writes_.push_back(w);
}

void GroupTracker::reset() {
    reads_.clear();
    writes_.clear();
    if (in_tracker_) {
        tracker_.reset();
        in_tracker_ = false;
    }
    has_fence_ = false;
    empty_ = true;
}

ComputeGraph plan_barriers(const ComputeGraph& graph) {
    return detail::graph_of_order(graph, detail::planned_order(graph, {}));
}

namespace detail {

std::vector<uint32_t> planned_order(const ComputeGraph& graph, std::span<const uint32_t> order) {
    std::vector<uint32_t> out;
    out.reserve(graph.nodes.size());
    GroupTracker group;
    auto visit = [&](uint32_t i) {
        const Node& node = graph.nodes[i];
        if (!node.is_dispatch()) return;
        if (group.conflicts(node)) {
            out.push_back(StageGraph::kBarrier);
            group.reset();
        }
        group.add(node);
        out.push_back(i);
    };
    // The nodes ahead's ranges, cold at 100k nodes (compute_graph.h, kPrefetchAhead).
    auto ahead = [&](size_t k, size_t distance, auto&& at) {
        if (k + distance >= (order.empty() ? graph.nodes.size() : order.size())) return;
        const uint32_t i =
            order.empty() ? static_cast<uint32_t>(k + distance) : order[k + distance];
        if (i != StageGraph::kBarrier) at(graph.nodes[i]);
    };
    const size_t n = order.empty() ? graph.nodes.size() : order.size();
    for (size_t k = 0; k < n; ++k) {
        ahead(k, kPrefetchAheadShortWork, [](const Node& a) {
            a.reads.prefetch();
            a.writes.prefetch();
        });
        ahead(k, kPrefetchAheadShortWork / 2, [](const Node& a) { prefetch_ranges(a); });
        const uint32_t i = order.empty() ? static_cast<uint32_t>(k) : order[k];
        if (i != StageGraph::kBarrier) visit(i);
    }
    return out;
}

std::vector<uint32_t> planned_order(const ComputeGraph& graph, std::span<const uint32_t> order,
                                    const HazardIndex& hazards, bool dispatches_without_fences) {
    const size_t nodes = graph.nodes.size();
    if (hazards.node_count() != nodes) return planned_order(graph, order);
    constexpr uint32_t kUnplaced = UINT32_MAX;
    std::vector<uint32_t> group_of(nodes, kUnplaced);  // [node] = its group once placed
    std::vector<uint32_t> out;
    out.reserve(nodes);
    uint32_t group = 0;
    bool group_empty = true;
    bool group_has_fence = false;
    const size_t n = order.empty() ? nodes : order.size();
    const bool read_nodes = order.empty() || !dispatches_without_fences;
    for (size_t k = 0; k < n; ++k) {
        const uint32_t i = order.empty() ? static_cast<uint32_t>(k) : order[k];
        if (i == StageGraph::kBarrier) continue;
        if (i >= nodes) return planned_order(graph, order);
        bool fence = false;
        if (read_nodes) {
            const Node& node = graph.nodes[i];
            if (!node.is_dispatch()) continue;
            fence = node.is_fence();
        }
        if (group_of[i] != kUnplaced) return planned_order(graph, order);  // taken twice
        bool cut = !group_empty && (group_has_fence || fence);
        for (const HazardPair& h : hazards.pairs_into(i)) {
            const uint32_t g = group_of[h.earlier];
            if (g == kUnplaced) return planned_order(graph, order);  // the order breaks it
            cut = cut || g == group;
        }
        if (cut) {
            out.push_back(StageGraph::kBarrier);
            ++group;
            group_has_fence = false;
        }
        group_of[i] = group;
        group_empty = false;
        group_has_fence = group_has_fence || fence;
        out.push_back(i);
    }
    return out;
}

ComputeGraph graph_of_order(const ComputeGraph& graph, std::span<const uint32_t> order) {
    ComputeGraph out;
    out.allocations = graph.allocations;
    out.kernels = graph.kernels;
    out.metadata = graph.metadata;
    out.unknown_workgroups = graph.unknown_workgroups;
    out.nodes.reserve(order.size());
    for (size_t k = 0; k < order.size(); ++k) {
        if (k + kPrefetchAhead < order.size() && order[k + kPrefetchAhead] != StageGraph::kBarrier)
            prefetch_fields(graph.nodes.at(order[k + kPrefetchAhead]));
        const uint32_t i = order[k];
        out.nodes.push_back(i == StageGraph::kBarrier ? Node::barrier() : graph.nodes.at(i));
    }
    return out;
}

}  // namespace detail

}  // namespace graphlens
