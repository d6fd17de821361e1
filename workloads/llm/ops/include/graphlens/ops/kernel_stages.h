#pragma once
// The internal stages of this library's kernels that do a dependent stage inside one dispatch,
// ordered by an arrival counter instead of a barrier (graphlens/graph/kernel_stage.h), by
// kernel name:
//   matvec1_*_anq8[_xq8]          rows of y → (last arrival at binding 8) add + norm + q8x
//   matvec1_*_glu_<act>_yq8_xq8   rows of y → (per 32 rows, last arrival at 8) y's q8x blocks
//   flash_attn_vec[_gqa]_<kv>     split partials → (per head, last arrival at 5) combine
//   greedy_next_token             workgroup bests → (last arrival at 4) the token
// Each declaration is written from the kernel's code (matvec_blocks.comp, flash_attn_vec*.comp
// with attn_combine.glsl, greedy_next_token.comp); tests/workloads/llm/ops checks every one
// against its SPIR-V's reflected bindings (graphlens/graph/kernel_stage_check.h). A new kernel
// of several stages (a merged FFN) is one more row of the table in kernel_stages.cpp.
#include <string_view>
#include <vector>

#include "graphlens/graph/fusion.h"
#include "graphlens/graph/kernel_info.h"

namespace graphlens::ops {

/// The declared stages of the kernel named `kernel`; empty for a kernel of one stage.
std::vector<KernelStage> kernel_stages(std::string_view kernel);

/// The fusion table with every builder's fused kernel given its declared stages (the fused
/// kernels enter a graph through the builders, not through a DispatchDesc).
std::vector<FusionRecipe> with_kernel_stages(std::vector<FusionRecipe> recipes);

}  // namespace graphlens::ops
