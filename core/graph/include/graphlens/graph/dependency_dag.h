#pragma once
// DependencyDag: the order constraints between the dispatches of a graph.
//
// Edges: every hazard of a HazardIndex (earlier -> later), plus the fence edges: a fence
// (Node::is_fence()) is one that nothing moves across and that conflicts with everything, so
// every dispatch before a fence (back to the previous fence) gets an edge to it, and the
// fence gets an edge to every dispatch after it (up to the next fence). Barrier nodes are not
// vertices; vertex ids are node indices of the graph, barrier indices have no edges.
//
// ASAP level: 0 for a dispatch with no predecessor, else 1 + the highest level of its
// predecessors. depth = number of distinct levels = longest path in dispatches. Any valid
// schedule needs a barrier between the two ends of every edge, so it needs at least
// depth - 1 barriers; with fences the edges above make this the sum over fenced segments.
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/hazard_index.h"

namespace graphlens {

class DependencyDag {
  public:
    DependencyDag() = default;
    DependencyDag(const ComputeGraph& graph, const HazardIndex& hazards);
    /// Builds its own HazardIndex.
    explicit DependencyDag(const ComputeGraph& graph);

    size_t node_count() const { return level_.size(); }
    /// Direct predecessors / successors of a node (deduplicated, ascending).
    std::span<const uint32_t> predecessors(size_t node) const;
    std::span<const uint32_t> successors(size_t node) const;
    size_t edge_count() const { return preds_.size(); }

    /// ASAP level per node index (0 for barrier nodes).
    const std::vector<uint32_t>& levels() const { return level_; }
    /// Number of levels = longest path counted in dispatches (0 for an empty graph).
    size_t depth() const { return depth_; }
    /// Fewest barriers any valid order needs: depth - 1 (0 for an empty graph).
    size_t barrier_lower_bound() const { return depth_ == 0 ? 0 : depth_ - 1; }
    size_t fence_count() const { return fences_; }

    /// Transitively reduced edges (earlier, later), for display: an edge is dropped when
    /// another path connects its ends. Cost grows with the span of the edges; meant for the
    /// graphs a person looks at, not for 100k-node batch work.
    std::vector<std::pair<uint32_t, uint32_t>> reduced_edges() const;

  private:
    static constexpr uint32_t kNoNode = UINT32_MAX;
    void build(const ComputeGraph& graph, const HazardIndex& hazards);
    /// Each dispatch's predecessors (its hazards' earlier ends, the last fence, and for a fence
    /// every dispatch since the one before), its level and the DAG's depth.
    void build_predecessors(const ComputeGraph& graph, const HazardIndex& hazards);
    /// A node's predecessors straight from the hazards into it (no fence edge).
    void append_hazard_predecessors(size_t node, const HazardIndex& hazards);
    void append_predecessors(size_t node, std::span<const uint32_t> sorted_unique);
    /// The successor lists from the predecessor lists.
    void build_successors();
    std::vector<uint32_t> preds_, succs_;
    std::vector<size_t> pred_begin_, succ_begin_;  ///< CSR offsets, size n+1
    std::vector<uint32_t> level_;
    size_t depth_ = 0;
    size_t fences_ = 0;
};

}  // namespace graphlens
