#pragma once
// Replay of a recorded program's graph (a capture the capture layer made, `graphlens-cli
// record`): its own kernels and commands run on this device in the program's own plan and in
// GraphLens's plans, every plan's final bytes compared bitwise with the program's own, each
// timed like the Runner times GraphLens's graphs.
//
// Modes:
//   as-recorded     the program's order and barriers (their scopes), one command buffer per
//                   recorded submission, each waited for by the host before the next
//                   (its GPU time is the sum of the buffers', its wall includes the waits:
//                   docs/architecture.md, "What as-recorded's times include")
//   one-submission  the program's order and barriers, all in one command buffer
//   per-op-submit   a command buffer, a submission and a wait per command
//   serial          a full barrier after every command
//   elided          the program's order, a barrier only where byte ranges conflict
//   greedy, levels  the reorders, barriers planned (fusion off: GraphLens has no recipes for
//                   another program's kernels)
//   levels+split    levels in two command buffers, the first submitted early
//   levels+stream   levels in command buffers of growing size, each submitted once recorded
//   levels+parallel levels in slices recorded at once by threads into secondary command
//                   buffers, run in order by one primary buffer
//   levels+ahead    levels as a loop of steps: step i + 1 recorded while step i runs, then
//                   submitted once step i's fence has signalled (its timings are per step)
// `fused` is not offered for a recorded program (GraphLens has no recipes for its kernels).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphlens/capture/buffer_data.h"
#include "graphlens/capture/capture_file.h"
#include "graphlens/graph/compute_graph.h"
#include "graphlens/results/run_result.h"
#include "graphlens/vulkan/device_requirements.h"

namespace graphlens {

class Device;

enum class ForeignMode : uint8_t {
    as_recorded,
    one_submission,
    per_op_submit,
    serial,
    elided,
    greedy,
    levels,
    levels_split,
    levels_stream,
    levels_parallel,
    levels_ahead,
};

std::string_view foreign_mode_name(ForeignMode m);  ///< "as-recorded", ..., "levels+ahead"
std::vector<ForeignMode> all_foreign_modes();
/// "all" or a comma-separated list of names; throws std::invalid_argument naming the unknown
/// entry (or saying why a GraphLens mode such as `fused` does not apply) and listing the
/// valid ones.
std::vector<ForeignMode> parse_foreign_modes(std::string_view list);

/// What the device must enable to run the graph's kernels as the program ran them: the
/// program's device extensions and features (`source`, when the capture has one),
/// subgroupSizeControl where a kernel requires a subgroup size, and bufferDeviceAddress where
/// an allocation is marked `device_address`.
DeviceRequirements foreign_requirements(const ComputeGraph& graph, const CaptureSource* source);

struct ForeignRunOptions {
    std::vector<ForeignMode> modes = all_foreign_modes();
    uint32_t warmup = 2;
    double warmup_ms = 200;
    uint32_t repeats = 20;
    size_t greedy_window = 64;
    size_t split_min_first = 64;
    double split_fraction = 0.1;
    size_t stream_first = 8;
    double stream_growth = 4.0;
    size_t parallel_threads = 0;  ///< levels+parallel: recording threads (0 = up to 4)
    /// The program's submissions (as-recorded); none = one submission.
    std::vector<CaptureSubmission> submissions;
    /// The buffers' contents at the start of the captured range (`record --data`); absent =
    /// every buffer starts zeroed, and the result's notes say so.
    const BufferData* data = nullptr;
    /// Keep as-recorded's final bytes (ForeignRunResult::final_bytes).
    bool keep_final_bytes = false;
    std::string workload;
    std::function<void(std::string_view)> progress;
    std::function<bool()> cancelled;
};

struct ForeignRunResult {
    /// Modes in ForeignMode order; `comparison` against as-recorded.
    RunResult run;
    /// Validation-layer errors (synchronization hazards included) per mode of run.modes,
    /// with the first few messages; all zero without GRAPHLENS_VALIDATION.
    std::vector<size_t> validation_errors;
    std::vector<std::vector<std::string>> validation_messages;
    /// How the replay differs from the program, and what the reader must know to trust the
    /// comparison: zeroed buffers, fusion off, kernels with atomics, allocations whose bytes
    /// differ between two runs of as-recorded.
    std::vector<std::string> notes;
    /// Names of allocations as-recorded does not compute the same way twice.
    std::vector<std::string> nondeterministic;
    /// With keep_final_bytes: every allocation the graph writes, whole, as as-recorded left it.
    BufferData final_bytes;
};

/// Creates the graph's allocations in fresh memory of `device`, builds its pipelines
/// (ForeignProgram), loads the initial contents and runs the modes. Throws when the graph
/// cannot run here (naming the kernel or node); a mode that fails or changes the final bytes is
/// an error of that mode only.
ForeignRunResult run_foreign_capture(Device& device, const ComputeGraph& graph,
                                     const ForeignRunOptions& options);

}  // namespace graphlens
