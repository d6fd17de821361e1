#pragma once
// A run's progress lines and cancellation checks, for the Runner (GraphLens's own graphs) and
// the replay of a recorded program alike: both take them from their options' `progress` and
// `cancelled` callbacks, either of which may be empty.
#include <functional>
#include <string_view>

#include "graphlens/exec/runner.h"

namespace graphlens {

class RunControl {
  public:
    /// Keeps references: the options the callbacks belong to outlive the run.
    RunControl(const std::function<void(std::string_view)>& progress,
               const std::function<bool()>& cancelled)
        : progress_(progress), cancelled_(cancelled) {}
    /// From options that have `progress` and `cancelled` (RunnerOptions, ForeignRunOptions).
    template <typename Options>
    explicit RunControl(const Options& options) : RunControl(options.progress, options.cancelled) {}

    void progress(std::string_view line) const {
        if (progress_) progress_(line);
    }
    /// Throws RunCancelled when the caller asked to stop.
    void stop_if_cancelled() const {
        if (cancelled_ && cancelled_()) throw RunCancelled();
    }

  private:
    const std::function<void(std::string_view)>& progress_;
    const std::function<bool()>& cancelled_;
};

}  // namespace graphlens
