#pragma once
// Recording dispatches and barriers.
//
// CommandRecorder wraps one reusable VkCommandBuffer (own pool, fence, timestamp queries and,
// without push descriptors, a descriptor pool). CommandEncoder is what ops talk to: in
// direct mode it records into a CommandRecorder, in capture mode it appends nodes to a
// ComputeGraph (reads/writes derived from the kernel's reflected binding access). Both
// modes validate a dispatch identically. The encode_* functions replay a ComputeGraph.
#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/conflict_tracker.h"
#include "graphlens/graph/kernel_info.h"
#include "graphlens/graph/op_kind.h"
#include "graphlens/graph/tensor_view.h"
#include "graphlens/vulkan/run_cancelled.h"

namespace graphlens {

class Device;
class DeviceMemory;
struct KernelPipeline;

/// Everything one dispatch needs; reads and writes follow from the kernel's bindings.
struct DispatchDesc {
    std::string kernel;                   ///< embedded kernel name, e.g. "add_f32"
    std::vector<BoundView> bindings;      ///< binding number -> view; every declared binding
    std::vector<uint8_t> push_constants;  ///< exactly the kernel's push-constant size
    std::array<uint32_t, 3> workgroups{1, 1, 1};
    OpKind op = OpKind::other;
    std::string label;  ///< model position, e.g. "blk.3.attn_q"
    /// The kernel's internal stages as its workload declares them (KernelInfo::stages); the
    /// catalog's reflection knows only the bindings. Empty: a kernel of one stage.
    std::vector<KernelStage> stages;
};

/// Checks a dispatch against its kernel: every declared binding bound exactly once, no
/// unknown binding, push-constant size, non-zero workgroup counts within the device limits
/// (when `facts_limits` is non-null), views inside their allocations. Throws
/// std::invalid_argument / std::out_of_range with a message naming kernel, binding and label.
void validate_dispatch(const KernelInfo& kernel, const std::vector<BoundView>& bindings,
                       const std::vector<uint8_t>& push_constants,
                       const std::array<uint32_t, 3>& workgroups, std::string_view label,
                       const std::vector<AllocationInfo>& allocations,
                       const uint32_t* max_workgroups = nullptr);

/// Whether a CommandRecorder's buffer is submitted itself or executed by a primary one.
enum class CommandLevel : uint8_t {
    primary,    ///< submitted to the queue; fence, timestamps, submission barrier
    secondary,  ///< recorded on its own (another thread), run by a primary's execute()
};

/// One reusable command buffer for the compute queue: primary (the default) or secondary.
class CommandRecorder {
  public:
    CommandRecorder(Device& device, DeviceMemory& memory,
                    CommandLevel level = CommandLevel::primary);
    ~CommandRecorder();
    CommandRecorder(const CommandRecorder&) = delete;
    CommandRecorder& operator=(const CommandRecorder&) = delete;

    /// Resets and begins recording. `timestamps`: write a timestamp at begin and at end.
    /// A secondary buffer takes no timestamps or profiles (the primary that runs it does); it
    /// must not be begun again while a submitted primary still runs it.
    /// `profile_dispatches`: additionally a barrier + timestamp after every dispatch, which
    /// serialises the GPU (per-dispatch profiling). `profile_groups`: a timestamp before every
    /// barrier (per-group timing; the barrier already makes the GPU wait there).
    void begin(bool timestamps, bool profile_dispatches = false, size_t expected_dispatches = 0,
               bool profile_groups = false);
    /// Records one dispatch (no validation here: CommandEncoder and the replay functions
    /// validate first). `node` is remembered for per-dispatch profiles.
    void dispatch(std::string_view kernel, const std::vector<BoundView>& bindings,
                  const std::vector<uint8_t>& push_constants,
                  const std::array<uint32_t, 3>& workgroups, std::string_view label,
                  NodeId node = 0);
    /// The same with the kernel's pipeline already looked up (device().kernels().get()): the
    /// replay functions resolve each of a graph's kernels once, not once a dispatch.
    void dispatch(const KernelPipeline& pipeline, const std::vector<BoundView>& bindings,
                  const std::vector<uint8_t>& push_constants,
                  const std::array<uint32_t, 3>& workgroups, std::string_view label,
                  NodeId node = 0);
    /// A compute->compute memory barrier (shader writes -> shader reads/writes).
    void barrier();
    /// Records the execution of secondary command buffers (vkCmdExecuteCommands) in a
    /// primary one. Barriers between them are the caller's (barrier()).
    void execute(std::span<const VkCommandBuffer> secondaries);
    /// Ends recording. A primary buffer gets the submission barrier that makes its writes
    /// visible to later submissions, transfers and the host.
    void end();
    void submit();  ///< submits (fence signalled on completion); does not wait
    /// Waits for the fence; no-op when nothing is in flight. With `cancelled`, it is asked
    /// before the wait and then every kCancelSliceMs while the GPU runs: true abandons the
    /// submission (abandon()) and throws RunCancelled, so a cancel ends even a submission of
    /// minutes within one slice.
    void wait(const CancelCheck& cancelled = {});
    bool in_flight() const { return in_flight_; }
    /// Gives up waiting for the submission in flight (nothing when none is): the recorder is
    /// not reused, and its destructor hands its objects to the device's retired work, to be
    /// destroyed once the fence signals, instead of waiting. Done by wait() on a cancel and by
    /// the executors to the other buffers of the execution a cancel ends.
    void abandon() { abandoned_ = in_flight_; }
    bool abandoned() const { return abandoned_; }
    /// How often a cancellable wait asks whether to go on: a cancel takes effect within this.
    static constexpr uint32_t kCancelSliceMs = 50;

