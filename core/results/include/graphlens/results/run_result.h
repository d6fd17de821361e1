#pragma once
// Results of executing a graph in one or more execution modes. Plain data, produced by the
// Runner (exec layer), stored in capture files, shown by reports and the GUI.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graphlens/graph/compute_graph.h"

namespace graphlens {

/// Summary of repeated measurements, in nanoseconds.
struct TimingSummary {
    double median = 0, min = 0, max = 0;
    std::vector<double> samples;  ///< one per timed repeat, in run order
    /// Fills median/min/max from samples.
    static TimingSummary from_samples(std::vector<double> samples);
};

/// The first output byte a mode left different from `serial`, and who wrote it there: what
/// a user needs to find the pass or kernel at fault.
struct OutputMismatch {
    std::string allocation;  ///< its name
    uint64_t byte = 0;       ///< offset of the first differing byte (of its element)
    std::string expected;    ///< serial's value there (a number, or the byte in hex)
    std::string actual;      ///< the mode's value
    /// The dispatch of the captured graph that last writes the byte in serial order.
    std::optional<NodeId> last_writer;
    std::string last_writer_label;
    friend bool operator==(const OutputMismatch&, const OutputMismatch&) = default;
};

struct ModeResult {
    std::string
        mode;  ///< "per-op-submit", "serial", "elided", "fused", "greedy", "levels", "levels+split"
    TimingSummary gpu_ns;     ///< from timestamp queries
    TimingSummary encode_ns;  ///< CPU time to record the command buffer(s)
    TimingSummary wall_ns;    ///< submit to fence signalled, plus encode
    size_t dispatches = 0;
    size_t barriers = 0;
    size_t command_buffers = 0;
    /// Output comparison against `serial`: "bitwise", "within tolerance (max rel err …)",
    /// or an error; outputs_match false makes the mode's timing meaningless.
    bool outputs_match = true;
    std::string comparison;
    std::optional<OutputMismatch> mismatch;  ///< set when outputs_match is false
    std::string error;                       ///< non-empty when the mode failed to run
};

/// One dispatch's GPU interval from the per-dispatch profiling mode (which serialises the GPU).
struct DispatchTiming {
    NodeId node = 0;
    std::string label;
    OpKind op = OpKind::other;
    double start_ns = 0;  ///< relative to the first timestamp of the run
    double end_ns = 0;
};

/// One concurrency group's GPU interval (the dispatches between two barriers) from the
/// per-group profile: a timestamp at every barrier, where the GPU waits anyway.
struct GroupTiming {
    size_t first_dispatch = 0;  ///< index of the group's first dispatch among the dispatches
    size_t dispatches = 0;
    std::string first_label;
    double start_ns = 0;  ///< relative to the first timestamp of the run
    double end_ns = 0;
};

struct RunResult {
    std::string device;    ///< device name and driver
    std::string workload;  ///< e.g. "llama-3.2-1b decode ctx=512"
    uint32_t warmup = 0;
    uint32_t repeats = 0;
    std::vector<ModeResult> modes;
    std::vector<DispatchTiming> per_dispatch;  ///< empty unless profiled
    /// Per-group profile of one mode (empty unless asked for; not stored in capture files).
    std::string per_group_mode;
    std::vector<GroupTiming> per_group;
    std::string date;  ///< ISO 8601, UTC
};

}  // namespace graphlens
