#pragma once
// A recorded barrier's scope in words, for the schedule's tooltips and the conflict inspector:
// "pipeline_barrier: compute → transfer, shader writes → transfer reads, 'act' bytes
// 0..4096 — host waited for fence 3". The verdicts (which hazards a scope orders) are the
// core's (scope_covers, scope_gap); this only names what the scope holds.
#include <string>

#include "graphlens/graph/barrier_scope.h"
#include "graphlens/graph/compute_graph.h"

namespace graphlens::gui {

/// "compute|transfer" (the stages of a bit set; "none" for none).
std::string stage_set_text(uint8_t stages);
/// "shader writes|transfer reads" (the accesses of a bit set; "none" for none).
std::string access_set_text(uint8_t accesses);
/// One line: the origin, then each dependency (stages → stages, accesses → accesses, for a
/// buffer barrier the allocation's name and bytes, for an event wait where its event was set:
/// event_set_text), then the recorder's note.
std::string describe_scope(const ComputeGraph& graph, const BarrierScope& scope);
/// Whether a recorded scope orders less than a full barrier: no dependency of it runs from
/// every stage to every stage making every write visible to every access over all bytes.
bool scope_is_partial(const BarrierScope& scope);

}  // namespace graphlens::gui
