#include "graphlens/reorder_greedy.h"

#include "graphlens/barrier_planner.h"

namespace graphlens {

namespace {
ComputeGraph empty_like(const ComputeGraph& graph) {
    ComputeGraph out;
    out.allocations = graph.allocations;
    out.kernels = graph.kernels;
    out.metadata = graph.metadata;
    return out;
}
}  // namespace

ReorderResult reorder_greedy(const ComputeGraph& graph, const GreedyReorderOptions& options) {
    std::vector<const Node*> nodes;
    nodes.reserve(graph.nodes.size());
    for (const Node& n : graph.nodes)
        if (n.is_dispatch()) nodes.push_back(&n);
    const size_t n = nodes.size();

    ReorderResult result;
    result.graph = empty_like(graph);
    result.graph.nodes.reserve(n + n / 2);
    std::vector<bool> used(n, false);
    GroupTracker group;    // the current concurrency group
    GroupTracker skipped;  // dispatches the lookahead passed over
    size_t placed = 0;
    auto place = [&](size_t i) {
        if (i != placed) ++result.moved;
        ++placed;
        used[i] = true;
        group.add(*nodes[i]);
        result.graph.nodes.push_back(*nodes[i]);
    };
    for (size_t i0 = 0; i0 < n; ++i0) {
        if (used[i0]) continue;
        const Node& node0 = *nodes[i0];
        if (group.conflicts(node0)) {
            // Before closing the group, pull later dispatches into it that conflict neither
            // with it nor with anything they would overtake. Nothing crosses a fence.
            if (!node0.is_fence()) {
                skipped.reset();
                skipped.add(node0);
                const size_t end = std::min(n, i0 + options.window);
                for (size_t i1 = i0 + 1; i1 < end; ++i1) {
                    if (used[i1]) continue;
                    const Node& node1 = *nodes[i1];
                    if (node1.is_fence()) break;
                    if (!group.conflicts(node1) && !skipped.conflicts(node1)) {
                        place(i1);
                    } else {
                        skipped.add(node1);
                    }
                }
            }
            result.graph.nodes.push_back(Node::barrier());
            group.reset();
        }
        place(i0);
    }
    return result;
}

}  // namespace graphlens
