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
    // By dispatch position k (compact, so the lookahead reads a few bytes per dispatch):
    // placed, fence, and waiting = DAG predecessors not yet in a closed group. A dispatch may
    // join the current group exactly when waiting is 0 (every predecessor sits in a closed
    // group); closing a group releases the successors of its members.
    constexpr uint32_t kNone = UINT32_MAX;
    std::vector<uint32_t> position_of(graph.nodes.size(), kNone);
    for (size_t k = 0; k < n; ++k) position_of[nodes[k]] = static_cast<uint32_t>(k);
    std::vector<char> placed(n, 0), fence(n, 0);
    std::vector<uint32_t> waiting(n, 0);
    for (size_t k = 0; k < n; ++k) {
        fence[k] = graph.nodes[nodes[k]].is_fence();
        waiting[k] = static_cast<uint32_t>(dag.predecessors(nodes[k]).size());
    }
    std::vector<uint32_t> members;  // node indices placed in the current group
    auto close_group = [&] {
        for (uint32_t m : members)
            for (uint32_t s : dag.successors(m))
                if (position_of[s] != kNone) --waiting[position_of[s]];
        members.clear();
    };
    size_t placed_count = 0;
    auto place = [&](size_t k) {
        if (k != placed_count) ++result.moved;
        ++placed_count;
        placed[k] = 1;
        members.push_back(nodes[k]);
        result.graph.nodes.push_back(graph.nodes[nodes[k]]);
    };
    for (size_t i0 = 0; i0 < n; ++i0) {
        if (placed[i0]) continue;
        if (!members.empty() && waiting[i0] != 0) {
            // Before closing the group, pull later dispatches into it that conflict neither
            // with it nor with anything they would overtake. Nothing crosses a fence.
            if (!fence[i0]) {
                const size_t end = std::min(n, i0 + options.window);
                for (size_t i1 = i0 + 1; i1 < end; ++i1) {
                    if (placed[i1]) continue;
                    if (fence[i1]) break;
                    if (waiting[i1] == 0) place(i1);
                }
            }
            result.graph.nodes.push_back(Node::barrier());
            close_group();
        }
        place(i0);
    }
    return result;
}

}  // namespace graphlens