    /// After wait(): GPU ns between the begin and end timestamps (0 without timestamps).
    uint64_t gpu_ns() const;
    /// After wait(), with profile_dispatches: per dispatch its node id and GPU interval
    /// relative to the begin timestamp.
    struct DispatchInterval {
        NodeId node;
        std::string label;
        uint64_t start_ns, end_ns;
    };
    std::vector<DispatchInterval> dispatch_intervals() const;
    /// After wait(), with profile_groups: one interval per concurrency group.
    struct GroupInterval {
        size_t first_dispatch, dispatches;
        std::string first_label;
        uint64_t start_ns, end_ns;
    };
    std::vector<GroupInterval> group_intervals() const;
    /// Raw begin timestamp in ns (device clock), for aligning several command buffers.
    uint64_t begin_timestamp_ns() const;
    uint64_t end_timestamp_ns() const;

    size_t dispatch_count() const { return dispatches_; }
    size_t barrier_count() const { return barriers_; }
    VkCommandBuffer handle() const { return cmd_; }
    /// Names the command buffer for debug tools (Device::name_object).
    void set_name(const std::string& name);
    Device& device() const { return device_; }
    DeviceMemory& memory() const { return memory_; }

  private:
    /// VK_SUCCESS once the fence has signalled, VK_TIMEOUT when `cancelled` said to stop
    /// waiting, else the error.
    VkResult wait_for_fence(const CancelCheck& cancelled) const;
    void write_timestamp(VkPipelineStageFlagBits stage);
    void ensure_query_capacity(uint32_t n);
    std::vector<uint64_t> read_timestamps() const;

    Device& device_;
    DeviceMemory& memory_;
    CommandLevel level_;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkCommandBuffer cmd_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    VkQueryPool queries_ = VK_NULL_HANDLE;
    uint32_t query_capacity_ = 0;
    uint32_t queries_used_ = 0;
    VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;  // fallback without push descriptors
    uint32_t descriptor_pool_sets_ = 0;
    uint32_t descriptor_sets_used_ = 0;
    std::vector<VkDescriptorPool> retired_pools_;
    bool timestamps_ = false;
    bool profile_ = false;
    bool profile_groups_ = false;
    struct GroupMark {
        size_t first_dispatch, dispatches;
        std::string first_label;
    };
    std::vector<GroupMark> groups_;
    bool in_flight_ = false;
    bool abandoned_ = false;  ///< in flight, no longer waited for (abandon())
    bool recording_ = false;
    size_t dispatches_ = 0;
    size_t barriers_ = 0;
    std::vector<std::pair<NodeId, std::string>> profiled_;
    VkPipeline bound_pipeline_ = VK_NULL_HANDLE;
    std::string last_kernel_;
    const KernelPipeline* last_pipeline_ = nullptr;
};

/// The target ops record into: a command buffer (direct) or a ComputeGraph (capture).
class CommandEncoder {
  public:
    /// Direct mode: dispatches are validated against `memory` and recorded into `recorder`.
    explicit CommandEncoder(CommandRecorder& recorder);
    /// Capture mode: dispatches become nodes of `graph`; views are checked against
    /// graph.allocations, which the caller keeps in sync with its DeviceMemory.
    explicit CommandEncoder(ComputeGraph& graph);

    bool is_capture() const { return graph_ != nullptr; }
    /// Validates and records one dispatch: record(prepare(desc)).
    const Node& dispatch(const DispatchDesc& desc) { return record(prepare(desc)); }
    /// Validates a dispatch and builds its node (kernel id, bindings sorted, reads and writes
    /// derived from the reflected access) without recording it, so a caller can decide on a
    /// barrier first. Throws with kernel, binding and label on invalid input.
    Node prepare(const DispatchDesc& desc);
    /// Records a node made by prepare() of this encoder. Returns the recorded node.
    const Node& record(Node node);
    void barrier();
    size_t dispatch_count() const { return dispatches_; }
    size_t barrier_count() const { return barriers_; }
    ComputeGraph* graph() const { return graph_; }
    CommandRecorder* recorder() const { return recorder_; }

