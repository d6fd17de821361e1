#pragma once
// `graphlens-cli run` of a recorded program's capture (graphlens/exec/foreign_replay.h): the
// device made with the program's extensions and features, the buffer contents loaded from
// `<capture>.data` when `record --data` wrote one, the table of the program's own plan against
// GraphLens's plans.
#include <cstdint>
#include <string>

#include "graphlens/capture/capture_file.h"

namespace graphlens::cli {

struct ForeignRunCommand {
    std::string capture;
    std::string modes = "all";
    std::string data;  ///< the contents file; empty = `<capture>.data` when it exists
    bool no_data = false;
    uint32_t repeat = 20;
    uint32_t warmup = 2;
    double warmup_ms = 200;
    size_t stream_first = 8;
    double stream_growth = 4.0;
    size_t parallel_threads = 0;  ///< levels+parallel: 0 = the hardware's, at most 4
    std::string trace;
    std::string save;
    std::string outputs;  ///< where as-recorded's final bytes go (a buffer data file)
};

/// Runs the command; returns the exit status (1 when a mode failed, changed the bytes, or the
/// validation layer reported errors).
int run_foreign(CaptureDocument& doc, const ForeignRunCommand& command);

}  // namespace graphlens::cli
