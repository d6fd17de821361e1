#pragma once
// Comparing two captures or runs (before/after a change), the way Tracy's compare view
// matches zones by name: dispatches are matched by label (the n-th "blk.3.attn_q" of A with
// the n-th of B), stages by name, modes by name. `graphlens-cli diff a.json b.json` prints it.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "graphlens/capture/capture_file.h"

namespace graphlens {

/// A number present in A, in B, or both.
struct Delta {
    std::optional<double> a, b;
    /// b / a when both are present and a > 0.
    std::optional<double> ratio() const;
};

struct StageDelta {
    std::string stage;
    Delta dispatches, barriers, groups;
};

struct ModeDelta {
    std::string mode;
    Delta gpu_ns, wall_ns, barriers, dispatches;  ///< medians
};

struct KeyedTimeDelta {
    std::string key;  ///< op kind, layer or dispatch label
    Delta dispatches, gpu_ns;
};

struct CaptureDiff {
    std::string a_name, b_name;
    size_t matched_labels = 0;                      ///< captured dispatches matched by label
    std::vector<std::string> only_in_a, only_in_b;  ///< unmatched labels (capped)
    size_t only_in_a_total = 0, only_in_b_total = 0;
    std::vector<StageDelta> stages;  ///< "captured" first, then stages of either side by name
    std::vector<ModeDelta> modes;
    std::vector<KeyedTimeDelta> per_op;  ///< from per-dispatch timings of both runs
    std::vector<KeyedTimeDelta> per_layer;
    /// Matched dispatches with the largest absolute per-dispatch time change, largest first.
    std::vector<KeyedTimeDelta> biggest_changes;
};

struct DiffOptions {
    size_t max_listed = 20;  ///< cap of the unmatched-label and biggest-change lists
};

CaptureDiff diff_captures(const CaptureDocument& a, const CaptureDocument& b,
                          std::string a_name = "A", std::string b_name = "B",
                          const DiffOptions& options = {});

/// Markdown tables (paste into a pull request): stages, modes, per op, per layer, biggest
/// per-dispatch changes, unmatched labels.
std::string diff_markdown(const CaptureDiff& d);

}  // namespace graphlens
