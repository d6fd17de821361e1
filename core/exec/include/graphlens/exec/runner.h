#pragma once
// The Runner executes one captured ComputeGraph in several execution modes and times each:
// GPU time from timestamp queries, CPU encode time and wall time, over warm-up runs and N
// timed repeats. Before timing, every mode runs once from the same initial memory state and
// its outputs are compared with `serial`: bitwise when the arithmetic is unchanged, within
// tolerance when fused kernels ran. A mode that changes results is reported as an error
// (outputs_match = false plus the first difference), not as a timing.
//
// Memory: the Runner runs in a DeviceMemory that holds the graph's allocations (the one the
// graph was recorded with, or DeviceMemory::recreate(graph) for a capture made elsewhere).
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "graphlens/exec/execution_mode.h"
#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/fusion.h"
#include "graphlens/results/run_result.h"
#include "graphlens/vulkan/graph_executor.h"
#include "graphlens/vulkan/run_cancelled.h"

namespace graphlens {

class Device;
class DeviceMemory;

enum class InitialData : uint8_t {
    /// Every allocation filled with seeded random values of the dtype it is bound with
    /// (f32/f16 in [-1, 1], integers in [0, 8), quantized blocks with small scales).
    random,
    /// Keep what the memory holds (uploaded weights and inputs).
    keep,
    // Either way, the allocations the graph writes are saved once and restored before every
    // mode's comparison run, so each mode starts from the same bytes.
};

/// A mode's graph and how to encode it.
struct ModePlan {
    ExecutionMode mode = ExecutionMode::serial;
    ComputeGraph graph;
    ExecuteOptions execute;
    size_t fusions_applied = 0;
    size_t reordered = 0;
};

struct RunnerOptions {
    std::vector<ExecutionMode> modes = all_execution_modes();
    uint32_t warmup = 2;     ///< untimed runs per mode, at least
    double warmup_ms = 200;  ///< and at least this much wall time of untimed runs per mode
    uint32_t repeats = 20;
    uint64_t seed = 1;
    InitialData initial = InitialData::random;
    /// Fused modes: |a - b| <= abs_tolerance + rel_tolerance * max(|a|, |b|, rms) per element,
    /// rms = root mean square of the reference values of the written piece (one binding's
    /// range): near-zero results of long sums are judged at the scale of their neighbours.
    double rel_tolerance = 1e-3;
    double abs_tolerance = 1e-5;
    /// The fused modes' fusion table: the workload's fused kernels (the LLM workload's
    /// ops::fusion_recipes()). Empty: the fused modes fuse nothing.
    std::vector<FusionRecipe> fusion_recipes;
    size_t greedy_window = 64;  ///< lookahead of the greedy reorder
    size_t split_min_first = 64;
    double split_fraction = 0.1;
    size_t stream_first = 8;      ///< levels+stream: dispatches in the first command buffer
    double stream_growth = 4.0;   ///< levels+stream: each buffer this many times the one before
    size_t parallel_threads = 0;  ///< levels+parallel: recording threads (0 = up to 4)
    size_t parallel_first = 0;    ///< levels+parallel: dispatches submitted first (0 = none)
    /// Also run the per-dispatch profile (timestamp + barrier after every dispatch of the
    /// serial graph; serialises the GPU) into RunResult::per_dispatch.
    bool profile_dispatches = false;
    /// Also time every concurrency group of one mode's graph (a timestamp at each barrier)
    /// into RunResult::per_group; a two-buffer mode is profiled as one buffer.
    bool profile_groups = false;
    ExecutionMode group_profile_mode = ExecutionMode::levels;
    std::string workload;  ///< RunResult::workload; empty = from graph.metadata
    /// Called with each mode's plan before it runs (not for the serial reference): lets tests
    /// and experiments alter a schedule; the comparison with serial then judges it.
    std::function<void(ModePlan&)> adjust_plan;
    /// Progress lines ("serial: timing 5/20"); may be empty.
    std::function<void(std::string_view)> progress;
    /// Asked before every execution of a graph (reference, check, warm-up and timed runs),
    /// before every mode and its planning, before each allocation the random initial data
    /// fills and each profile, and every 50 ms while the host waits for the GPU
    /// (ExecuteOptions::cancelled); true ends the run with RunCancelled within that, even in
    /// the middle of a submission of minutes: the submission is abandoned to the GPU and its
    /// objects to the device's retired work (Device::retired_work). May be empty.
    std::function<bool()> cancelled;
};

class Runner {
  public:
    Runner(Device& device, DeviceMemory& memory);

    /// The graph and encode options of one mode (runs the pass pipeline where needed).
    static ModePlan plan(const ComputeGraph& captured, ExecutionMode mode,
                         const RunnerOptions& options = {});

    /// Runs the requested modes (serial always runs, as the reference for comparisons, but
    /// appears in the result only when requested). Errors of one mode land in its
    /// ModeResult::error; the others still run.
    RunResult run(const ComputeGraph& captured, const RunnerOptions& options = {});

    GraphExecutor& executor() { return executor_; }

  private:
    Device& device_;
    DeviceMemory& memory_;
    GraphExecutor executor_;
};

/// Fills every allocation the graph uses with seeded random values of the dtype it is bound
/// with (see InitialData::random). Deterministic for a (graph, seed) pair. Views some
/// dispatch binds read-write stay zero: they are a kernel's own state across runs
/// (flash_attn_vec's arrival counters must start at zero; its partials are rewritten).
/// `cancelled` is asked before each allocation (a model's weights take seconds to generate
/// on a CPU): true ends it with RunCancelled.
void fill_random(DeviceMemory& memory, const ComputeGraph& graph, uint64_t seed,
                 const std::function<bool()>& cancelled = {});

}  // namespace graphlens
