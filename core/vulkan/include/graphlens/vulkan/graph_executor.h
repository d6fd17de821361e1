#pragma once
// GraphExecutor: owns the command recorders of one Device + DeviceMemory pair, starts
// GraphSessions, and executes ComputeGraphs in the ways the Runner's modes need. The
// executor must outlive its sessions.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/snapshot.h"
#include "graphlens/results/run_result.h"
#include "graphlens/vulkan/command_encoder.h"
#include "graphlens/vulkan/graph_session.h"
#include "graphlens/vulkan/run_cancelled.h"

namespace graphlens {

class Device;
class DeviceMemory;
class RecordingThreads;

enum class BarrierSource : uint8_t {
    recorded,        ///< the graph's barrier nodes (encode_sequential)
    recompute,       ///< only where ranges conflict (encode_with_barriers)
    every_dispatch,  ///< after every dispatch (serial)
    none,            ///< none at all: wrong on purpose, proves the validation oracle
};

enum class SubmitMode : uint8_t {
    single,        ///< one command buffer
    dual_buffer,   ///< first part submitted early, rest in a second command buffer
    per_dispatch,  ///< a command buffer, a submit and a wait per dispatch
    stream,        ///< command buffers of growing size, each submitted once recorded
    /// slices recorded at once into secondary command buffers by parallel_threads threads,
    /// executed by one primary buffer (after an early one of parallel_first dispatches, when
    /// asked for); recorded barriers only
    parallel,
    /// a decode loop's steps (execute_steps): step i + 1 recorded into a second command buffer
    /// while step i executes, and submitted once step i's fence has signalled (or at once:
    /// ExecuteOptions::queue_steps); execute() runs one step
    ahead,
};

struct ExecuteOptions {
    BarrierSource barriers = BarrierSource::recorded;
    SubmitMode submit = SubmitMode::single;
    size_t first_dispatches = 0;  ///< dual buffer: 0 = max(64, n/10)
    size_t stream_first = 8;      ///< stream: dispatches in the first command buffer
    double stream_growth = 4.0;   ///< stream: each buffer this many times the one before
    /// parallel: recording threads, the caller's included; 0 = the hardware's, at most 4
    /// (NVIDIA's driver records about 2x faster with 4 or 8 threads than with one, no faster
    /// with more: docs/benchmarks.md)
    size_t parallel_threads = 0;
    /// parallel: dispatches (to the next group end) recorded and submitted in a primary buffer
    /// of their own first, so the GPU starts while the threads record the rest; 0 = none (one
    /// submission)
    size_t parallel_first = 0;
    /// execute_steps: step i + 1 is submitted as soon as it is recorded, before step i's
    /// completion is waited for, so the queue runs the steps back to back (each buffer's
    /// submission barrier orders a step after the one before). For a loop whose steps need
    /// nothing from the host in between, such as a decode loop whose sampler leaves the token
    /// on the GPU. A step's gpu_ns then starts where the queue reached its buffer, possibly
    /// while the step before still ran; its wall_ns is measured as without.
    bool queue_steps = false;
    bool timestamps = true;
    /// Barrier + timestamp after every dispatch (serialises the GPU).
    bool profile_dispatches = false;
    /// A timestamp before every barrier: GPU time per concurrency group (single buffer only).
    bool profile_groups = false;
    /// What the execution is, e.g. the execution mode "levels_split": its command buffers carry
    /// it as their debug-utils name ("levels_split: buffer 2 of 2") for RenderDoc and Nsight.
    /// Empty = "graphlens".
    std::string name = {};
    /// Asked while the host waits for the GPU (CommandRecorder::wait: before each wait and
    /// every 50 ms of it): true abandons the execution's submissions where they are and throws
    /// RunCancelled at once. The GPU finishes them on its own; their command buffers go to the
    /// device's retired work, and so does whatever the caller destroys next that they use
    /// (DeviceMemory, ForeignProgram). The memory they write is not to be read or written
    /// until Device::retired_work() has nothing pending. Empty: never cancelled.
    CancelCheck cancelled = {};
};

struct ExecutionTiming {
    /// CPU time recording command buffers (sum over buffers); parallel: the time from the
    /// start to the primary buffer recorded, the slices' threads overlapping
    uint64_t encode_ns = 0;
    uint64_t gpu_ns = 0;   ///< GPU time from timestamps: sum over command buffers
    uint64_t wall_ns = 0;  ///< from the start of encoding to the last fence signalled
    size_t dispatches = 0;
    size_t barriers = 0;         ///< barriers between dispatches (submission barriers excluded)
    size_t command_buffers = 0;  ///< submitted ones; parallel: the primaries and secondaries
    std::vector<DispatchTiming> per_dispatch;  ///< with profile_dispatches
    std::vector<GroupTiming> per_group;        ///< with profile_groups
    /// execute_steps: when this step's recording began and when the CPU saw it complete, on
    /// the steady clock, ns since the first step's recording began
    uint64_t record_begin_ns = 0;
    uint64_t complete_ns = 0;
};

/// What GraphSession::finish_optimized ran and measured.
struct OptimizedFinish {
    std::vector<Snapshot> stages;  ///< the pass pipeline's stages, "captured" first
    ExecutionTiming timing;        ///< of the final stage, dual command buffers
};

class GraphExecutor {
  public:
    GraphExecutor(Device& device, DeviceMemory& memory);
    ~GraphExecutor();
    GraphExecutor(const GraphExecutor&) = delete;
    GraphExecutor& operator=(const GraphExecutor&) = delete;

