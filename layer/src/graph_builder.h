#pragma once
// Builds the capture's graph from the commands of submissions inside the captured range.
// Descriptors were resolved when recorded; here each binding the kernel really uses
// (reflection) becomes a byte range of an allocation, which is a VkDeviceMemory: offset =
// the buffer's memory offset + the descriptor's offset + its dynamic offset. Whatever cannot
// be stated exactly makes the node's ranges unknown and a note says why: the layer never
// guesses.
// While the range is open the graph is kept as compact records (recorded_node.h); the core
// graph's nodes are built from them once, when the capture is written.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "graphlens/capture/capture_file.h"
#include "graphlens/graph/compute_graph.h"
#include "layer/src/bind_state.h"
#include "layer/src/buffer_snapshot.h"
#include "layer/src/command_resolution.h"
#include "layer/src/layer_state.h"
#include "layer/src/record_storage.h"
#include "layer/src/recorded_node.h"

namespace graphlens::layer {

class GraphBuilder {
  public:
    GraphBuilder() { payloads_.intern({}); }  // number 0: nothing bound, pushed or touched

    void dispatch(const ResolvedDispatch& cmd, const BindState& bound, const std::string& label);
    void transfer(const ResolvedTransfer& cmd, const std::string& label);
    void barrier(const ResolvedBarrier& cmd);
    void submission_barrier(BarrierScope scope);
    /// Adds a note, once per text: a repeat only counts the further nodes it concerns.
    void note(std::optional<NodeId> node, const std::string& text);

    size_t node_count() const { return nodes_.size(); }
    size_t dispatch_count() const { return dispatches_; }
    /// The VkDeviceMemory of each allocation, by allocation id.
    const std::vector<std::shared_ptr<const MemoryState>>& allocation_memories() const {
        return allocation_memory_;
    }
    /// Sets the workgroup counts of the indirect dispatches from `contents_at_start` (the
    /// buffers' contents when the range began; null without GRAPHLENS_CAPTURE_DATA) where no
    /// command of the range before the dispatch may write its arguments; the others keep
    /// 0,0,0, are marked in the graph's unknown_workgroups and a note says why they are
    /// unknown. Called once, before finish.
    void read_indirect_counts(const BufferSnapshot* contents_at_start);
    /// Names allocations and kernels from the debug-utils names the program gave (it may name
    /// objects after recording them) and hands the graph and notes over.
    ComputeGraph finish(const DeviceState* device, std::vector<CaptureNote>& notes);

  private:
    struct Resolved {
        std::optional<ByteRange> range;
        std::string why;  ///< set when range is not
    };
    Resolved resolve(const BufferSpan& span) {
        return resolve(span.buffer, span.offset, span.size);
    }
    Resolved resolve(const std::shared_ptr<BufferState>& buffer, uint64_t offset, uint64_t size);
    Resolved resolve_descriptor(const DescriptorEntry& entry, uint32_t dynamic_offset);
    AllocationId allocation_of(const std::shared_ptr<BufferState>& buffer);
    KernelId kernel_of(const PipelineState& pipeline);
    KernelId transfer_kernel(const std::string& name);
    /// Fills the payload's bindings (or explicit ranges for descriptor arrays); returns why
    /// the ranges are unknown, or an empty string.
    std::string bind_views(const PipelineState& pipeline, const BindState& bound,
                           RecordedPayload& payload);
    NodeId next_id() { return next_id_++; }
    /// The label's number: one shared string per distinct text, as a program repeats its
    /// labels every step.
    uint32_t label_of(const std::string& text);
    void add_barrier(BarrierOrigin origin, const std::string& note,
                     std::span<const MemoryDependency> dependencies);
    /// The core graph's nodes and barrier scopes from the records (once, before the graph is
    /// read or handed over).
    void build_nodes();
    /// The Node of dispatch record `index`; next_indirect walks indirect_ alongside.
    Node dispatch_node(const RecordedNode& record, NodeId id, size_t index,
                       size_t& next_indirect) const;

    /// The earliest node before `index` that writes `bytes` or whose ranges are unknown.
    std::optional<size_t> earlier_writer(size_t index, const ByteRange& bytes) const;

    struct IndirectDispatch {
        size_t index = 0;               ///< of the node in graph_.nodes
        std::optional<ByteRange> args;  ///< the 12 bytes of VkDispatchIndirectCommand
    };
    std::vector<IndirectDispatch> indirect_;
    /// Allocations and kernels while recording; the nodes too after build_nodes.
    ComputeGraph graph_;
    StableVector<RecordedNode> nodes_;
    RecordArena arena_;
    InternedArrays<RecordedView> views_{arena_};
    InternedArrays<uint8_t> bytes_{arena_};
    InternedArrays<ByteRange> ranges_{arena_};
    InternedArrays<MemoryDependency> dependencies_{arena_};
    InternedValues<RecordedPayload> payloads_;
    InternedValues<RecordedBarrier> barriers_;
    bool nodes_built_ = false;
    /// Reused for every dispatch and barrier before its arrays are interned.
    std::vector<RecordedView> views_scratch_;
    std::vector<ByteRange> reads_scratch_, writes_scratch_;
    std::vector<MemoryDependency> dependencies_scratch_;
    std::map<const MemoryState*, AllocationId> allocations_;
    std::vector<std::shared_ptr<const MemoryState>> allocation_memory_;
    std::vector<std::vector<uint64_t>> allocation_buffers_;  ///< buffer handles seen, by id
    /// The allocation of each buffer seen, found again without the allocations' lookups; the
    /// states are kept so that no other buffer's state takes one's address.
    std::unordered_map<const BufferState*, AllocationId> buffer_allocations_;
    std::vector<std::shared_ptr<const BufferState>> buffers_seen_;
    std::unordered_map<const PipelineState*, KernelId> kernels_;
    std::vector<std::shared_ptr<const PipelineState>> kernel_pipelines_;  ///< by kernel id
    std::map<std::string, KernelId> transfer_kernels_;
    std::vector<CaptureNote> notes_;
    std::map<std::string, std::pair<size_t, size_t>> note_counts_;  ///< text → (index, count)
    std::unordered_map<std::string, uint32_t> label_numbers_;
    std::vector<SharedString> labels_;
    /// By label number: the label of the node that came after one with it, last time; a
    /// program labels every step's nodes in the same order, so this is checked first.
    std::vector<uint32_t> next_label_;
    uint32_t last_label_ = 0;
    std::unordered_map<std::string, uint32_t> barrier_note_numbers_;
    std::vector<std::string> barrier_notes_;
    NodeId next_id_ = 0;
    size_t dispatches_ = 0;
};

}  // namespace graphlens::layer
