#include "hazard_index_builder.h"

#include <algorithm>

namespace graphlens::hazard_store {

HazardIndexBuilder::HazardIndexBuilder(const ComputeGraph& graph, detail::GraphValidator* validator,
                                       IntoLists lists, WindowScratch& scratch)
    : graph_(graph),
      validator_(validator),
      n_(graph.nodes.size()),
      lists_(lists),
      scratch_(scratch),
      stores_(graph.allocations.size()),
      pieces_(scratch.staged) {}

void HazardIndexBuilder::build() {
    lists_.into_begin.assign(n_ + 1, 0);
    if (graph_.allocations.size() < kWindowedAllocations)
        walk_node_by_node();
    else
        walk_in_windows();
    lists_.into_begin[n_] = lists_.hazards.size();
}

AllocationSegments& HazardIndexBuilder::store(AllocationId a) {
    if (a >= stores_.size()) stores_.resize(size_t{a} + 1);
    return stores_[a];
}

namespace {

/// The accesses of a node that are not empty, reads first, each with its allocation.
void append_accesses(const Node& node, uint32_t self, std::vector<Access>& out) {
    for (const ByteRange& r : node.reads)
        if (!r.empty()) out.push_back({r.begin, r.end, self, r.allocation, false});
    for (const ByteRange& w : node.writes)
        if (!w.empty()) out.push_back({w.begin, w.end, self, w.allocation, true});
}

/// Insertion sort by allocation, stable: a node's reads stay before its writes (a node has a
/// few accesses).
void sort_by_allocation(std::vector<Access>& found) {
    for (size_t k = 1; k < found.size(); ++k)
        for (size_t j = k; j > 0 && found[j - 1].allocation > found[j].allocation; --j)
            std::swap(found[j - 1], found[j]);
}

}  // namespace

void HazardIndexBuilder::walk_node_by_node() {
    // A node's accesses grouped by allocation, each group walked, the node's runs merged into
    // the lists.
    std::vector<Access>& found = scratch_.found;
    for (size_t i = 0; i < n_; ++i) {
        prefetch_ahead(i);
        if (validator_) validator_->node(i);
        lists_.into_begin[i] = lists_.hazards.size();
        grow_lists(i, 0);
        const Node& node = graph_.nodes[i];
        if (!node.is_dispatch()) continue;
        const auto self = static_cast<uint32_t>(i);
        found.clear();
        append_accesses(node, self, found);
        sort_by_allocation(found);
        scratch_.staged.clear();
        pieces_.restart();
        scratch_.runs.clear();
        for (size_t k = 0; k < found.size();) {
            size_t last = k + 1;
            while (last < found.size() && found[last].allocation == found[k].allocation) ++last;
            const AllocationId a = found[k].allocation;
            walk_accesses(store(a), a, self, found.data() + k, found.data() + last);
            k = last;
        }
        append_runs(scratch_.runs);
    }
}

void HazardIndexBuilder::walk_in_windows() {
    for (size_t w0 = 0, w1 = 0; w0 < n_; w0 = w1) {
        w1 = std::min(n_, w0 + kWindowNodes);
        const size_t allocations = gather_window(w0, w1);
        walk_window_by_allocation(w0, w1, allocations);
        append_window(w0, w1);
    }
}

size_t HazardIndexBuilder::gather_window(size_t w0, size_t w1) {
    std::vector<Access>& found = scratch_.found;
    found.clear();
    for (size_t i = w0; i < w1; ++i) {
        prefetch_ahead(i);
        if (validator_) validator_->node(i);
        const Node& node = graph_.nodes[i];
        if (node.is_dispatch()) append_accesses(node, static_cast<uint32_t>(i), found);
    }
    size_t allocations = stores_.size();
    for (const Access& a : found) allocations = std::max(allocations, size_t{a.allocation} + 1);
    if (allocations > stores_.size()) stores_.resize(allocations);
    // A counting sort by allocation: bucket[a] moves on to the end of allocation a's accesses,
    // then back.
    std::vector<size_t>& bucket = scratch_.bucket;
    bucket.assign(allocations + 1, 0);
    for (const Access& a : found) ++bucket[a.allocation + 1];
    for (size_t a = 0; a < allocations; ++a) bucket[a + 1] += bucket[a];
    scratch_.by_allocation.resize(found.size());
    for (const Access& a : found) scratch_.by_allocation[bucket[a.allocation]++] = a;
    for (size_t a = allocations; a > 0; --a) bucket[a] = bucket[a - 1];
    bucket[0] = 0;
    return allocations;
}

void HazardIndexBuilder::walk_window_by_allocation(size_t w0, size_t w1, size_t allocations) {
    const std::vector<Access>& by_allocation = scratch_.by_allocation;
    const std::vector<size_t>& bucket = scratch_.bucket;
    scratch_.staged.clear();
    pieces_.restart();
    scratch_.runs.clear();
    scratch_.node_runs.assign(w1 - w0 + 1, 0);
    for (size_t a = 0; a < allocations; ++a) {
        for (size_t k = bucket[a]; k < bucket[a + 1];) {
            const uint32_t self = by_allocation[k].node;
            size_t last = k + 1;
            while (last < bucket[a + 1] && by_allocation[last].node == self) ++last;
            if (walk_accesses(stores_[a], static_cast<AllocationId>(a), self, &by_allocation[k],
                              by_allocation.data() + last))
                ++scratch_.node_runs[self - w0 + 1];
            k = last;
        }
    }
}

void HazardIndexBuilder::append_window(size_t w0, size_t w1) {
    std::vector<uint32_t>& node_runs = scratch_.node_runs;
    std::vector<StagedRun>& runs_by_node = scratch_.runs_by_node;
    grow_lists(w1, scratch_.staged.size());
    for (size_t i = 0; i < w1 - w0; ++i) node_runs[i + 1] += node_runs[i];
    runs_by_node.resize(scratch_.runs.size());
    for (const StagedRun& run : scratch_.runs) runs_by_node[node_runs[run.node - w0]++] = run;
    // node_runs[i] is now the end of node w0 + i's runs.
    size_t next_run = 0;
    for (size_t i = w0; i < w1; ++i) {
        lists_.into_begin[i] = lists_.hazards.size();
        const size_t runs_end = node_runs[i - w0];
        // The runs lie where their allocations' walks put them, which at 100k random
        // dispatches is no longer in the first-level caches.
        for (size_t ahead = next_run + kRunsAhead;
             ahead < runs_end + kRunsAhead && ahead < runs_by_node.size(); ++ahead) {
            const StagedRun& run = runs_by_node[ahead];
            graphlens::prefetch(&scratch_.staged[run.first]);
            graphlens::prefetch(&scratch_.staged[run.first + run.count - 1]);
        }
        append_runs(std::span(runs_by_node).subspan(next_run, runs_end - next_run));
        next_run = runs_end;
    }
}

bool HazardIndexBuilder::walk_accesses(AllocationSegments& store, AllocationId allocation,
                                       uint32_t self, const Access* first, const Access* last) {
    // The hazards of a node on one allocation depend only on that allocation's accesses before
    // it, so the allocations of a node may be walked in any order, and the nodes of an
    // allocation need only be walked in graph order.
    // Each read in one walk: its RAW hazards (the writers, which no read changes) and this node
    // recorded as a reader of its bytes.
    const Access* writes = first;
    for (; writes != last && !writes->write; ++writes) {
        const Access& r = *writes;
        store.for_each(store.cover(pool_, r.begin, r.end), r.begin, r.end,
                       [&](uint64_t b, uint64_t e, SegmentState& s) {
                           if (s.writer != kNoWriter)
                               pieces_.add(HazardKind::raw, s.writer, std::max(b, r.begin),
                                           std::min(e, r.end));
                           s.read_by(self, reader_lists_);
                       });
    }
    // The writes' WAR / WAW hazards against the state before this node: the readers since the
    // last write, but for this node itself (recorded just above, always the last).
    for (const Access* w = writes; w != last; ++w) {
        // Read only: cutting the segments at the write's ends (and filling its gaps, which hold
        // no accesses) would only be undone by the write below.
        store.for_each_overlapping(
            w->begin, w->end, [&](uint64_t b, uint64_t e, const SegmentState& s) {
                const uint64_t begin = std::max(b, w->begin), end = std::min(e, w->end);
                const bool read_since = s.for_each_reader_but(
                    self, reader_lists_,
                    [&](uint32_t reader) { pieces_.add(HazardKind::war, reader, begin, end); });
                if (!read_since && s.writer != kNoWriter)
                    pieces_.add(HazardKind::waw, s.writer, begin, end);
            });
    }
    std::vector<Piece>& staged = scratch_.staged;
    const size_t run_first = pieces_.finish();
    const bool listed = staged.size() > run_first;
    if (listed)
        scratch_.runs.push_back({self, allocation, static_cast<uint32_t>(run_first),
                                 static_cast<uint32_t>(staged.size() - run_first)});
    // Then the writes: a read-write binding leaves the bytes written by this node with no
    // reader since.
    for (const Access* w = writes; w != last; ++w) store.write(pool_, w->begin, w->end, self);
    return listed;
}

void HazardIndexBuilder::append_runs(std::span<StagedRun> node_runs) {
    const std::vector<Piece>& staged = scratch_.staged;
    std::vector<Hazard>& hazards = lists_.hazards;
    std::vector<HazardPair>& pairs = lists_.pairs;
    if (node_runs.size() == 1) {
        const StagedRun& run = node_runs[0];
        for (size_t k = run.first; k < run.first + run.count; ++k) {
            hazards.push_back(hazard_of(staged[k], run));
            pairs.push_back({hazards.back().earlier, run.node});
        }
    } else if (node_runs.size() > 1) {
        size_t count = 0;
        for (const StagedRun& run : node_runs) count += run.count;
        const size_t at = hazards.size();
        hazards.resize(at + count);
        pairs.resize(at + count);
        merge_runs(node_runs, staged, &hazards[at], &pairs[at]);
    }
}

void HazardIndexBuilder::grow_lists(size_t done, size_t more) {
    // Growing the lists by doubling moved them again and again (32 bytes a hazard). Node by
    // node: at a 64th (of a large graph) and again at an 8th, when the list has no room for
    // all at the rate so far and a quarter, then an eighth; at the 8th room for four times that
    // rate: in a graph whose allocations fill up as it goes the rate rises (the 100k random
    // graph lists 3.1 times its first eighth's rate), and room never written is address space,
    // not memory. In windows: after each, room for the window's hazards, and for the rest at
    // the rate so far and a quarter.
    std::vector<Hazard>& hazards = lists_.hazards;
    size_t room = 0;
    if (more > 0) {
        const size_t after = hazards.size() + more;
        if (after > hazards.capacity()) room = done < n_ ? after * n_ / done * 5 / 4 + 1024 : after;
    } else if (n_ >= 512 && done > 0 && ((n_ >= 4096 && done == n_ / 64) || done == n_ / 8)) {
        const bool first = done == n_ / 64;
        const size_t at_rate = hazards.size() * n_ / done;
        const size_t needed = at_rate * (first ? 10 : 9) / 8 + 1024;
        if (needed > hazards.capacity()) room = first ? needed : 4 * at_rate + 1024;
    }
    if (room > 0) {
        hazards.reserve(room);
        lists_.pairs.reserve(room);
    }
}

void HazardIndexBuilder::prefetch_ahead(size_t i) const {
    // The ranges of the nodes ahead, which at 100k nodes are no longer in cache: their lists'
    // blocks kPrefetchAhead nodes ahead, their items half as far (compute_graph.h); the
    // bindings, which only the validator reads, likewise.
    if (i + kPrefetchAhead < n_) {
        const Node& far = graph_.nodes[i + kPrefetchAhead];
        far.reads.prefetch();
        far.writes.prefetch();
        if (validator_) detail::GraphValidator::prefetch_far(far);
    }
    if (i + kPrefetchAhead / 2 < n_) {
        const Node& near = graph_.nodes[i + kPrefetchAhead / 2];
        prefetch_ranges(near);
        if (validator_) detail::GraphValidator::prefetch_near(near);
    }
}

}  // namespace graphlens::hazard_store