  private:
    CommandRecorder* recorder_ = nullptr;
    ComputeGraph* graph_ = nullptr;
    ComputeGraph direct_kernels_;  // direct mode: kernels + derived ranges of the last node
    Node last_;
    size_t dispatches_ = 0;
    size_t barriers_ = 0;
};

// --- Replay of a ComputeGraph -------------------------------------------------------------

inline constexpr size_t kAllNodes = std::numeric_limits<size_t>::max();

struct ReplayCounts {
    size_t dispatches = 0;
    size_t barriers = 0;
};

/// Checks that `graph` can run on `memory`: kernels exist in the catalog with the same
/// bindings and, where the graph records it, the same SPIR-V hash; allocations exist and are
/// large enough, every dispatch validates. Throws with
/// the node index and label of the first problem.
void validate_for_replay(const ComputeGraph& graph, const DeviceMemory& memory);

/// Nodes [first, last) as recorded: a dispatch per dispatch node, a barrier per barrier node.
ReplayCounts encode_sequential(const ComputeGraph& graph, CommandRecorder& rec, size_t first = 0,
                               size_t last = kAllNodes);
/// Nodes [first, last) ignoring recorded barriers: a barrier is emitted exactly when the next
/// dispatch conflicts with the current group (`tracker`, carried across calls so a split
/// graph plans like an unsplit one).
ReplayCounts encode_with_barriers(const ComputeGraph& graph, CommandRecorder& rec,
                                  ConflictTracker& tracker, size_t first = 0,
                                  size_t last = kAllNodes);
/// A barrier after every dispatch (the `serial` mode); recorded barriers are ignored.
ReplayCounts encode_serial(const ComputeGraph& graph, CommandRecorder& rec, size_t first = 0,
                           size_t last = kAllNodes);
/// No barriers at all. Wrong on purpose: only for proving that synchronization validation
/// catches a missing barrier.
ReplayCounts encode_without_barriers(const ComputeGraph& graph, CommandRecorder& rec);

/// Dispatches in the first command buffer of a dual-buffer encode: max(min_first,
/// dispatches / divisor), at most `dispatches` (llama.cpp's split).
size_t dual_buffer_split(size_t dispatches, size_t min_first = 64, size_t divisor = 10);
/// Index of the node just after the `first_dispatches`-th dispatch.
size_t node_index_after_dispatches(const ComputeGraph& graph, size_t first_dispatches);

struct DualBufferOptions {
    size_t first_dispatches = 0;  ///< 0 = dual_buffer_split(dispatches)
    bool recompute_barriers = false;
    bool timestamps = true;
};
/// Encodes the first part into `first`, submits it at once (the GPU starts while the CPU
/// encodes the rest), encodes the rest into `second` and submits it. The caller waits on
/// both. Returns the counts of both parts together.
ReplayCounts encode_dual_buffer(const ComputeGraph& graph, CommandRecorder& first,
                                CommandRecorder& second, const DualBufferOptions& options = {});

/// Dispatches per command buffer of a stream encode: `first`, then each buffer `growth` times
/// the one before (rounded up), the last taking what is left. Sums to `dispatches`; empty
/// when there are none. Growth 4 (8, 32, 128, ...): every boundary costs GPU time, and
/// encoding stays ahead of the GPU with buffers 4 times larger (docs/benchmarks.md §1).
std::vector<size_t> stream_chunk_dispatches(size_t dispatches, size_t first = 8,
                                            double growth = 4.0);

/// The chunks moved to group ends: each buffer but the last ends at a barrier of the plan
/// (at or after its share of dispatches), so a boundary never splits a concurrency group with a
/// submission barrier the plan does not have. Sums to the graph's dispatch count.
std::vector<size_t> align_stream_chunks(const ComputeGraph& graph, std::span<const size_t> chunks);

struct StreamOptions {
    std::vector<size_t> chunk_dispatches;  ///< from stream_chunk_dispatches()
    bool recompute_barriers = false;
    bool timestamps = true;
};
/// Encodes consecutive parts of `graph` into recorders[0], recorders[1], ... holding
/// chunk_dispatches[i] dispatches each, and submits each buffer as soon as it is recorded:
/// the GPU starts after the first few dispatches are encoded and then runs while the CPU
/// encodes the rest (encode cost hidden behind execution, as long as encoding a buffer takes
/// less time than executing the ones before it). The submission barrier at the end of each
/// buffer orders everything across the boundary, so barrier nodes at a boundary are not
/// recorded. Needs one recorder per chunk; the caller waits on all.
ReplayCounts encode_stream(const ComputeGraph& graph, std::span<CommandRecorder* const> recorders,
                           const StreamOptions& options);

/// Where a parallel encode cuts the nodes of `graph` from `first_node` on for `slices`
/// threads: node indices first_node = b_0 < b_1 < ... < b_k = nodes.size() (k <= slices; k = 0
/// when no node is left), each inner cut at a barrier node of the plan, at or after its share
/// of the dispatches, so that a slice never splits a concurrency group. Slice i is nodes
/// [b_i, b_{i+1}); the barrier node a slice starts with is recorded between the slices by the
/// primary buffer.
std::vector<size_t> parallel_slice_bounds(const ComputeGraph& graph, size_t slices,
                                          size_t first_node = 0);

}  // namespace graphlens
