#pragma once
// GraphSession: one forward pass worth of dispatches, either recorded straight into a
// command buffer (GraphExecutor::begin) or captured as a ComputeGraph and replayed at
// finish (GraphExecutor::begin_recorded). Op code is identical in both modes.
//
// Barriers. With BarrierPolicy::automatic (the default) every dispatch first calls
// barrier_between() with the byte ranges its kernel's reflected bindings read and write,
// so a barrier is emitted exactly when the dispatch has a RAW/WAR/WAW hazard with the
// current concurrency group (ranges include view offsets; read-read never conflicts).
// BarrierPolicy::manual leaves that to the caller (the seed's semantics: call
// barrier_between(reads, writes) before a dispatch, or barrier()). every_dispatch puts a
// barrier between any two dispatches.
//
// Dropping a session without finish()/commit() is safe: nothing is submitted, the command
// buffer is reset when the recorder is reused.
//
// Ops are functions of a workload that call dispatch() (the LLM workload's are in
// workloads/llm/ops, graphlens/ops/ops.h); the session knows no op.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/conflict_tracker.h"
#include "graphlens/graph/tensor_view.h"
#include "graphlens/vulkan/command_encoder.h"

namespace graphlens {

class GraphExecutor;
class Device;
class DeviceMemory;
struct ExecuteOptions;
struct ExecutionTiming;
struct OptimizedFinish;  // graphlens/vulkan/graph_executor.h
struct PassOptions;      // graphlens/graph/pass_pipeline.h

enum class BarrierPolicy : uint8_t {
    automatic,       ///< barrier_between() with each dispatch's reflected ranges
    manual,          ///< caller calls barrier_between()/barrier() (seed semantics)
    every_dispatch,  ///< a barrier between every two dispatches
};

struct SessionOptions {
    BarrierPolicy barriers = BarrierPolicy::automatic;
    bool timestamps = true;  ///< timestamp queries around the command buffer
};

/// What finish_with_timing() measured, in nanoseconds.
struct SessionTiming {
    uint64_t encode_ns = 0;  ///< CPU: direct mode begin()..finish(); recorded mode the replay
    uint64_t gpu_ns = 0;     ///< GPU: timestamp queries (0 when the device has none)
    uint64_t wall_ns = 0;    ///< encode + submit + wait for the fence
    size_t dispatches = 0;
    size_t barriers = 0;
};

/// Work submitted by GraphSession::commit(); waits on destruction if not waited on.
class PendingWork {
  public:
    PendingWork() = default;
    PendingWork(PendingWork&&) noexcept;
    PendingWork& operator=(PendingWork&&) noexcept;
    ~PendingWork();
    void wait();
    bool valid() const { return recorder_ != nullptr; }

  private:
    friend class GraphSession;
    PendingWork(GraphExecutor* exec, std::unique_ptr<CommandRecorder> rec);
    GraphExecutor* executor_ = nullptr;
    std::unique_ptr<CommandRecorder> recorder_;
};

class GraphSession {
  public:
    GraphSession(GraphSession&&) noexcept;
    GraphSession& operator=(GraphSession&&) = delete;
    ~GraphSession();

    bool is_recording() const { return recording_; }
    bool is_finished() const { return finished_; }
    Device& device() const;
    DeviceMemory& memory() const;

    /// Validates and records one dispatch (after the barrier the policy asks for).
    void dispatch(const DispatchDesc& desc);
    /// Unconditional barrier; starts a new concurrency group.
    void barrier();
    /// Emits a barrier when a dispatch with these ranges would conflict with the current
    /// group, then adds the ranges to the group. Returns true when a barrier was emitted.
    bool barrier_between(std::span<const TensorView> reads, std::span<const TensorView> writes);
    bool barrier_between(std::span<const ByteRange> reads, std::span<const ByteRange> writes);
    /// Adds a dispatch's ranges to the current group without checking.
    void track_dispatch(std::span<const TensorView> reads, std::span<const TensorView> writes);

    size_t dispatch_count() const { return encoder_->dispatch_count(); }
    size_t barrier_count() const { return encoder_->barrier_count(); }
    /// [k] = number of concurrency groups with k dispatches (the open group included).
    std::vector<size_t> group_size_histogram() const;
    /// CPU ns spent in conflict checks (diagnostic).
    uint64_t tracker_ns() const { return tracker_ns_; }

    /// The graph captured so far (recording mode; throws in direct mode).
    const ComputeGraph& graph() const;
    /// Ends a recording session without running it and hands over the graph (with the
    /// allocation table of the session's DeviceMemory).
    ComputeGraph finish_recording();

    /// Submits and waits. Recording mode: replays the graph as recorded (encode_sequential).
    void finish();
    /// Submits without waiting.
    PendingWork commit();
    /// finish() plus timing.
    SessionTiming finish_with_timing();
    /// The seam for optimising finishes: recording mode only; `transform` turns the captured
    /// graph into the one to run (fuse, reorder, plan barriers ...), executed with
    /// `options` (e.g. recompute barriers, dual buffer). Returns the timing of the run.
    ExecutionTiming finish_transformed(const std::function<ComputeGraph(ComputeGraph)>& transform,
                                       const ExecuteOptions& options);

    /// The seed's finish_optimized: recording mode only; runs the PassPipeline (fuse with
    /// passes.recipes, reorder, plan barriers, split; every dispatch must state its ranges)
    /// on the captured graph and runs the final stage in two command buffers, the first
    /// submitted early. passes.recipes is the fusion table (a workload's, e.g. the LLM
    /// workload's ops::fusion_recipes()); an empty one fuses nothing. Returns the stages and the
    /// timing.
    OptimizedFinish finish_optimized(const PassOptions& passes);

  private:
    friend class GraphExecutor;
    GraphSession(GraphExecutor& executor, bool recording, const SessionOptions& options);
    void require_open(const char* what) const;
    void close_group();
    SessionTiming run_recorded_or_submit(bool wait);

    GraphExecutor* executor_ = nullptr;
    SessionOptions options_;
    bool recording_ = false;
    bool finished_ = false;
    std::unique_ptr<CommandRecorder> recorder_;  // direct mode
    std::unique_ptr<ComputeGraph> graph_;        // recording mode
    std::unique_ptr<CommandEncoder> encoder_;
    ConflictTracker tracker_;
    size_t open_group_ = 0;
    std::vector<size_t> histogram_;
    uint64_t tracker_ns_ = 0;
    std::chrono::steady_clock::time_point begun_;
};

}  // namespace graphlens
