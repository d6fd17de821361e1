#include "graphlens/graph/reorder_levels.h"

#include <algorithm>

#include "graphlens/graph/dependency_dag.h"
#include "stage_order.h"

namespace graphlens {

ReorderResult reorder_levels(const ComputeGraph& graph) {
    return reorder_levels(graph, DependencyDag(graph));
}

ReorderResult reorder_levels(const ComputeGraph& graph, const DependencyDag& dag) {
    detail::StageOrder order = detail::levels_order(graph, dag);
    ReorderResult result;
    result.graph = detail::graph_of_order(graph, order.order);
    result.moved = order.moved;
    return result;
}

namespace detail {

StageOrder levels_order(const ComputeGraph& graph, const DependencyDag& dag) {
    const auto& level = dag.levels();
    std::vector<uint32_t> dispatches;  // node indices of the dispatches, in order
    dispatches.reserve(graph.nodes.size());
    for (size_t i = 0; i < graph.nodes.size(); ++i)
        if (graph.nodes[i].is_dispatch()) dispatches.push_back(static_cast<uint32_t>(i));
    const size_t n = dispatches.size();
    // Counting sort by level keeps the original order within a level.
    std::vector<size_t> start(dag.depth() + 1, 0);
    for (uint32_t i : dispatches) ++start[level[i] + 1];
    for (size_t l = 0; l < dag.depth(); ++l) start[l + 1] += start[l];
    std::vector<uint32_t> order(n);
    std::vector<uint32_t> rank(graph.nodes.size(), 0);  // position in the input's dispatch order
    for (size_t k = 0; k < n; ++k) {
        order[start[level[dispatches[k]]]++] = dispatches[k];
        rank[dispatches[k]] = static_cast<uint32_t>(k);
    }

    StageOrder result;
    result.order.reserve(n + dag.depth());
    for (size_t pos = 0; pos < n; ++pos) {
        const uint32_t i = order[pos];
        if (pos > 0 && level[i] != level[order[pos - 1]])
            result.order.push_back(StageGraph::kBarrier);
        if (rank[i] != pos) ++result.moved;
        result.order.push_back(i);
    }
    return result;
}

}  // namespace detail

}  // namespace graphlens
