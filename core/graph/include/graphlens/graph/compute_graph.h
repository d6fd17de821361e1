#pragma once
// The graph IR: allocations, kernels and an ordered list of nodes (dispatches and barriers).
// Every pass takes a ComputeGraph and returns a new one; none mutates its input.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graphlens/graph/allocation.h"
#include "graphlens/graph/barrier_scope.h"
#include "graphlens/graph/byte_range.h"
#include "graphlens/graph/kernel_info.h"
#include "graphlens/graph/op_kind.h"
#include "graphlens/graph/shared_string.h"
#include "graphlens/graph/shared_vector.h"
#include "graphlens/graph/tensor_view.h"

namespace graphlens {

using KernelId = uint32_t;
/// Stable identity of a captured dispatch; survives reordering. A fused node carries the
/// ids of every dispatch it replaced in Node::origin.
using NodeId = uint32_t;

enum class NodeKind : uint8_t { dispatch, barrier };

struct BoundView {
    BoundView() = default;
    BoundView(uint32_t binding_number, TensorView bound, uint32_t set_number = 0)
        : binding(binding_number), set(set_number), view(bound) {}
    uint32_t binding = 0;  ///< descriptor binding number of the kernel
    uint32_t set = 0;      ///< descriptor set of the binding (in the padding before view)
    TensorView view;
    friend bool operator==(const BoundView&, const BoundView&) = default;
};

/// The variable-length fields (label, bindings, push_constants, reads, writes, origin) are
/// copy-on-write (shared_string.h, shared_vector.h): they read and assign like std::string and
/// std::vector, and copying a Node shares them, so the graphs of many pass stages can hold the
/// same dispatches without a heap block per field. Iterate through a const Node where nothing
/// is written: a non-const begin() or operator[] makes the field a private copy.
/// `kind` and `id` are every node's; the other fields are dispatch fields (unused for
/// barriers). They are ordered small to large so that a Node takes 72 bytes, not 88: every
/// pass walks the node array, which at 100k nodes no longer fits in cache.
struct Node {
    NodeKind kind = NodeKind::dispatch;
    OpKind op = OpKind::other;
    /// False when the capture could not state what this dispatch touches: such a node is a
    /// fence that nothing may move across, and it conflicts with everything.
    bool ranges_known = true;
    /// Explicit fence: nothing moves across it even though its ranges are known.
    bool fence = false;
    NodeId id = 0;  ///< unique among the dispatches of a graph
    /// A dispatch's index into ComputeGraph::kernels. A barrier keeps its scope here (a field
    /// barriers do not otherwise use, so a Node stays 72 bytes): see barrier_scope().
    KernelId kernel = 0;
    std::array<uint32_t, 3> workgroups{1, 1, 1};
    SharedString label;  ///< model position, e.g. "blk.3.attn_q"
    SharedVector<BoundView> bindings;
    SharedVector<uint8_t> push_constants;
    /// Derived from bindings and the kernel's reflected access; a read_write binding appears
    /// in both. Kept explicitly so foreign captures can state ranges without bindings.
    SharedVector<ByteRange> reads;
    SharedVector<ByteRange> writes;
    /// Original dispatch ids this node stands for: {id} normally, several after fusion.
    SharedVector<NodeId> origin;

    bool is_dispatch() const { return kind == NodeKind::dispatch; }
    bool is_barrier() const { return kind == NodeKind::barrier; }
    bool is_fence() const { return is_dispatch() && (fence || !ranges_known); }
    /// A barrier's scope: 0 for a full barrier (what GraphLens's own plans emit: it orders
    /// every hazard between compute dispatches), else 1 + the index of its BarrierScope in
    /// ComputeGraph::barrier_scopes (a recorded program's barrier orders what that covers).
    uint32_t barrier_scope() const { return is_barrier() ? kernel : 0; }
    static Node barrier(uint32_t scope = 0) {
        Node n;
        n.kind = NodeKind::barrier;
        n.kernel = scope;
        return n;
    }
};

/// Cache hints for a walk over many nodes (at 100k nodes their shared fields are no longer in
/// cache): walks call prefetch_fields on the node kPrefetchAhead steps ahead and, where they
/// read items of the fields, prefetch_ranges on the node half as far ahead. Walks that do
/// little per node look further ahead (kPrefetchAheadShortWork), so that the memory has time
/// to answer.
inline constexpr size_t kPrefetchAhead = 8;
inline constexpr size_t kPrefetchAheadShortWork = 32;
inline void prefetch_fields(const Node& n) {
    n.label.prefetch();
    n.bindings.prefetch();
    n.push_constants.prefetch();
    n.reads.prefetch();
    n.writes.prefetch();
    n.origin.prefetch();
}
inline void prefetch_ranges(const Node& n) {
    n.reads.prefetch_items();
    n.writes.prefetch_items();
}

static_assert(sizeof(Node) <= 72, "Node grew: see the order of its fields");
static_assert(sizeof(BoundView) == 72, "BoundView grew: set belongs in the padding after binding");

struct ComputeGraph {
    std::vector<AllocationInfo> allocations;
    std::vector<KernelInfo> kernels;
    std::vector<Node> nodes;
    /// Free-form facts about the workload ("model", "phase", "device", ...).
    std::map<std::string, std::string> metadata;
    /// Scopes of the barriers recorded from a program (Node::barrier_scope()); empty when
    /// every barrier is a full one.
    std::vector<BarrierScope> barrier_scopes;
    /// Dispatches whose workgroup counts the recorder could not read (an indirect dispatch's
    /// arguments), by node id, with why. Such a dispatch is stored with counts 0,0,0: its
    /// ranges are as bound, so the passes analyse it, but it cannot be replayed. Kept here
    /// rather than in Node, which has no byte to spare.
    std::map<NodeId, std::string> unknown_workgroups;

    size_t dispatch_count() const;
    size_t barrier_count() const;
    /// Next NodeId not yet used by any dispatch (origin ids included).
    NodeId next_node_id() const;

    AllocationId add_allocation(std::string name, uint64_t size, AllocationUsage usage);
    /// Returns the id of an existing kernel with the same name, or adds it.
    KernelId add_kernel(const KernelInfo& kernel);
    /// Appends a dispatch. Fills reads/writes from bindings and kernel access, assigns id and
    /// origin when they are unset (origin empty). Returns the node's index.
    size_t add_dispatch(Node node);
    size_t add_barrier();
    /// Appends a barrier that orders only what `scope` covers.
    size_t add_barrier(BarrierScope scope);
    /// The scope of barrier node `n`, nullptr for a full barrier.
    const BarrierScope* scope_of(const Node& n) const {
        const uint32_t s = n.barrier_scope();
        return s == 0 || s > barrier_scopes.size() ? nullptr : &barrier_scopes[s - 1];
    }
    /// The stage a dispatch's commands run in (its kernel's stage; compute when unknown).
    uint8_t stage_of(const Node& n) const {
        return n.kernel < kernels.size() ? kernels[n.kernel].stage : uint8_t{kStageCompute};
    }

    /// Recomputes reads/writes of one dispatch from its bindings and kernel access.
    void derive_ranges(Node& node) const;
    /// Structural checks: kernel ids exist, allocation ids exist, every range lies inside its
    /// allocation, dispatch ids are unique. Returns one message per problem (empty = valid).
    std::vector<std::string> validate() const;
    /// The same graph without any barrier nodes.
    ComputeGraph without_barriers() const;
};

}  // namespace graphlens
