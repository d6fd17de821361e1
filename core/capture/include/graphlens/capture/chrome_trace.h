#pragma once
// Chrome trace event JSON (the format Perfetto UI and chrome://tracing open) of a RunResult:
// one track (thread) per execution mode with one slice per timed repeat (its GPU time), and,
// when the run has per-dispatch timings, a "per-dispatch (profiled)" track whose slices are
// the dispatches, named by label; with per-group timings a track of concurrency groups. Used by
// `graphlens-cli run --trace` and the GUI's export.
#include <filesystem>
#include <string>

#include "graphlens/graph/run_result.h"

namespace graphlens {

/// The trace as a JSON document {"traceEvents": [...], "displayTimeUnit": "ns", ...}.
/// Deterministic; times in microseconds as the format requires. Every mode track starts at
/// 0 so modes line up for comparison.
std::string chrome_trace_json(const RunResult& run);
/// Writes chrome_trace_json(run) to `path`; throws std::runtime_error naming the path on
/// an I/O error.
void write_chrome_trace(const RunResult& run, const std::filesystem::path& path);

}  // namespace graphlens
