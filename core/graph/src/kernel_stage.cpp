#include "graphlens/graph/kernel_stage.h"

#include <fmt/format.h>

#include <array>

namespace graphlens {
namespace {
constexpr std::array<std::string_view, kStageOrderCount> kStageOrderNames{
    "first", "last_arrival", "last_arrival_per_block", "all_arrived"};

std::string binding_text(const BindingRef& b) {
    return b.set == 0 ? fmt::format("binding {}", b.binding)
                      : fmt::format("set {} binding {}", b.set, b.binding);
}
}  // namespace

std::string_view stage_order_name(StageOrder o) {
    const auto i = static_cast<size_t>(o);
    return i < kStageOrderNames.size() ? kStageOrderNames[i] : "?";
}

std::optional<StageOrder> stage_order_from_name(std::string_view name) {
    for (size_t i = 0; i < kStageOrderNames.size(); ++i)
        if (kStageOrderNames[i] == name) return static_cast<StageOrder>(i);
    return std::nullopt;
}

std::string describe_stage_order(const KernelStage& stage) {
    switch (stage.order) {
        case StageOrder::first:
            return "first";
        case StageOrder::last_arrival:
            return fmt::format("after the last workgroup to arrive at {}",
                               binding_text(stage.counter));
        case StageOrder::last_arrival_per_block:
            return fmt::format("per {}: after its last workgroup to arrive at {}",
                               stage.block.empty() ? "block" : stage.block,
                               binding_text(stage.counter));
        case StageOrder::all_arrived:
            return fmt::format("every workgroup, after all arrived at {}",
                               binding_text(stage.counter));
    }
    return "?";
}

}  // namespace graphlens
