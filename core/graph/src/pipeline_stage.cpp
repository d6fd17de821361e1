#include "graphlens/graph/pipeline_stage.h"

#include <array>

namespace graphlens {
namespace {

constexpr std::array<std::string_view, 6> kStageNames = {
    "captured", "fused", "reordered (greedy)", "reordered (levels)", "barriers planned", "split"};

}  // namespace

std::string_view pipeline_stage_name(PipelineStage stage) {
    return kStageNames.at(static_cast<size_t>(stage));
}

std::optional<PipelineStage> pipeline_stage_from_name(std::string_view name) {
    for (size_t i = 0; i < kStageNames.size(); ++i)
        if (kStageNames[i] == name) return static_cast<PipelineStage>(i);
    return std::nullopt;
}

const Snapshot* find_stage(const std::vector<Snapshot>& snapshots, PipelineStage stage) {
    for (const Snapshot& s : snapshots)
        if (s.stage == pipeline_stage_name(stage)) return &s;
    return nullptr;
}

const Snapshot* find_reordered_stage(const std::vector<Snapshot>& snapshots) {
    if (const Snapshot* s = find_stage(snapshots, PipelineStage::reordered_greedy)) return s;
    return find_stage(snapshots, PipelineStage::reordered_levels);
}

}  // namespace graphlens
