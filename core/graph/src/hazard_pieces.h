#pragma once
// Private to graphlens_graph (the hazard index's builder): one node's hazards as they are
// found, allocation by allocation, and the window's working lists that put them in graph order.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "graphlens/graph/hazard.h"
#include "graphlens/graph/hazard_index.h"

namespace graphlens::hazard_store {

/// A piece of a hazard of the node being indexed (its later end) on the allocation being
/// walked: who, which bytes, which kind. Sorted by (earlier, kind, begin) as one 128-bit key.
struct Piece {
    uint64_t earlier_and_kind = 0;  ///< earlier << 2 | kind
    uint64_t begin = 0;
    uint64_t end = 0;

    unsigned __int128 key() const {
        return static_cast<unsigned __int128>(earlier_and_kind) << 64 | begin;
    }
};

/// The pieces of one node's hazards on one allocation as they are found, segment by segment,
/// appended to a list of the window's pieces (`out`), where finish() makes them that node's
/// hazards on the allocation in place. A piece that continues the latest piece of the same
/// earlier node and kind (the next segment of one range: the common case) extends it instead,
/// which leaves less to sort; the sort and merge give the same hazards either way.
class PieceList {
  public:
    explicit PieceList(std::vector<Piece>& out) : out_(&out) {}
    /// After `out` was cleared.
    void restart() { first_ = 0; }

    void add(HazardKind kind, uint32_t earlier, uint64_t begin, uint64_t end) {
        const uint64_t key = uint64_t{earlier} << 2 | static_cast<uint64_t>(kind);
        uint32_t& slot = latest_[(earlier * 4 + static_cast<uint32_t>(kind)) % kSlots];
        if (slot >= first_ && slot < out_->size()) {
            Piece& p = (*out_)[slot];
            if (p.earlier_and_kind == key && p.begin <= begin && begin <= p.end) {
                p.end = std::max(p.end, end);
                return;
            }
        }
        slot = static_cast<uint32_t>(out_->size());
        out_->push_back({key, begin, end});
    }
    /// Sorts the pieces added since the last call by (earlier, kind, begin) and merges
    /// adjacent or overlapping pieces of one (earlier, kind), in place; returns where they
    /// begin in `out` (they end at its end).
    size_t finish() {
        const size_t first = first_;
        first_ = out_->size();
        const auto begin = out_->begin() + static_cast<ptrdiff_t>(first);
        const size_t count = out_->size() - first;
        if (count <= 1) return first;
        std::sort(begin, out_->end(),
                  [](const Piece& a, const Piece& b) { return a.key() < b.key(); });
        size_t merged = 1;
        for (size_t k = 1; k < count; ++k) {
            const Piece& p = begin[static_cast<ptrdiff_t>(k)];
            Piece& last = begin[static_cast<ptrdiff_t>(merged - 1)];
            if (last.earlier_and_kind == p.earlier_and_kind && p.begin <= last.end)
                last.end = std::max(last.end, p.end);
            else
                begin[static_cast<ptrdiff_t>(merged++)] = p;
        }
        out_->resize(first + merged);
        first_ = out_->size();
        return first;
    }

  private:
    static constexpr uint32_t kSlots = 16;
    std::vector<Piece>* out_;
    size_t first_ = 0;  ///< the first piece of the node and allocation being walked
    std::array<uint32_t, kSlots> latest_{};  ///< index of a recent piece by earlier and kind
};

/// An access of a node to an allocation, as the index walks them: found in node order, then
/// taken allocation by allocation.
struct Access {
    uint64_t begin = 0;
    uint64_t end = 0;
    uint32_t node = 0;
    AllocationId allocation = 0;
    bool write = false;
};

/// Nodes the index walks at a time, allocation by allocation (see the constructor): at 100k
/// random dispatches (6,250 allocations) a window's accesses touch a store about seven times,
/// and what a window lists (3.5 MB) is walked into graph order while much of it is still in
/// the second-level cache. 4,096 was 8 % slower on the index alone, 32,768 the same.
inline constexpr size_t kWindowNodes = 16384;
/// Graphs with at least this many allocations are walked in windows. A transformer's or a
/// real capture's few allocations (the synthetic transformer has 7) took 45 % longer in windows
/// (the accesses gathered in a walk of their own, whose misses on the nodes' ranges nothing
/// else overlaps, and their hazards put back in graph order) and their stores stay in cache
/// in graph order; the random graphs (62 allocations at 1k dispatches, 625 at 10k) ran the
/// same or faster in windows.
inline constexpr size_t kWindowedAllocations = 32;

/// A run of one node's hazards on one allocation in WindowScratch::staged.
struct StagedRun {
    uint32_t node = 0;
    AllocationId allocation = 0;
    uint32_t first = 0;
    uint32_t count = 0;
};

/// The index's working lists for one window of nodes, kept by the thread for the next index
/// (SpareLists; a few MB at 100k random dispatches, whose pages were faulted in again at every
/// index as new memory).
struct WindowScratch {
    std::vector<Access> found;            ///< the window's accesses in node order
    std::vector<Access> by_allocation;    ///< the same, by allocation, each in node order
    std::vector<size_t> bucket;           ///< [a] = first of allocation a in by_allocation
    std::vector<Piece> staged;            ///< the window's hazards, by allocation, then node
    std::vector<StagedRun> runs;          ///< their runs of one node and allocation, in order
    std::vector<StagedRun> runs_by_node;  ///< the same by node, each node's in allocation order
    /// [node - w0 + 1]: the node's runs; summed, [node - w0]: where its runs begin in
    /// runs_by_node, and once they are placed, where they end.
    std::vector<uint32_t> node_runs;
};

/// How many runs ahead the merge of a window's runs into graph order asks for their hazards.
inline constexpr size_t kRunsAhead = 16;

/// The hazard a staged piece of `run` stands for.
inline Hazard hazard_of(const Piece& p, const StagedRun& run) {
    return {static_cast<HazardKind>(p.earlier_and_kind & 3),
            static_cast<uint32_t>(p.earlier_and_kind >> 2),
            run.node,
            {run.allocation, p.begin, p.end}};
}

/// Writes the hazards of one node's runs (each sorted by earlier, kind and begin, one an
/// allocation, in allocation order) at `out`, sorted by (earlier, allocation, kind, begin):
/// by earlier, the first run first among equals; their ends at `pairs`.
inline void merge_runs(std::span<StagedRun> runs, const std::vector<Piece>& staged, Hazard* out,
                       HazardPair* pairs) {
    for (;;) {
        StagedRun* best = nullptr;
        for (StagedRun& run : runs)
            if (run.count > 0 && (!best || staged[run.first].earlier_and_kind >> 2 <
                                               staged[best->first].earlier_and_kind >> 2))
                best = &run;
        if (!best) return;
        *out = hazard_of(staged[best->first++], *best);
        *pairs++ = {out->earlier, out->later};
        ++out;
        --best->count;
    }
}

}  // namespace graphlens::hazard_store
