#include "graphlens/ops/kernel_stages.h"

#include <functional>
#include <string>
#include <utility>

namespace graphlens::ops {
namespace {

// Set 0 binding b: GraphLens's own kernels use set 0 only.
BindingRef b(uint32_t binding) {
    return {0, binding};
}

// matvec_blocks.comp with ADD_NORM: every workgroup sums its rows of y = W·x and counts its
// arrival at binding 8; the last to arrive reads all of y, adds the residual (9), writes the
// sum (10) and the q8x row of rms_norm(sum) · m (m at 11, q8x at 12).
std::vector<KernelStage> add_norm_q8_stages() {
    return {{"rows of y", {b(0), b(1)}, {b(2)}, StageOrder::first, {}, {}},
            {"add + norm + q8x",
             {b(2), b(9), b(11)},
             {b(10), b(12)},
             StageOrder::last_arrival,
             b(8),
             {}}};
}

// matvec_blocks.comp with Y_Q8 (the gated twins): every workgroup writes act(gate) · up for
// its rows (weights 0 and 6, x 1) into y (2) and counts its arrival at its block's counter
// (8); the last of a block of 32 rows quantises that block of y into q8x (7).
std::vector<KernelStage> y_q8_stages() {
    return {{"rows of y", {b(0), b(1), b(6)}, {b(2)}, StageOrder::first, {}, {}},
            {"q8x of y",
             {b(2)},
             {b(7)},
             StageOrder::last_arrival_per_block,
             b(8),
             "block of 32 rows of y"}};
}

// flash_attn_vec.comp / flash_attn_vec_gqa.comp with attn_combine.glsl: each split's
// workgroup writes its partial (o, m, l) to tmp (3) from q, K and V (0, 1, 2) and counts its
// arrival at its head's counter (5); the last of a head combines the partials into out (4).
std::vector<KernelStage> attention_stages(std::string block) {
    return {{"split partials", {b(0), b(1), b(2)}, {b(3)}, StageOrder::first, {}, {}},
            {"combine splits",
             {b(3)},
             {b(4)},
             StageOrder::last_arrival_per_block,
             b(5),
             std::move(block)}};
}

// greedy_next_token.comp: each workgroup writes its best (value, index) to scratch (4), where
// it counts its arrival; the last reduces the bests and writes the token (1), the next
// position (2) and the generated slot (3).
std::vector<KernelStage> greedy_stages() {
    return {{"workgroup bests", {b(0)}, {b(4)}, StageOrder::first, {}, {}},
            {"pick the token", {b(4)}, {b(1), b(2), b(3)}, StageOrder::last_arrival, b(4), {}}};
}

struct Declaration {
    std::function<bool(std::string_view)> matches;
    std::function<std::vector<KernelStage>()> stages;
};

bool has_part(std::string_view name, std::string_view part) {
    return name.find(part) != std::string_view::npos;
}

const std::vector<Declaration>& declarations() {
    static const std::vector<Declaration> table{
        {[](std::string_view n) { return n.starts_with("matvec") && has_part(n, "_anq8"); },
         add_norm_q8_stages},
        {[](std::string_view n) { return n.starts_with("matvec") && has_part(n, "_yq8"); },
         y_q8_stages},
        {[](std::string_view n) { return n.starts_with("flash_attn_vec_gqa_"); },
         [] { return attention_stages("batch of query heads of one KV head"); }},
        {[](std::string_view n) {
             return n.starts_with("flash_attn_vec_") && !n.starts_with("flash_attn_vec_gqa_");
         },
         [] { return attention_stages("query head"); }},
        {[](std::string_view n) { return n == "greedy_next_token"; }, greedy_stages},
    };
    return table;
}

}  // namespace

std::vector<KernelStage> kernel_stages(std::string_view kernel) {
    for (const Declaration& d : declarations())
        if (d.matches(kernel)) return d.stages();
    return {};
}

std::vector<FusionRecipe> with_kernel_stages(std::vector<FusionRecipe> recipes) {
    for (FusionRecipe& r : recipes) {
        if (!r.build) continue;
        r.build = [build = std::move(r.build)](const ComputeGraph& g,
                                               std::span<const size_t> chain) {
            FusionBuildResult result = build(g, chain);
            if (result.fused)
                result.fused->kernel.stages = kernel_stages(result.fused->kernel.name);
            return result;
        };
    }
    return recipes;
}

}  // namespace graphlens::ops
