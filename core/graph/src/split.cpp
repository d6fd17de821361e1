#include "graphlens/graph/split.h"

#include <algorithm>
#include <cmath>

#include "stage_order.h"

namespace graphlens {

namespace {

/// The split of a schedule of `size` positions; is_dispatch(i) tells a dispatch from a barrier.
template <class IsDispatch>
SplitPoint split_of(size_t size, IsDispatch&& is_dispatch, const SplitOptions& options) {
    size_t dispatches = 0;
    for (size_t i = 0; i < size; ++i) dispatches += is_dispatch(i) ? 1 : 0;
    size_t first = options.first_dispatches
                       ? *options.first_dispatches
                       : std::max(options.min_first,
                                  static_cast<size_t>(std::floor(options.first_fraction *
                                                                 static_cast<double>(dispatches))));
    first = std::min(first, dispatches);
    SplitPoint p;
    p.first_dispatches = first;
    size_t seen = 0;
    size_t i = 0;
    for (; i < size && seen < first; ++i)
        if (is_dispatch(i)) ++seen;
    // Barriers right after the last dispatch of the first buffer stay with it.
    while (i < size && !is_dispatch(i)) ++i;
    p.second_begin_node = i;
    return p;
}

}  // namespace

SplitPoint split_point(const ComputeGraph& graph, const SplitOptions& options) {
    return split_of(
        graph.nodes.size(), [&](size_t i) { return graph.nodes[i].is_dispatch(); }, options);
}

SplitPoint detail::split_point_of_order(std::span<const uint32_t> order,
                                        const SplitOptions& options) {
    return split_of(
        order.size(), [&](size_t i) { return order[i] != StageGraph::kBarrier; }, options);
}

}  // namespace graphlens
