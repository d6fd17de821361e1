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
    empty_ = false;
}

void GroupTracker::reset() {
    tracker_.reset();
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
