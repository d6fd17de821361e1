#pragma once
// A stage inside one dispatch: a kernel whose work has a dependent step ordered by an arrival
// counter in memory instead of a pipeline barrier (the split-k mat-vec's last workgroup adding
// the residual and norming, the attention's last workgroup of a head combining its splits, a
// merged kernel whose later stage waits until every workgroup has arrived). The stage states
// which bindings it reads and writes and how it is ordered after the stage before, so the
// graph can show the byte ranges that cross the boundary (graphlens/graph/internal_stages.h).
// A kernel declares its stages (KernelInfo::stages); its reflected binding access is what a
// declaration is checked against (graphlens/graph/kernel_stage_check.h), never the reverse.
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace graphlens {

/// A binding of a kernel: (set, binding).
struct BindingRef {
    uint32_t set = 0;
    uint32_t binding = 0;
    friend auto operator<=>(const BindingRef&, const BindingRef&) = default;
};

/// How a stage is ordered after the stage before it.
enum class StageOrder : uint8_t {
    /// The kernel's first stage: every workgroup starts it, nothing is before it.
    first,
    /// One workgroup runs it: the last to count its arrival at the counter, which it sees
    /// only after every other workgroup has finished the stage before.
    last_arrival,
    /// Per block of the output (KernelStage::block): the last workgroup of that block to count
    /// its arrival at the block's counter runs it for the block.
    last_arrival_per_block,
    /// Every workgroup runs it once all have counted their arrival at the counter (a
    /// device-scope barrier inside the kernel: its workgroups must all be resident).
    all_arrived,
};
inline constexpr size_t kStageOrderCount = 4;

std::string_view stage_order_name(StageOrder o);  // "first", "last_arrival", ...
std::optional<StageOrder> stage_order_from_name(std::string_view name);

struct KernelStage {
    std::string name;  ///< what the stage does, e.g. "rows of y", "add + norm + q8"
    std::vector<BindingRef> reads;
    std::vector<BindingRef> writes;
    StageOrder order = StageOrder::first;
    /// The arrival counter `order` counts at (atomics: the ordering itself, not a range the
    /// stages read or write as data); unused for StageOrder::first.
    BindingRef counter;
    /// For last_arrival_per_block: what one counter orders, e.g. "32 rows of y", "query head".
    std::string block;
    friend bool operator==(const KernelStage&, const KernelStage&) = default;
};

/// One line of a stage's ordering, e.g. "after the last workgroup to arrive at binding 8",
/// "per 32 rows of y: after the last arrival at binding 8", "first".
std::string describe_stage_order(const KernelStage& stage);

}  // namespace graphlens
