#pragma once
// Running a capture on a device: the one set-up the CLI's `run`, the GUI's worker and the
// bench share, so a capture made on any machine is replayed the same way everywhere.
#include "graphlens/exec/runner.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/graph/compute_graph.h"
#include "graphlens/results/run_result.h"

namespace graphlens {

/// Recreates `graph`'s allocations in fresh memory of `device` (same ids, names, sizes) and
/// runs the requested modes there (Runner::run). Throws what Runner::run throws, and
/// std::invalid_argument when the capture cannot run on this build or device.
RunResult replay_capture(Device& device, const ComputeGraph& graph, const RunnerOptions& options);

}  // namespace graphlens
