#pragma once
// The fusion table with the kernel library's builders: every pattern the fusion pass
// matches (graphlens/fusion.h) can be applied. Patterns, longest first:
//   rms_norm→mul→add, rms_norm_no_scale→mul→add   → rms_norm_[w_]mul_add_f32
//   rms_norm→mul,     rms_norm_no_scale→mul       → rms_norm_[w_]mul_f32
//   add→…→add (8 down to 2 adds)                  → multi_add<N>_f32
//   gelu→mul, silu→mul                            → gelu_mul_f32, silu_mul_f32
// A builder declines (with the reason) when a member is not the f32 kernel it knows, or a
// mul/add operand is broadcast in a way the fused kernel cannot express.
#include <vector>

#include "graphlens/fusion.h"

namespace graphlens::ops {

std::vector<FusionRecipe> fusion_recipes();

}  // namespace graphlens::ops
