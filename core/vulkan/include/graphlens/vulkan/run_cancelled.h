#pragma once
// Cancelling a run: the question a long run asks (between executions, and while the host
// waits for the GPU) and the exception that ends it. In the vulkan layer, because a wait on a
// fence is where a run spends its time: an execution in flight is abandoned there
// (CommandRecorder::wait), not waited for.
#include <functional>
#include <stdexcept>

namespace graphlens {

/// True when the caller asked the run to stop; may be empty (never cancelled). Asked from the
/// thread that runs, so a flag set on another thread must be atomic.
using CancelCheck = std::function<bool()>;

/// Thrown when a CancelCheck said so. A cancelled run has no results, only this.
class RunCancelled : public std::runtime_error {
  public:
    RunCancelled() : std::runtime_error("the run was cancelled") {}
};

}  // namespace graphlens
