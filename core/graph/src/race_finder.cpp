#include "graphlens/graph/race_finder.h"

#include <algorithm>

#include <fmt/format.h>

#include "graph/src/barrier_positions.h"

namespace graphlens {

namespace detail {

BarrierPositions::BarrierPositions(const ComputeGraph& graph) {
    for (size_t i = 0; i < graph.nodes.size(); ++i)
        if (graph.nodes[i].is_barrier()) nodes_.push_back(i);
}

std::span<const size_t> BarrierPositions::between(size_t earlier, size_t later) const {
    const auto first = std::upper_bound(nodes_.begin(), nodes_.end(), earlier);
    const auto last = std::lower_bound(first, nodes_.end(), later);
    return {first, last};
}

HazardEnds hazard_ends(const ComputeGraph& graph, const Hazard& h) {
    return {HazardEnd{graph.stage_of(graph.nodes[h.earlier]), h.kind != HazardKind::war, h.earlier},
            HazardEnd{graph.stage_of(graph.nodes[h.later]), h.kind != HazardKind::raw, h.later}};
}

bool barrier_orders(const ComputeGraph& graph, size_t barrier, const Hazard& h) {
    const BarrierScope* scope = graph.scope_of(graph.nodes[barrier]);
    if (!scope) return true;  // a full barrier
    const HazardEnds ends = hazard_ends(graph, h);
    return scope_covers(*scope, ends.earlier, ends.later, h.overlap());
}

}  // namespace detail

namespace {

std::string node_name(const ComputeGraph& graph, size_t i) {
    const Node& n = graph.nodes[i];
    const std::string& name =
        !n.label.empty() ? static_cast<const std::string&>(n.label)
                         : (n.kernel < graph.kernels.size() ? graph.kernels[n.kernel].name : "");
    return fmt::format("'{}' (node {})", name, i);
}

std::string allocation_name(const ComputeGraph& graph, AllocationId a) {
    return a < graph.allocations.size() ? graph.allocations[a].name : std::to_string(a);
}

std::string explain(const ComputeGraph& graph, const Race& race) {
    const Hazard& h = race.hazard;
    const ByteRange bytes = h.overlap();
    std::string s = fmt::format("{} on '{}' bytes {}..{}: {} then {}", hazard_kind_name(h.kind),
                                allocation_name(graph, bytes.allocation), bytes.begin, bytes.end,
                                node_name(graph, h.earlier), node_name(graph, h.later));
    if (race.barriers.empty()) return s + " with no barrier between";
    for (const auto& b : race.barriers)
        s += fmt::format("; the barrier at node {} does not order them: {}", b.barrier, b.why);
    return s;
}

}  // namespace

bool hazard_is_ordered(const ComputeGraph& graph, const Hazard& hazard) {
    for (size_t i = size_t{hazard.earlier} + 1; i < hazard.later; ++i)
        if (graph.nodes[i].is_barrier() && detail::barrier_orders(graph, i, hazard)) return true;
    return false;
}

std::vector<Race> find_races(const ComputeGraph& graph, const HazardIndex& hazards) {
    const detail::BarrierPositions barriers(graph);
    const AllocationNamer quoted_name = [&graph](AllocationId a) {
        return "'" + allocation_name(graph, a) + "'";
    };
    std::vector<Race> races;
    const std::vector<Hazard>& all = hazards.hazards();
    for (size_t k = 0; k < all.size(); ++k) {
        const Hazard& h = all[k];
        const auto between = barriers.between(h.earlier, h.later);
        const bool ordered = std::any_of(between.begin(), between.end(), [&](size_t b) {
            return detail::barrier_orders(graph, b, h);
        });
        if (ordered) continue;
        Race race{h, k, {}, {}};
        const detail::HazardEnds ends = detail::hazard_ends(graph, h);
        for (size_t b : between)
            race.barriers.push_back({b, scope_gap(*graph.scope_of(graph.nodes[b]), ends.earlier,
                                                  ends.later, h.overlap(), quoted_name)});
        race.explanation = explain(graph, race);
        races.push_back(std::move(race));
    }
    return races;
}

std::vector<Race> find_races(const ComputeGraph& graph) {
    return find_races(graph, HazardIndex(graph));
}

}  // namespace graphlens
