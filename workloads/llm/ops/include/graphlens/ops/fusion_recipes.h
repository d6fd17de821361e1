#pragma once
// The fusion table with the kernel library's builders: every pattern the fusion pass
// matches (graphlens/graph/fusion.h) can be applied. Patterns, longest first:
//   rms_norm_no_scale→mul→add→{rms_norm|rms_norm_no_scale}→mul
//                                                 → rms_norm_mul_add_rms_norm_[w_]mul_f32
//                                                   (gemma's post-norm, residual, next norm;
//                                                   the sum is a kept output)
//   rms_norm→mul→add, rms_norm_no_scale→mul→add   → rms_norm_[w_]mul_add_f32
//   add→rms_norm→mul, add→rms_norm_no_scale→mul   → add_rms_norm_[w_]mul_f32 (residual add
//                                                   and the next norm; the sum is kept)
//   rms_norm_no_scale→mul→rope[_neox][→copy]      → rms_norm_mul_rope[_neox][_ff]_f32[_f16]
//                                                   (q/k norm + rope [+ cache append]; the
//                                                   members may have gaps: interleaved q, k)
//   rms_norm→mul,     rms_norm_no_scale→mul       → rms_norm_[w_]mul_f32
//   add→…→add (8 down to 2 adds)                  → multi_add<N>_f32
//   quantized_matmul_ggml→rope[→copy],           → <split-k mat-vec>_rope[_ff][_f16], _f16
//   quantized_matmul_ggml→copy                      (q/k/v projections rotating and/or writing
//                                                   the f16 KV cache in their epilogue; gaps
//                                                   allowed; adjacent-pair rope only)
//   gelu→mul, silu→mul                            → gelu_mul_f32, silu_mul_f32
//   rope→copy, rope_neox→copy                     → rope[_neox][_ff]_f32[_f16] writing the
//                                                   copy's destination (the KV-cache append;
//                                                   the copy may convert f32→f16)
// A builder declines (with the reason) when a member is not the f32 kernel it knows, a
// mul/add operand is broadcast in a way the fused kernel cannot express, or an add whose sum
// is kept works in place (the kernel reads its operands again after writing the sum).
#include <vector>

#include "graphlens/graph/fusion.h"

namespace graphlens::ops {

std::vector<FusionRecipe> fusion_recipes();

}  // namespace graphlens::ops
