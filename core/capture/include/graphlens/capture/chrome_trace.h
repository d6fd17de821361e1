#pragma once
// Chrome trace event JSON (the format Perfetto UI and chrome://tracing open) of a RunResult:
// one track (thread) per execution mode with one slice per timed repeat (its GPU time), and,
// when the run has per-dispatch timings, a "per-dispatch (profiled)" track whose slices are
// the dispatches, named by label; with per-group timings a track of concurrency groups. Used by
// `graphlens-cli run --trace` and the GUI's export.
#include <filesystem>
#include <string>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/results/run_result.h"

namespace graphlens {

/// The trace as a JSON document {"traceEvents": [...], "displayTimeUnit": "ns", ...}.
/// Deterministic; times in microseconds as the format requires. Every mode track starts at
/// 0 so modes line up for comparison.
std::string chrome_trace_json(const RunResult& run);

/// The graph behind a run's per-dispatch profile and where it comes from.
struct TraceGraph {
    /// The graph the per-dispatch profile ran (the captured one); its node ids are the
    /// profile's DispatchTiming::node.
    const ComputeGraph* graph = nullptr;
    /// Where the capture comes from: the recorded program and range, or its generator.
    std::string source;
};

/// chrome_trace_json(run) plus, on the per-dispatch track, what orders its dispatches: one flow
/// (an arrow in Perfetto, "ph" "s" → "f", category "hazard") per hazard of the graph
/// (HazardIndex: RAW, WAR, WAW) from the earlier dispatch's slice to the later one's, and one
/// instant event ("ph" "i", category "barrier") per barrier of the graph, at the start of the
/// dispatch after it, naming the hazards that need it or saying it is redundant. Then one track
/// per concurrency group of the graph ("concurrency group N": the dispatches between two
/// barriers, which may run together) with the group's profiled dispatch slices, so the groups
/// stand one under the other. otherData gains "source".
std::string chrome_trace_json(const RunResult& run, const TraceGraph& graph);

/// Writes chrome_trace_json(run[, graph]) to `path`; throws std::runtime_error naming the path
/// on an I/O error.
void write_chrome_trace(const RunResult& run, const std::filesystem::path& path);
void write_chrome_trace(const RunResult& run, const TraceGraph& graph,
                        const std::filesystem::path& path);

}  // namespace graphlens
