#include "models/barrier_scope_text.h"

#include <utility>
#include <vector>

#include "graphlens/graph/event_set_text.h"

namespace graphlens::gui {

namespace {

std::string join_bits(uint8_t bits, const std::vector<std::pair<uint8_t, const char*>>& names) {
    std::string s;
    for (const auto& [bit, name] : names) {
        if (!(bits & bit)) continue;
        if (!s.empty()) s += '|';
        s += name;
    }
    return s.empty() ? "none" : s;
}

// An event wait orders only the commands before its event's set: where that was, in the
// core's words (the race explanations say the same).
std::string event_text(const MemoryDependency& d) {
    return d.event_set_at ? ", event " + event_set_text(*d.event_set_at) : std::string();
}

std::string dependency_text(const ComputeGraph& graph, const MemoryDependency& d) {
    std::string s = stage_set_text(d.src_stages) + " → " + stage_set_text(d.dst_stages);
    // An execution dependency alone orders a read before a write and nothing else.
    if (d.src_access == 0 && d.dst_access == 0) return s + ", execution only" + event_text(d);
    s += ", " + access_set_text(d.src_access) + " → " + access_set_text(d.dst_access);
    if (d.range) {
        const AllocationId a = d.range->allocation;
        const std::string name =
            a < graph.allocations.size() ? graph.allocations[a].name : std::to_string(a);
        s += ", '" + name + "' bytes " + std::to_string(d.range->begin) + ".." +
             std::to_string(d.range->end);
    }
    return s + event_text(d);
}

}  // namespace

std::string stage_set_text(uint8_t stages) {
    return join_bits(
        stages, {{kStageCompute, "compute"}, {kStageTransfer, "transfer"}, {kStageHost, "host"}});
}

std::string access_set_text(uint8_t accesses) {
    return join_bits(accesses, {{kAccessShaderRead, "shader reads"},
                                {kAccessShaderWrite, "shader writes"},
                                {kAccessTransferRead, "transfer reads"},
                                {kAccessTransferWrite, "transfer writes"},
                                {kAccessHostRead, "host reads"},
                                {kAccessHostWrite, "host writes"}});
}

std::string describe_scope(const ComputeGraph& graph, const BarrierScope& scope) {
    std::string s(barrier_origin_name(scope.origin));
    s += ": ";
    if (scope.dependencies.empty()) s += "no dependency";
    for (size_t i = 0; i < scope.dependencies.size(); ++i) {
        if (i > 0) s += "; ";
        s += dependency_text(graph, scope.dependencies[i]);
    }
    if (!scope.note.empty()) s += " — " + scope.note;
    return s;
}

bool scope_is_partial(const BarrierScope& scope) {
    for (const MemoryDependency& d : scope.dependencies)
        if (d.src_stages == kStageAll && d.dst_stages == kStageAll &&
            (d.src_access & kAccessAllWrites) == kAccessAllWrites && d.dst_access == kAccessAll &&
            !d.range)
            return false;
    return true;
}

}  // namespace graphlens::gui
