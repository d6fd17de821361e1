#pragma once
// The captured graph as the layer holds it while the range is open: one small record per node
// with its arrays in a RecordArena (record_storage.h), labels, kernels and barrier notes by
// number. GraphBuilder turns the records into the core graph's Nodes and BarrierScopes only
// when the capture is written: a Node with its shared payloads and a BarrierScope with its own
// vector take several heap blocks each, which recording would pay for on every dispatch.
#include <array>
#include <cstdint>
#include <span>

#include "graphlens/graph/barrier_scope.h"
#include "graphlens/graph/byte_range.h"
#include "graphlens/graph/compute_graph.h"

namespace graphlens::layer {

/// A binding a dispatch's kernel uses, resolved to bytes of an allocation.
struct RecordedView {
    uint32_t set = 0;
    uint32_t binding = 0;
    ByteRange bytes;
};

/// A dispatch, transfer or barrier, in capture order.
struct RecordedNode {
    NodeKind kind = NodeKind::dispatch;
    bool ranges_known = true;
    /// An indirect dispatch whose ranges are its bindings' and its arguments' (a read): the
    /// arguments are in GraphBuilder's list of indirect dispatches.
    bool reads_indirect_args = false;
    /// A dispatch's kernel; a barrier's index into GraphBuilder's barrier records.
    uint32_t kernel = 0;
    uint32_t label = 0;  ///< into GraphBuilder's labels
    std::array<uint32_t, 3> workgroups{1, 1, 1};
    std::span<const RecordedView> bindings;
    std::span<const uint8_t> push_constants;
    /// Stated directly where the bindings do not say them (descriptor arrays, transfers).
    std::span<const ByteRange> reads;
    std::span<const ByteRange> writes;
};

struct RecordedBarrier {
    BarrierOrigin origin = BarrierOrigin::pipeline_barrier;
    uint32_t note = 0;  ///< into GraphBuilder's barrier notes
    std::span<const MemoryDependency> dependencies;
};

}  // namespace graphlens::layer