    /// Direct mode: ops record straight into a command buffer.
    GraphSession begin(const SessionOptions& options = {});
    /// Capture mode: ops become nodes of a ComputeGraph, replayed at finish.
    GraphSession begin_recorded(const SessionOptions& options = {});

    /// Validates `graph` against the memory (validate_for_replay), encodes it as `options`
    /// say, submits, waits and measures. Outputs stay in the DeviceMemory.
    ExecutionTiming execute(const ComputeGraph& graph, const ExecuteOptions& options = {});

    /// Runs `steps` executions of `graph` the way a decode loop runs its tokens: while step i
    /// executes, the CPU records step i + 1 into a second command buffer, then waits for step
    /// i's fence (where a loop reads the logits and samples) and submits step i + 1. Every
    /// step is recorded anew, so its recording is paid, hidden behind the GPU's work on the
    /// step before. Per step: encode_ns its recording, gpu_ns its timestamps, wall_ns from the
    /// previous step's completion (step 0: from its own recording's start) to its own, which in
    /// a steady loop is the time per token. One command buffer a step, options.barriers as for
    /// SubmitMode::single; the profiles are refused. Validates like execute().
    std::vector<ExecutionTiming> execute_steps(const ComputeGraph& graph,
                                               const ExecuteOptions& options, size_t steps);

    /// The graph of step i of a loop, asked for just before step i is recorded (for i > 0
    /// while step i - 1 executes); it must stay unchanged until that recording is done.
    using StepGraph = std::function<const ComputeGraph&(size_t step)>;
    /// execute_steps for steps whose graphs differ in per-step values (a decode loop's KV
    /// length and cache slot: one plan, each token's values written into it): each step's
    /// graph is validated and recorded when its turn comes, the rest as above.
    std::vector<ExecutionTiming> execute_steps(const StepGraph& step_graph,
                                               const ExecuteOptions& options, size_t steps);

    Device& device() const { return device_; }
    DeviceMemory& memory() const { return memory_; }

    /// A reset recorder from the free list (or a new one); return it with release(). A
    /// non-empty `name` becomes its command buffer's debug-utils name.
    std::unique_ptr<CommandRecorder> acquire(const std::string& name = {});
    /// Waits for it and puts it on the free list; an abandoned one (a cancelled wait) is
    /// dropped instead, which hands it to the device's retired work.
    void release(std::unique_ptr<CommandRecorder> recorder);

  private:
    /// Both execute_steps: `validate_each` validates every step's graph (else only step 0's).
    std::vector<ExecutionTiming> run_steps(const StepGraph& step_graph,
                                           const ExecuteOptions& options, size_t steps,
                                           bool validate_each);
    ExecutionTiming execute_parallel(const ComputeGraph& graph, const ExecuteOptions& options);

    Device& device_;
    DeviceMemory& memory_;
    std::mutex mutex_;
    std::vector<std::unique_ptr<CommandRecorder>> free_;
    std::vector<std::unique_ptr<CommandRecorder>> free_secondaries_;
    std::unique_ptr<RecordingThreads> threads_;  ///< SubmitMode::parallel, made on first use
};

}  // namespace graphlens
