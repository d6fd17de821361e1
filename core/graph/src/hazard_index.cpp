#include "graphlens/graph/hazard_index.h"

#include <algorithm>
#include <utility>

#include "graph_validator.h"
#include "hazard_index_builder.h"

namespace graphlens {
namespace {

using hazard_store::WindowScratch;

/// The lists of an index destroyed on this thread, kept for the next one (cleared, with
/// their capacity): a list of tens of MB is new memory otherwise, faulted in page by page,
/// and the hazard list grows by reallocation at least once more in a graph whose hazards per
/// dispatch rise as its allocations fill up.
struct SpareLists {
    WindowScratch scratch;
    std::vector<Hazard> hazards;
    std::vector<HazardPair> pairs;
    std::vector<size_t> into_begin;
    std::vector<uint32_t> out_order;
    std::vector<size_t> out_begin;
};

/// Set when this thread's SpareLists is gone (at thread exit; an index with static storage
/// is destroyed after it): then nothing is kept.
thread_local bool spare_lists_gone = false;

struct SpareListsOwner {
    SpareLists lists;
    ~SpareListsOwner() { spare_lists_gone = true; }
};

SpareLists* spare_lists() {
    if (spare_lists_gone) return nullptr;
    thread_local SpareListsOwner spare;
    return &spare.lists;
}

/// Moves `list` into `kept` when it has more room; takes: the reverse, cleared.
template <typename T>
void keep_larger(std::vector<T>& kept, std::vector<T>& list) {
    if (list.capacity() > kept.capacity()) kept = std::move(list);
}
template <typename T>
void take(std::vector<T>& list, std::vector<T>& kept) {
    if (kept.capacity() > list.capacity()) {
        list = std::move(kept);
        kept = {};
    }
    list.clear();
}

}  // namespace
HazardIndex::~HazardIndex() {
    SpareLists* kept = spare_lists();
    if (!kept) return;
    SpareLists& spare = *kept;
    keep_larger(spare.hazards, hazards_);
    keep_larger(spare.pairs, pairs_);
    keep_larger(spare.into_begin, into_begin_);
    keep_larger(spare.out_order, out_order_);
    keep_larger(spare.out_begin, out_begin_);
}

HazardIndex::HazardIndex(const ComputeGraph& graph) : HazardIndex(graph, nullptr) {}

HazardIndex::HazardIndex(const ComputeGraph& graph, detail::GraphValidator* validator) {
    if (SpareLists* spare = spare_lists()) {
        take(hazards_, spare->hazards);
        take(pairs_, spare->pairs);
        take(into_begin_, spare->into_begin);
        take(out_order_, spare->out_order);
        take(out_begin_, spare->out_begin);
    }
    WindowScratch scratch;
    if (SpareLists* spare = spare_lists()) std::swap(scratch, spare->scratch);
    hazard_store::HazardIndexBuilder(graph, validator, {hazards_, pairs_, into_begin_}, scratch)
        .build();
    build_out_lists(graph.nodes.size(), scratch.node_runs);
    if (SpareLists* spare = spare_lists()) std::swap(scratch, spare->scratch);
}

void HazardIndex::build_out_lists(size_t n, std::vector<uint32_t>& fill) {
    // A counting sort of the hazards by earlier end. The counters are 32-bit (out_order_'s
    // positions are): half the table that both passes update at random, in the scratch's
    // node_runs (kept by the thread).
    out_order_.resize(hazards_.size());
    fill.assign(n + 1, 0);
    for (const HazardPair& h : pairs_) ++fill[h.earlier + 1];
    out_begin_.resize(n + 1);
    out_begin_[0] = 0;
    for (size_t i = 0; i < n; ++i) {
        fill[i + 1] += fill[i];
        out_begin_[i + 1] = fill[i + 1];
    }
    // hazards_ is sorted by later, so each node's out-list comes out sorted by later. From the
    // 8-byte ends, not the hazards; fill[node] moves on to the end of node's list.
    for (size_t k = 0; k < pairs_.size(); ++k)
        out_order_[fill[pairs_[k].earlier]++] = static_cast<uint32_t>(k);
}

std::span<const Hazard> HazardIndex::into(size_t node) const {
    if (node + 1 >= into_begin_.size()) return {};
    return std::span<const Hazard>(hazards_).subspan(into_begin_[node],
                                                     into_begin_[node + 1] - into_begin_[node]);
}

std::span<const HazardPair> HazardIndex::pairs_into(size_t node) const {
    if (node + 1 >= into_begin_.size()) return {};
    return std::span<const HazardPair>(pairs_).subspan(into_begin_[node],
                                                       into_begin_[node + 1] - into_begin_[node]);
}

std::span<const uint32_t> HazardIndex::out_indices(size_t node) const {
    if (node + 1 >= out_begin_.size()) return {};
    return std::span<const uint32_t>(out_order_)
        .subspan(out_begin_[node], out_begin_[node + 1] - out_begin_[node]);
}

void HazardIndex::prefetch_out_list(size_t node) const {
    if (node + 1 < out_begin_.size() && out_begin_[node] < out_order_.size())
        prefetch(&out_order_[out_begin_[node]]);
}

void HazardIndex::prefetch_out_hazards(size_t node) const {
    const auto list = out_indices(node);
    for (size_t k = 0; k < list.size() && k < 2; ++k) prefetch(&hazards_[list[k]]);
}

std::vector<Hazard> HazardIndex::between(size_t a, size_t b) const {
    if (a > b) std::swap(a, b);
    std::vector<Hazard> out;
    const auto in = into(b);
    auto it = std::lower_bound(in.begin(), in.end(), a,
                               [](const Hazard& h, size_t e) { return h.earlier < e; });
    for (; it != in.end() && it->earlier == a; ++it) out.push_back(*it);
    return out;
}

std::vector<Hazard> brute_force_hazards(const ComputeGraph& graph) {
    std::vector<Hazard> out;
    const auto& nodes = graph.nodes;
    for (size_t l = 0; l < nodes.size(); ++l) {
        if (!nodes[l].is_dispatch()) continue;
        for (size_t e = 0; e < l; ++e) {
            if (!nodes[e].is_dispatch()) continue;
            auto add = [&](HazardKind kind, const std::vector<ByteRange>& a,
                           const std::vector<ByteRange>& b) {
                for (const auto& x : a)
                    for (const auto& y : b)
                        if (x.overlaps(y)) out.push_back({kind, e, l, x.intersect(y)});
            };
            add(HazardKind::raw, nodes[e].writes, nodes[l].reads);
            add(HazardKind::war, nodes[e].reads, nodes[l].writes);
            add(HazardKind::waw, nodes[e].writes, nodes[l].writes);
        }
    }
    return out;
}

}  // namespace graphlens
