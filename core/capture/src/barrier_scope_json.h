#pragma once
// A recorded barrier's scope in a capture (format version 2): the graph's "barrier_scopes"
// list, each {origin, dependencies: [{src_stages, dst_stages, src_access, dst_access, range}],
// note}, with stage and access sets as lists of names so a reader needs no bit table.
#include "capture/src/capture_json.h"
#include "capture/src/json_fields.h"
#include "graphlens/graph/barrier_scope.h"
#include "graphlens/graph/compute_graph.h"

namespace graphlens::capture_detail {

/// One scope as compact JSON text (json_text.h), one line of the graph's list.
void append_barrier_scope_text(std::string& out, const BarrierScope& scope);
/// One scope; its ranges must lie inside `allocations`.
BarrierScope read_barrier_scope(const JsonRef& v, const Path& p,
                                const std::vector<AllocationInfo>& allocations);

}  // namespace graphlens::capture_detail
