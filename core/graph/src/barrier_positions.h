#pragma once
// The ordering rule shared by find_races, explain_barriers and schedule_is_valid: which
// barriers lie between a hazard's two commands and which of them order it.
#include <cstddef>
#include <span>
#include <vector>

#include "graphlens/graph/barrier_scope.h"
#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/hazard.h"

namespace graphlens::detail {

/// The node indices of a graph's barriers, for "which barriers lie between nodes a and b".
class BarrierPositions {
  public:
    explicit BarrierPositions(const ComputeGraph& graph);
    /// Barriers strictly between the two nodes, in order.
    std::span<const size_t> between(size_t earlier, size_t later) const;
    const std::vector<size_t>& nodes() const { return nodes_; }

  private:
    std::vector<size_t> nodes_;
};

struct HazardEnds {
    HazardEnd earlier;
    HazardEnd later;
};

/// The stage and the kind of access of each end of `h`.
HazardEnds hazard_ends(const ComputeGraph& graph, const Hazard& h);

/// Whether barrier node `barrier` orders `h`: always for a full barrier, by its scope for a
/// recorded one.
bool barrier_orders(const ComputeGraph& graph, size_t barrier, const Hazard& h);

}  // namespace graphlens::detail
