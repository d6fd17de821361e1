#include "graphlens/capture/internal_stages_text.h"

#include <fmt/format.h>

namespace graphlens {
namespace {

std::string binding_text(const BindingRef& b) {
    return b.set == 0 ? fmt::format("binding {}", b.binding)
                      : fmt::format("set {} binding {}", b.set, b.binding);
}

}  // namespace

std::vector<std::string> internal_stages_lines(const ComputeGraph& graph,
                                               const NodeInternalStages& stages) {
    std::vector<std::string> out;
    for (size_t k = 0; k < stages.stages.size(); ++k) {
        const InternalStage& s = stages.stages[k];
        out.push_back(fmt::format(
            "stage {} '{}': {}{}", k + 1, s.declared.name, describe_stage_order(s.declared),
            s.counter ? ", counter " + describe_bytes(graph, *s.counter) : std::string()));
        for (const StageAccess& a : s.reads)
            out.push_back(fmt::format("  reads  {} {}", binding_text(a.binding),
                                      describe_bytes(graph, a.bytes)));
        for (const StageAccess& a : s.writes)
            out.push_back(fmt::format("  writes {} {}", binding_text(a.binding),
                                      describe_bytes(graph, a.bytes)));
    }
    for (const StageHazard& h : stages.hazards)
        out.push_back(fmt::format("{} stage {} -> stage {}: {}", hazard_kind_name(h.kind),
                                  h.earlier_stage + 1, h.later_stage + 1,
                                  describe_bytes(graph, h.bytes)));
    return out;
}

}  // namespace graphlens
