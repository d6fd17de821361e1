#pragma once
// Running `graphlens-cli run` on a recorded program's capture and reading its table.
#include <optional>
#include <string>

#include "layer_test_support.h"

namespace replay_test {

/// `graphlens-cli run <capture> --modes all`, one timed run per mode, on lavapipe with the
/// validation layer and synchronization validation on; `extra` is appended.
layer_test::CommandResult run_capture(const std::string& capture, const std::string& extra = "");

/// The table line of `mode` ("as-recorded  76.1 (...) ... bitwise"), if the output has one.
std::optional<std::string> mode_line(const std::string& output, const std::string& mode);

/// The validation-error count a mode's line shows (the column before the comparison), or -1.
int validation_errors(const std::string& line);

/// The modes every replay of a recorded program runs.
inline constexpr const char* kModes[] = {
    "as-recorded", "one-submission", "per-op-submit", "serial",          "elided",      "greedy",
    "levels",      "levels+split",   "levels+stream", "levels+parallel", "levels+ahead"};

}  // namespace replay_test
