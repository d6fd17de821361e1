#include "graphlens/reorder_levels.h"

#include <algorithm>

#include "graphlens/dependency_dag.h"

namespace graphlens {

ReorderResult reorder_levels(const ComputeGraph& graph) {
    const ComputeGraph dispatches = graph.without_barriers();
    const DependencyDag dag(dispatches);
    const auto& level = dag.levels();
    const size_t n = dispatches.nodes.size();
    // Counting sort by level keeps the original order within a level.
    std::vector<size_t> start(dag.depth() + 1, 0);
    for (size_t i = 0; i < n; ++i) ++start[level[i] + 1];
    for (size_t l = 0; l < dag.depth(); ++l) start[l + 1] += start[l];
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[start[level[i]]++] = i;

    ReorderResult result;
    result.graph.allocations = graph.allocations;
    result.graph.kernels = graph.kernels;
    result.graph.metadata = graph.metadata;
    result.graph.nodes.reserve(n + dag.depth());
    for (size_t pos = 0; pos < n; ++pos) {
        const size_t i = order[pos];
        if (pos > 0 && level[i] != level[order[pos - 1]])
            result.graph.nodes.push_back(Node::barrier());
        if (i != pos) ++result.moved;
        result.graph.nodes.push_back(dispatches.nodes[i]);
    }
    return result;
}

}  // namespace graphlens
