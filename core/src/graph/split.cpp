#include "graphlens/split.h"

#include <algorithm>
#include <cmath>

namespace graphlens {

SplitPoint split_point(const ComputeGraph& graph, const SplitOptions& options) {
    const size_t dispatches = graph.dispatch_count();
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
    for (; i < graph.nodes.size() && seen < first; ++i)
        if (graph.nodes[i].is_dispatch()) ++seen;
    // Barriers right after the last dispatch of the first buffer stay with it.
    while (i < graph.nodes.size() && graph.nodes[i].is_barrier()) ++i;
    p.second_begin_node = i;
    return p;
}

}  // namespace graphlens
