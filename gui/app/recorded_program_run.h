#pragma once
// The Timing view's run of a recorded program's capture (graphlens/exec/foreign_replay.h): the
// worker thread makes a device with the program's extensions and features, starts from the
// buffer contents `record --data` saved beside the capture when there are any, and runs the
// checked modes after the program's own plan (as-recorded), which is always in the table.
// A mode the recorded program has no counterpart for (fused, levels+parallel, levels+ahead)
// is a row with the reason as its error.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/results/run_result.h"

namespace graphlens::gui {

struct RecordedProgramRun {
    std::string capture_path;  ///< where the capture was loaded from ("" = unknown)
    std::vector<std::string> modes;
    int warmup = 1;
    int repeats = 5;
    std::string device_selector;
    std::string workload;
    std::function<void(std::string_view)> progress;
    std::function<bool()> cancelled;
};

/// Throws what run_foreign_capture throws, and std::runtime_error naming the first validation
/// error when the validation layer reported any.
RunResult run_recorded_program(const ComputeGraph& graph, const RecordedProgramRun& run);

}  // namespace graphlens::gui
