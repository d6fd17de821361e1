#pragma once
// graphlens-cli run --renderdoc: one execution of one mode captured by RenderDoc's in-app API
// (graphlens/exec/renderdoc_capture.h) instead of the timed runs.
#include <cstdint>
#include <string>

#include "graphlens/capture/capture_file.h"

namespace graphlens::cli {

/// `modes` must name one mode. Prints the capture's file; returns the exit status.
int run_in_renderdoc(const CaptureDocument& doc, const std::string& modes, uint64_t seed);

}  // namespace graphlens::cli
