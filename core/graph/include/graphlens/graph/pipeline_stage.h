#pragma once
// The stages the pass pipeline produces, by name: Snapshot::stage holds the name (what capture
// files store), and code that looks for a stage asks by this enum, never by a literal.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "graphlens/graph/snapshot.h"

namespace graphlens {

enum class PipelineStage : uint8_t {
    captured,
    fused,
    reordered_greedy,
    reordered_levels,
    barriers_planned,
    split,
};

/// "captured", "fused", "reordered (greedy)", "reordered (levels)", "barriers planned", "split".
std::string_view pipeline_stage_name(PipelineStage stage);
/// Null for a name the pipeline does not produce (a foreign capture may store any).
std::optional<PipelineStage> pipeline_stage_from_name(std::string_view name);
/// The first snapshot of this stage, or null.
const Snapshot* find_stage(const std::vector<Snapshot>& snapshots, PipelineStage stage);
/// The reorder stage of either kind, or null.
const Snapshot* find_reordered_stage(const std::vector<Snapshot>& snapshots);

}  // namespace graphlens
