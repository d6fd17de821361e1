#pragma once
// The stages inside one dispatch of a graph, with their byte ranges and the hazards between
// them: what a kernel's declared stages (KernelInfo::stages) mean for one node. The one
// source of what the CLI (`passes --stages`) and the GUI (the node's "Stages inside" pane)
// show of a node that does several dependent stages in one dispatch.
//
// The hazards are those the kernel's arrival counters keep instead of a pipeline barrier. They
// are computed by the barrier planner's own rule (HazardIndex) over the stages as if each were
// a dispatch of its own, in order: for every byte a stage touches, the latest conflicting
// access of an earlier stage (RAW, WAR, WAW). Accesses to an arrival counter are the ordering
// itself (atomics), not hazards, and are shown as the stage's counter.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "graphlens/graph/byte_range.h"
#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/hazard.h"
#include "graphlens/graph/kernel_stage.h"

namespace graphlens {

/// The bytes a node binds at one of its kernel's bindings.
struct StageAccess {
    BindingRef binding;
    ByteRange bytes;
    friend bool operator==(const StageAccess&, const StageAccess&) = default;
};

/// One declared stage of a node, with the node's bytes at its bindings.
struct InternalStage {
    KernelStage declared;
    std::vector<StageAccess> reads;
    std::vector<StageAccess> writes;
    /// The bytes of the arrival counter (unset for the first stage).
    std::optional<ByteRange> counter;
};

/// A hazard between two stages of one node (earlier_stage < later_stage): bytes the later
/// stage may touch only once the earlier has finished them, which the counter guarantees.
struct StageHazard {
    HazardKind kind = HazardKind::raw;
    size_t earlier_stage = 0;
    size_t later_stage = 0;
    ByteRange bytes;
    friend bool operator==(const StageHazard&, const StageHazard&) = default;
};

struct NodeInternalStages {
    std::vector<InternalStage> stages;  ///< empty: the node's kernel is a single stage
    /// Sorted by (later_stage, earlier_stage, allocation, kind, begin), as HazardIndex lists.
    std::vector<StageHazard> hazards;
};

/// The stages of graph.nodes[node]. Empty for a barrier, a node whose kernel declares no
/// stages, or an index out of range. Throws std::invalid_argument naming the node, kernel and
/// binding when a stage names a binding the node does not bind.
NodeInternalStages internal_stages(const ComputeGraph& graph, size_t node);

/// True when graph.nodes[node] is a dispatch whose kernel declares stages (cheap: for badges).
bool has_internal_stages(const ComputeGraph& graph, size_t node);

/// "allocation[begin, end)" with the allocation's name, e.g. "attn_out[0, 8192)".
std::string describe_bytes(const ComputeGraph& graph, const ByteRange& bytes);

}  // namespace graphlens
