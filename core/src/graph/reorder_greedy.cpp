#include "graphlens/reorder_greedy.h"

namespace graphlens {

ReorderResult reorder_greedy(const ComputeGraph& graph, const GreedyReorderOptions& options) {
    return reorder_greedy(graph, DependencyDag(graph), options);
}

ReorderResult reorder_greedy(const ComputeGraph& graph, const DependencyDag& dag,
                             const GreedyReorderOptions& options) {
    std::vector<uint32_t> nodes;  // node indices of the dispatches, in order
    nodes.reserve(graph.nodes.size());
    for (size_t i = 0; i < graph.nodes.size(); ++i)
        if (graph.nodes[i].is_dispatch()) nodes.push_back(static_cast<uint32_t>(i));
    const size_t n = nodes.size();

    ReorderResult result;
    result.graph.allocations = graph.allocations;
    result.graph.kernels = graph.kernels;
    result.graph.metadata = graph.metadata;
    result.graph.nodes.reserve(graph.nodes.size());
    // group_of[node index] = concurrency group the dispatch was placed in; kUnplaced before.
    constexpr uint32_t kUnplaced = UINT32_MAX;
    std::vector<uint32_t> group_of(graph.nodes.size(), kUnplaced);
    uint32_t current = 0;
    bool group_empty = true;
    // A dispatch may join the current group when every predecessor is in a closed group.
    auto joinable = [&](uint32_t node) {
        for (uint32_t p : dag.predecessors(node))
            if (group_of[p] == kUnplaced || group_of[p] == current) return false;
        return true;
    };
    size_t placed = 0;
    auto place = [&](size_t k) {
        if (k != placed) ++result.moved;
        ++placed;
        group_of[nodes[k]] = current;
        group_empty = false;
        result.graph.nodes.push_back(graph.nodes[nodes[k]]);
    };
    for (size_t i0 = 0; i0 < n; ++i0) {
        const uint32_t node0 = nodes[i0];
        if (group_of[node0] != kUnplaced) continue;
        if (!group_empty && !joinable(node0)) {
            // Before closing the group, pull later dispatches into it that conflict neither
            // with it nor with anything they would overtake. Nothing crosses a fence.
            if (!graph.nodes[node0].is_fence()) {
                const size_t end = std::min(n, i0 + options.window);
                for (size_t i1 = i0 + 1; i1 < end; ++i1) {
                    const uint32_t node1 = nodes[i1];
                    if (group_of[node1] != kUnplaced) continue;
                    if (graph.nodes[node1].is_fence()) break;
                    if (joinable(node1)) place(i1);
                }
            }
            result.graph.nodes.push_back(Node::barrier());
            ++current;
            group_empty = true;
        }
        place(i0);
    }
    return result;
}

}  // namespace graphlens
