#include "graphlens/graph/internal_stages.h"

#include <fmt/format.h>

#include <stdexcept>

#include "graphlens/graph/hazard_index.h"

namespace graphlens {
namespace {

// The bytes node `n` binds at `ref`, or a message naming what is missing.
ByteRange bound_bytes(const ComputeGraph& g, const Node& n, const BindingRef& ref) {
    for (const BoundView& b : n.bindings)
        if (b.set == ref.set && b.binding == ref.binding) return b.view.range();
    throw std::invalid_argument(fmt::format(
        "node '{}' (id {}) of kernel '{}': its stages name set {} binding {}, which the node "
        "does not bind",
        std::string_view(n.label), n.id, g.kernels[n.kernel].name, ref.set, ref.binding));
}

std::vector<StageAccess> accesses(const ComputeGraph& g, const Node& n,
                                  const std::vector<BindingRef>& refs) {
    std::vector<StageAccess> out;
    out.reserve(refs.size());
    for (const BindingRef& r : refs) out.push_back({r, bound_bytes(g, n, r)});
    return out;
}

// The stages as dispatches of a graph of their own over the same allocations, so that
// HazardIndex (the rule the barrier planner and the verifier use) lists their hazards.
ComputeGraph stages_as_dispatches(const ComputeGraph& g, const std::vector<InternalStage>& stages) {
    ComputeGraph out;
    out.allocations = g.allocations;
    for (size_t i = 0; i < stages.size(); ++i) {
        Node d;
        d.id = static_cast<NodeId>(i);
        d.origin = {d.id};
        for (const StageAccess& a : stages[i].reads) d.reads.push_back(a.bytes);
        for (const StageAccess& a : stages[i].writes) d.writes.push_back(a.bytes);
        out.nodes.push_back(std::move(d));
    }
    return out;
}

}  // namespace

bool has_internal_stages(const ComputeGraph& graph, size_t node) {
    if (node >= graph.nodes.size()) return false;
    const Node& n = graph.nodes[node];
    return n.is_dispatch() && n.kernel < graph.kernels.size() &&
           !graph.kernels[n.kernel].stages.empty();
}

NodeInternalStages internal_stages(const ComputeGraph& graph, size_t node) {
    NodeInternalStages out;
    if (!has_internal_stages(graph, node)) return out;
    const Node& n = graph.nodes[node];
    for (const KernelStage& declared : graph.kernels[n.kernel].stages) {
        InternalStage s;
        s.declared = declared;
        s.reads = accesses(graph, n, declared.reads);
        s.writes = accesses(graph, n, declared.writes);
        if (declared.order != StageOrder::first)
            s.counter = bound_bytes(graph, n, declared.counter);
        out.stages.push_back(std::move(s));
    }
    const HazardIndex index(stages_as_dispatches(graph, out.stages));
    for (const Hazard& h : index.hazards())
        out.hazards.push_back({h.kind, h.earlier, h.later, h.overlap()});
    return out;
}

std::string describe_bytes(const ComputeGraph& graph, const ByteRange& bytes) {
    const std::string_view name = bytes.allocation < graph.allocations.size()
                                      ? std::string_view(graph.allocations[bytes.allocation].name)
                                      : std::string_view("?");
    return fmt::format("{}[{}, {})", name, bytes.begin, bytes.end);
}

}  // namespace graphlens
