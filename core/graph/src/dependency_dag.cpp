#include "graphlens/graph/dependency_dag.h"

#include <algorithm>

namespace graphlens {

DependencyDag::DependencyDag(const ComputeGraph& graph, const HazardIndex& hazards) {
    build(graph, hazards);
}

DependencyDag::DependencyDag(const ComputeGraph& graph) {
    build(graph, HazardIndex(graph));
}

void DependencyDag::build(const ComputeGraph& graph, const HazardIndex& hazards) {
    build_predecessors(graph, hazards);
    build_successors();
}

void DependencyDag::build_predecessors(const ComputeGraph& graph, const HazardIndex& hazards) {
    const size_t n = graph.nodes.size();
    pred_begin_.assign(n + 1, 0);
    level_.assign(n, 0);
    preds_.clear();
    depth_ = 0;
    fences_ = 0;
    uint32_t last_fence = kNoNode;
    std::vector<uint32_t> segment;  // dispatches since the last fence
    std::vector<uint32_t> scratch;
    for (size_t i = 0; i < n; ++i) {
        pred_begin_[i] = preds_.size();
        const Node& node = graph.nodes[i];
        if (!node.is_dispatch()) continue;
        if (last_fence == kNoNode && !node.is_fence()) {
            append_hazard_predecessors(i, hazards);
            segment.push_back(static_cast<uint32_t>(i));
            continue;
        }
        scratch.clear();
        // into() lists hazards by earlier end: ascending already, only fence edges unsort it.
        for (const HazardPair& h : hazards.pairs_into(i)) scratch.push_back(h.earlier);
        bool sorted = true;
        if (last_fence != kNoNode) {
            scratch.push_back(last_fence);
            sorted = false;
        }
        if (node.is_fence()) {
            ++fences_;
            scratch.insert(scratch.end(), segment.begin(), segment.end());
            segment.clear();
            last_fence = static_cast<uint32_t>(i);
            sorted = false;
        } else {
            segment.push_back(static_cast<uint32_t>(i));
        }
        if (!sorted) std::sort(scratch.begin(), scratch.end());
        scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
        append_predecessors(i, scratch);
    }
    pred_begin_[n] = preds_.size();
}

void DependencyDag::append_hazard_predecessors(size_t node, const HazardIndex& hazards) {
    // No fence edge (the common case): into() lists the predecessors by earlier end,
    // ascending, so each is appended once, straight from the hazards' ends.
    uint32_t level = 0;
    uint32_t previous = kNoNode;
    for (const HazardPair& h : hazards.pairs_into(node)) {
        if (h.earlier == previous) continue;
        previous = h.earlier;
        preds_.push_back(previous);
        level = std::max(level, level_[previous] + 1);
    }
    level_[node] = level;
    depth_ = std::max<size_t>(depth_, size_t{level} + 1);
}

void DependencyDag::append_predecessors(size_t node, std::span<const uint32_t> sorted_unique) {
    uint32_t level = 0;
    for (uint32_t p : sorted_unique) level = std::max(level, level_[p] + 1);
    level_[node] = level;
    depth_ = std::max<size_t>(depth_, size_t{level} + 1);
    preds_.insert(preds_.end(), sorted_unique.begin(), sorted_unique.end());
}

void DependencyDag::build_successors() {
    // A counting sort of the edges by predecessor; the counters are 32-bit (half the table to
    // scatter into at 100k nodes) when the edges' count allows.
    const size_t n = level_.size();
    succ_begin_.assign(n + 1, 0);
    succs_.resize(preds_.size());
    if (preds_.size() < UINT32_MAX) {
        std::vector<uint32_t> fill(n + 1, 0);
        for (uint32_t p : preds_) ++fill[p + 1];
        for (size_t i = 0; i < n; ++i) {
            fill[i + 1] += fill[i];
            succ_begin_[i + 1] = fill[i + 1];
        }
        for (size_t v = 0; v < n; ++v)
            for (size_t k = pred_begin_[v]; k < pred_begin_[v + 1]; ++k)
                succs_[fill[preds_[k]]++] = static_cast<uint32_t>(v);
    } else {
        for (uint32_t p : preds_) ++succ_begin_[p + 1];
        for (size_t i = 0; i < n; ++i) succ_begin_[i + 1] += succ_begin_[i];
        std::vector<size_t> fill(succ_begin_.begin(), succ_begin_.end() - 1);
        for (size_t v = 0; v < n; ++v)
            for (size_t k = pred_begin_[v]; k < pred_begin_[v + 1]; ++k)
                succs_[fill[preds_[k]]++] = static_cast<uint32_t>(v);
    }
}

std::span<const uint32_t> DependencyDag::predecessors(size_t node) const {
    if (node >= level_.size()) return {};
    return std::span<const uint32_t>(preds_).subspan(pred_begin_[node],
                                                     pred_begin_[node + 1] - pred_begin_[node]);
}

std::span<const uint32_t> DependencyDag::successors(size_t node) const {
    if (node >= level_.size()) return {};
    return std::span<const uint32_t>(succs_).subspan(succ_begin_[node],
                                                     succ_begin_[node + 1] - succ_begin_[node]);
}

std::vector<std::pair<uint32_t, uint32_t>> DependencyDag::reduced_edges() const {
    // For each node v, a predecessor p is redundant when it is an ancestor of another
    // predecessor. Ancestors of a predecessor have smaller indices, so visiting the
    // predecessors from the highest index down and marking the ancestors of each (no lower
    // than the lowest predecessor) finds exactly the redundant ones.
    std::vector<std::pair<uint32_t, uint32_t>> out;
    const size_t n = level_.size();
    std::vector<uint32_t> mark(n, UINT32_MAX);
    std::vector<uint32_t> stack;
    for (size_t v = 0; v < n; ++v) {
        const auto preds = predecessors(v);
        if (preds.empty()) continue;
        const uint32_t lowest = preds.front();
        const auto stamp = static_cast<uint32_t>(v);
        for (auto it = preds.rbegin(); it != preds.rend(); ++it) {
            const uint32_t p = *it;
            if (mark[p] == stamp) continue;
            out.emplace_back(p, stamp);
            stack.assign(1, p);
            while (!stack.empty()) {
                const uint32_t u = stack.back();
                stack.pop_back();
                for (uint32_t a : predecessors(u)) {
                    if (a < lowest || mark[a] == stamp) continue;
                    mark[a] = stamp;
                    stack.push_back(a);
                }
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace graphlens
