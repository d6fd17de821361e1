#include "graphlens/barrier_planner.h"

namespace graphlens {

bool GroupTracker::conflicts(const Node& dispatch) const {
    if (empty_) return false;
    if (has_fence_ || dispatch.is_fence()) return true;
    return tracker_.conflicts(dispatch.reads, dispatch.writes);
}

void GroupTracker::add(const Node& dispatch) {
    has_fence_ = has_fence_ || dispatch.is_fence();
    tracker_.add(dispatch.reads, dispatch.writes);
    ranges_since_fresh_ += dispatch.reads.size() + dispatch.writes.size();
    empty_ = false;
}

void GroupTracker::reset() {
    constexpr size_t kFreshAfter = 256;
    if (ranges_since_fresh_ > kFreshAfter) {
        tracker_ = ConflictTracker();
        ranges_since_fresh_ = 0;
    } else {
        tracker_.reset();
    }
    has_fence_ = false;
    empty_ = true;
}

ComputeGraph plan_barriers(const ComputeGraph& graph) {
    ComputeGraph out;
    out.allocations = graph.allocations;
    out.kernels = graph.kernels;
    out.metadata = graph.metadata;
    out.nodes.reserve(graph.nodes.size());
    GroupTracker group;
    for (const Node& node : graph.nodes) {
        if (!node.is_dispatch()) continue;
        if (group.conflicts(node)) {
            out.nodes.push_back(Node::barrier());
            group.reset();
        }
        group.add(node);
        out.nodes.push_back(node);
    }
    return out;
}

}  // namespace graphlens
