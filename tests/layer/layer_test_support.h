#pragma once
// Running the test programs under `graphlens-cli record` and reading what it wrote.
#include <string>

#include "graphlens/capture/capture_file.h"

namespace layer_test {

struct CommandResult {
    int exit_code = -1;
    std::string output;  ///< stdout and stderr together
};

/// Runs a shell command line on lavapipe (VK_DRIVER_FILES), capturing its output.
CommandResult run(const std::string& command_line);

/// A fresh path in the test's scratch directory, named after the running test and `suffix`.
std::string scratch_path(const std::string& suffix);

/// `graphlens-cli record -o <out> <range options> -- <program>`; the result and the path.
struct Recording {
    CommandResult result;
    std::string capture_path;
};
Recording record(const std::string& range_options, const std::string& program);

}  // namespace layer_test
