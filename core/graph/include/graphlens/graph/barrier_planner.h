#pragma once
// Barrier planning for a fixed dispatch order: walk the dispatches, keep the current group in
// a ConflictTracker (the same one the encoder uses, so planned and encode-time decisions
// agree) and emit a barrier exactly when the next dispatch conflicts with the group. A fence
// conflicts with everything: it gets a barrier before and after (unless at an end). Cutting
// only on conflict is optimal for the order: each cut is forced by the group since the last
// cut, and any valid placement has a cut inside every such span.
#include <span>
#include <vector>

#include "graphlens/graph/byte_range.h"
#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/conflict_tracker.h"

namespace graphlens {

/// The input's dispatches in the same order with planned barriers (input barriers dropped).
ComputeGraph plan_barriers(const ComputeGraph& graph);

/// The current concurrency group of a walk in order, with fence handling on top of
/// ConflictTracker. Used by the planner and the greedy reorder.
class GroupTracker {
  public:
    bool conflicts(const Node& dispatch) const;
    void add(const Node& dispatch);
    void reset();
    bool empty() const { return empty_; }

  private:
    /// A group of few ranges (most hold one to three dispatches) is kept in two flat lists and
    /// scanned in place; past this many ranges it moves into tracker_ (lists per allocation).
    static constexpr size_t kFlatRanges = 32;
    std::vector<ByteRange> reads_, writes_;  ///< the group's non-empty ranges while flat
    bool in_tracker_ = false;
    ConflictTracker tracker_;
    bool has_fence_ = false;
    bool empty_ = true;
};

}  // namespace graphlens
