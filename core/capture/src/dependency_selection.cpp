#include "capture/src/dependency_selection.h"

#include <fmt/format.h>

#include <stdexcept>
#include <unordered_set>

#include "graphlens/capture/report.h"
#include "graphlens/graph/dependency_dag.h"
#include "graphlens/graph/hazard_index.h"

namespace graphlens {

std::vector<bool> select_dispatches(const ComputeGraph& g, const DotOptions& options) {
    std::vector<bool> selected(g.nodes.size(), false);
    size_t count = 0;
    const std::string layer = options.layer ? "blk." + std::to_string(*options.layer) : "";
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node& n = g.nodes[i];
        if (!n.is_dispatch()) continue;
        if (options.node_range && (i < options.node_range->first || i > options.node_range->second))
            continue;
        if (options.layer && layer_of_label(n.label) != layer) continue;
        selected[i] = true;
        ++count;
    }
    if (count == 0) throw std::invalid_argument("the selection holds no dispatch");
    if (count > options.max_dispatches)
        throw std::invalid_argument(fmt::format(
            "the selection holds {} dispatches, more than {} (select with --nodes A..B or "
            "--layer N)",
            count, options.max_dispatches));
    return selected;
}

std::vector<DependencyEdge> dependency_edges(const ComputeGraph& g,
                                             const std::vector<bool>& selected) {
    const HazardIndex hazards(g);
    const DependencyDag dag(g, hazards);
    std::vector<DependencyEdge> edges;
    std::unordered_set<uint64_t> hazard_pairs;
    for (const Hazard& h : hazards.hazards()) {
        if (!selected[h.earlier] || !selected[h.later]) continue;
        hazard_pairs.insert(uint64_t{h.earlier} << 32 | h.later);
        edges.push_back({h.earlier, h.later, h});
    }
    // Ordering that is not a byte hazard: fences conflict with everything.
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        if (!selected[i]) continue;
        for (uint32_t p : dag.predecessors(i)) {
            if (!selected[p] || hazard_pairs.count(uint64_t{p} << 32 | i)) continue;
            edges.push_back({p, i, std::nullopt});
        }
    }
    return edges;
}

}  // namespace graphlens
