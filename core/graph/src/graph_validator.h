#pragma once
// The checks of ComputeGraph::validate, node by node: validate() walks the nodes with them, and
// the pipeline makes them inside the captured hazard index's walk (HazardIndex's validating
// constructor), which reads the same ranges at the same moment: at 100k dispatches a walk of
// its own was ~4 % of the pipeline, most of it loading the cold ranges again.
#include <string>
#include <unordered_set>
#include <vector>

#include "graphlens/graph/compute_graph.h"

namespace graphlens::detail {

class GraphValidator {
  public:
    /// The allocations' checks (reported first), and the tables for the nodes'.
    explicit GraphValidator(const ComputeGraph& graph);
    /// The checks of node i; called for every node in graph order.
    void node(size_t i);
    /// Cache hints for the fields the checks read beyond the ranges: the bindings' block of
    /// a node far ahead, their items of one half as far.
    static void prefetch_far(const Node& n) { n.bindings.prefetch(); }
    static void prefetch_near(const Node& n) { n.bindings.prefetch_items(); }
    /// Every problem found, in validate()'s order.
    std::vector<std::string> take_errors() { return std::move(errors_); }

  private:
    void barrier(size_t i);  ///< node(i) of a barrier: its scope exists, its ranges in bounds
    bool first_use(NodeId id);
    bool in_bounds(const ByteRange& r) const {
        return r.allocation < sizes_.size() && r.begin <= r.end && r.end <= sizes_[r.allocation];
    }
    void report_range(size_t i, const ByteRange& r, const char* what);

    const ComputeGraph& graph_;
    std::vector<std::string> errors_;
    size_t dense_limit_ = 0;
    std::vector<char> id_seen_;
    std::unordered_set<NodeId> ids_;
    std::vector<uint64_t> sizes_;
};

}  // namespace graphlens::detail
