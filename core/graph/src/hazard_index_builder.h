#pragma once
// Private to graphlens_graph: the walk that lists a graph's hazards for HazardIndex, every
// hazard into each node, sorted by (later, earlier, allocation, kind, begin).
//
// Each allocation has a store of segments with their last writer and readers since
// (hazard_segments.h). A node's reads find the writers before it (RAW) and join the readers; its
// writes find the readers since the last write (WAR) or else the last writer (WAW), then become
// the segments' writer. Graphs with few allocations are walked node by node; graphs with many,
// in windows of nodes walked allocation by allocation, so that a store stays in cache for all its
// accesses of the window, and the window's hazards are then put back in graph order.
#include <span>
#include <vector>

#include "graph_validator.h"
#include "graphlens/graph/compute_graph.h"
#include "hazard_pieces.h"
#include "hazard_segments.h"

namespace graphlens::hazard_store {

/// The lists of a HazardIndex that the builder fills: the hazards into each node, their ends,
/// and where each node's hazards begin (size n + 1).
struct IntoLists {
    std::vector<Hazard>& hazards;
    std::vector<HazardPair>& pairs;
    std::vector<size_t>& into_begin;
};

class HazardIndexBuilder {
  public:
    /// `scratch` is the working memory (kept by the thread between indexes); `validator`, when
    /// set, checks each node as the walk passes it.
    HazardIndexBuilder(const ComputeGraph& graph, detail::GraphValidator* validator,
                       IntoLists lists, WindowScratch& scratch);

    void build();

  private:
    void walk_node_by_node();
    void walk_in_windows();
    /// The window's accesses in node order, then bucketed by allocation; returns how many
    /// allocations the buckets cover.
    size_t gather_window(size_t w0, size_t w1);
    /// Walks the window allocation by allocation, staging each node's runs of hazards.
    void walk_window_by_allocation(size_t w0, size_t w1, size_t allocations);
    /// Appends the window's staged runs to the lists in graph order, node by node.
    void append_window(size_t w0, size_t w1);
    /// The accesses [first, last) of node `self` to one allocation, its reads first: its
    /// hazards on the allocation staged as one run, then its writes recorded. True when the
    /// node has hazards there.
    bool walk_accesses(AllocationSegments& store, AllocationId allocation, uint32_t self,
                       const Access* first, const Access* last);
    /// Appends one node's runs (one an allocation, in allocation order, each sorted by earlier,
    /// kind and begin) to the lists, merged by earlier, the first run first among equals.
    void append_runs(std::span<StagedRun> node_runs);
    /// Reserves room in the lists before they grow by doubling.
    void grow_lists(size_t done, size_t more);
    void prefetch_ahead(size_t i) const;
    AllocationSegments& store(AllocationId a);

    const ComputeGraph& graph_;
    detail::GraphValidator* validator_;
    const size_t n_;
    IntoLists lists_;
    WindowScratch& scratch_;
    StorePools pool_;  // before the stores: their trees give their nodes back to it
    std::vector<AllocationSegments> stores_;
    ReaderLists reader_lists_;
    PieceList pieces_;
};

}  // namespace graphlens::hazard_store
