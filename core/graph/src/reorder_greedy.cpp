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
namespace {

// The state of the greedy walk. By dispatch position k (compact, so the lookahead reads a few
// bytes per dispatch): placed and fence; by node index: waiting = DAG predecessors not yet in a
// closed group. A dispatch may join the current group exactly when waiting is 0 (every
// predecessor sits in a closed group); closing a group releases the successors of its members.
class GreedyGrouping {
  public:
    GreedyGrouping(const ComputeGraph& graph, const DependencyDag& dag) : dag_(dag) {
        nodes_.reserve(graph.nodes.size());
        fence_.reserve(graph.nodes.size());
        for (size_t i = 0; i < graph.nodes.size(); ++i) {
            if (!graph.nodes[i].is_dispatch()) continue;
            nodes_.push_back(static_cast<uint32_t>(i));
            fence_.push_back(graph.nodes[i].is_fence());
        }
        n_ = nodes_.size();
        result_.order.reserve(graph.nodes.size());
        position_of_.assign(graph.nodes.size(), kNone);
        for (size_t k = 0; k < n_; ++k) position_of_[nodes_[k]] = static_cast<uint32_t>(k);
        waiting_.assign(graph.nodes.size(), 0);
        ready_.assign((n_ + 63) / 64, 0);
        for (size_t k = 0; k < n_; ++k) {
            waiting_[nodes_[k]] = static_cast<uint32_t>(dag.predecessors(nodes_[k]).size());
            if (waiting_[nodes_[k]] == 0) set_ready(k);
        }
        next_fence_.assign(n_ + 1, static_cast<uint32_t>(n_));
        for (size_t k = n_; k-- > 0;)
            next_fence_[k] = fence_[k] ? static_cast<uint32_t>(k) : next_fence_[k + 1];
        placed_.assign(n_, 0);
    }

    // Every dispatch in its position's turn: one that must wait for the current group closes
    // it, after pulling ahead what may join it.
    StageOrder run(size_t window) {
        for (size_t i0 = 0; i0 < n_; ++i0) {
            if (placed_[i0]) continue;
            if (!members_.empty() && waiting_[nodes_[i0]] != 0) {
                if (!fence_[i0]) pull_ahead(i0, window);
                result_.order.push_back(StageGraph::kBarrier);
                close_group();
            }
            place(i0);
        }
        return std::move(result_);
    }

  private:
    static constexpr uint32_t kNone = UINT32_MAX;

    void set_ready(size_t k) { ready_[k / 64] |= uint64_t{1} << (k % 64); }
    void clear_ready(size_t k) { ready_[k / 64] &= ~(uint64_t{1} << (k % 64)); }

    void place(size_t k) {
        if (k != placed_count_) ++result_.moved;
        ++placed_count_;
        placed_[k] = 1;
        clear_ready(k);
        members_.push_back(nodes_[k]);
        result_.order.push_back(nodes_[k]);
    }

    void close_group() {
        for (uint32_t m : members_)
            for (uint32_t s : dag_.successors(m)) {
                if (--waiting_[s] != 0) continue;
                const uint32_t k = position_of_[s];
                if (k != kNone && !placed_[k]) set_ready(k);
            }
        members_.clear();
    }

    // Before the group closes at position i0, the later dispatches that conflict neither with
    // it nor with anything they would overtake join it, in order, within the window. Nothing
    // crosses a fence (positions after i0 are placed only here, which never takes a fence).
    // Placing joins the current group, which releases nobody until it closes: the ready set
    // does not grow during the walk.
    void pull_ahead(size_t i0, size_t window) {
        const size_t end = std::min<size_t>({n_, i0 + window, next_fence_[i0 + 1]});
        for (size_t w = (i0 + 1) / 64; w * 64 < end; ++w) {
            uint64_t bits = ready_[w];
            while (bits) {
                const size_t k = w * 64 + static_cast<size_t>(std::countr_zero(bits));
                bits &= bits - 1;
                if (k <= i0) continue;
                if (k >= end) break;
                place(k);
            }
        }
    }

    const DependencyDag& dag_;
    size_t n_ = 0;
    std::vector<uint32_t> nodes_;  // node indices of the dispatches, in order
    std::vector<char> fence_;      // by dispatch position: a fence
    // By node index, so that closing a group finds a successor's count without its position
    // first (one dependent random load less per DAG edge).
    std::vector<uint32_t> position_of_, waiting_;
    // One bit per position, set while the dispatch is unplaced with waiting == 0, so a
    // lookahead visits only those (64 positions a word) instead of every position it passes.
    std::vector<uint64_t> ready_;
    std::vector<uint32_t> next_fence_;  // first fence at a position >= k
    std::vector<char> placed_;
    std::vector<uint32_t> members_;  // node indices placed in the current group
    size_t placed_count_ = 0;
    StageOrder result_;
};

}  // namespace

StageOrder greedy_order(const ComputeGraph& graph, const DependencyDag& dag,
                        const GreedyReorderOptions& options) {
    return GreedyGrouping(graph, dag).run(options.window);
}

}  // namespace detail
}  // namespace graphlens
