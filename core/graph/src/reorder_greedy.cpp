#include "graphlens/graph/reorder_greedy.h"

#include <algorithm>
#include <bit>

#include "stage_order.h"

namespace graphlens {

ReorderResult reorder_greedy(const ComputeGraph& graph, const GreedyReorderOptions& options) {
    return reorder_greedy(graph, DependencyDag(graph), options);
}

ReorderResult reorder_greedy(const ComputeGraph& graph, const DependencyDag& dag,
                             const GreedyReorderOptions& options) {
    detail::StageOrder order = detail::greedy_order(graph, dag, options);
    ReorderResult result;
    result.graph = detail::graph_of_order(graph, order.order);
    result.moved = order.moved;
    return result;
}

namespace detail {

StageOrder greedy_order(const ComputeGraph& graph, const DependencyDag& dag,
                        const GreedyReorderOptions& options) {
    std::vector<uint32_t> nodes;  // node indices of the dispatches, in order
    std::vector<char> fence;      // by dispatch position: a fence (the same walk)
    nodes.reserve(graph.nodes.size());
    fence.reserve(graph.nodes.size());
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (!graph.nodes[i].is_dispatch()) continue;
        nodes.push_back(static_cast<uint32_t>(i));
        fence.push_back(graph.nodes[i].is_fence());
    }
    const size_t n = nodes.size();

    StageOrder result;
    result.order.reserve(graph.nodes.size());
    // By dispatch position k (compact, so the lookahead reads a few bytes per dispatch):
    // placed and fence; by node index: waiting = DAG predecessors not yet in a closed group. A
    // dispatch may join the current group exactly when waiting is 0 (every predecessor sits in
    // a closed group); closing a group releases the successors of its members.
    constexpr uint32_t kNone = UINT32_MAX;
    std::vector<uint32_t> position_of(graph.nodes.size(), kNone);
    for (size_t k = 0; k < n; ++k) position_of[nodes[k]] = static_cast<uint32_t>(k);
    // By node index, so that closing a group finds a successor's count without its position
    // first (one dependent random load less per DAG edge).
    std::vector<uint32_t> waiting(graph.nodes.size(), 0);
    // ready: one bit per position, set while the dispatch is unplaced with waiting == 0, so a
    // lookahead visits only those (64 positions a word) instead of every position it passes.
    std::vector<uint64_t> ready((n + 63) / 64, 0);
    auto set_ready = [&](size_t k) { ready[k / 64] |= uint64_t{1} << (k % 64); };
    auto clear_ready = [&](size_t k) { ready[k / 64] &= ~(uint64_t{1} << (k % 64)); };
    std::vector<uint32_t> next_fence(n + 1, static_cast<uint32_t>(n));  // first fence at >= k
    for (size_t k = 0; k < n; ++k) {
        waiting[nodes[k]] = static_cast<uint32_t>(dag.predecessors(nodes[k]).size());
        if (waiting[nodes[k]] == 0) set_ready(k);
    }
    for (size_t k = n; k-- > 0;)
        next_fence[k] = fence[k] ? static_cast<uint32_t>(k) : next_fence[k + 1];
    std::vector<char> placed(n, 0);
    std::vector<uint32_t> members;  // node indices placed in the current group
    auto close_group = [&] {
        for (uint32_t m : members)
            for (uint32_t s : dag.successors(m)) {
                if (--waiting[s] != 0) continue;
                const uint32_t k = position_of[s];
                if (k != kNone && !placed[k]) set_ready(k);
            }
        members.clear();
    };
    size_t placed_count = 0;
    auto place = [&](size_t k) {
        if (k != placed_count) ++result.moved;
        ++placed_count;
        placed[k] = 1;
        clear_ready(k);
        members.push_back(nodes[k]);
        result.order.push_back(nodes[k]);
    };
    for (size_t i0 = 0; i0 < n; ++i0) {
        if (placed[i0]) continue;
        if (!members.empty() && waiting[nodes[i0]] != 0) {
            // Before closing the group, pull later dispatches into it that conflict neither
            // with it nor with anything they would overtake, in order. Nothing crosses a fence
            // (positions after i0 are placed only by a lookahead, which never takes a fence).
            if (!fence[i0]) {
                const size_t end = std::min<size_t>({n, i0 + options.window, next_fence[i0 + 1]});
                // Placing joins the current group, which releases nobody until it closes: the
                // ready set does not grow during the walk.
                for (size_t w = (i0 + 1) / 64; w * 64 < end; ++w) {
                    uint64_t bits = ready[w];
                    while (bits) {
                        const size_t k = w * 64 + static_cast<size_t>(std::countr_zero(bits));
                        bits &= bits - 1;
                        if (k <= i0) continue;
                        if (k >= end) break;
                        place(k);
                    }
                }
            }
            result.order.push_back(StageGraph::kBarrier);
            close_group();
        }
        place(i0);
    }
    return result;
}

}  // namespace detail
}  // namespace graphlens
