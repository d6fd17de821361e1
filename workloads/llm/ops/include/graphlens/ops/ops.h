#pragma once
// The LLM workload's ops: each records one dispatch of one of the workload's kernels into a
// GraphSession (graphlens/vulkan/graph_session.h), which validates it, derives its byte ranges
// from the kernel's reflected bindings and emits the barriers its policy asks for. The session
// knows nothing of these functions: an op is added here and in its family's source, never in
// the vulkan layer.
//
// Adding an op (the pattern every op family follows; see ops/src/elementwise_basic.cpp):
//  1. Write the kernel workloads/llm/shaders/<kernel>.comp (storage buffers in set 0,
//     `readonly` on inputs, `writeonly` on pure outputs: the access modes are reflected from
//     these, and hazards and fusion follow from them; a push-constant block for sizes).
//  2. Declare the op below, in the block of its family, taking the session and TensorViews
//     (the caller allocates outputs) and a label defaulting to the op name.
//  3. Define it in workloads/llm/ops/src/<family>.cpp: check dtypes/shapes with the helpers
//     of graphlens/ops/dispatch_helpers.h (throw std::invalid_argument naming op, operand and
//     label), pack the push constants with push_constant_bytes(), compute workgroups with
//     grid_1d()/grid_2d(), and call s.dispatch(DispatchDesc{...}) with the OpKind.
//  Never emit barriers inside an op: the session's policy decides.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "graphlens/graph/dtype.h"
#include "graphlens/graph/tensor_view.h"
#include "graphlens/ops/params.h"
#include "graphlens/vulkan/graph_session.h"

namespace graphlens {

/// How many equal k ranges a mat-mat of a `weight`-typed [k, n] weight and m columns of x
/// should be split into (ops::matmul_split_k): 4, or 2, for rows of at least 2048
/// elements whose 128 x 128 tile grid has fewer than 128 workgroups (the 1b model's ffn_down
/// and attn_output: 64 tiles each at 512 tokens, against an H100's 132 SMs), where the ranges
/// are whole tiles and blocks; else 1. A constant rule, as the tile choice: a graph records the
/// same kernels on every device.
uint32_t matmul_k_splits(DType weight, uint32_t n, uint32_t k, uint32_t m);

namespace ops {

// --- elementwise_basic.cpp (f32) ---
/// out[i] = a[i] + b[i % b.elements]; b broadcasts when a multiple of it fits a.
void add(GraphSession& s, const TensorView& a, const TensorView& b, const TensorView& out,
         std::string label = "add");
/// out[i] = a[i] * b[i % b.elements]; b broadcasts (e.g. a norm weight over rows).
void mul(GraphSession& s, const TensorView& a, const TensorView& b, const TensorView& out,
         std::string label = "mul");

// --- elementwise.cpp (f16 and multi-input) ---
/// f16: out[i] = a[i] + b[i % b.elements] (f32 accumulation, f16 storage).
void add_f16(GraphSession& s, const TensorView& a, const TensorView& b, const TensorView& out,
             std::string label = "add");
/// f16: out[i] = a[i] * b[i % b.elements].
void mul_f16(GraphSession& s, const TensorView& a, const TensorView& b, const TensorView& out,
             std::string label = "mul");
/// f32: out = inputs[0] + inputs[1] + ... (2..9 inputs of out's element count), summed
/// in order: the fused form of an add chain.
void multi_add(GraphSession& s, std::span<const TensorView> inputs, const TensorView& out,
               std::string label = "multi_add");
/// f32: out = x * factor.
void scale(GraphSession& s, const TensorView& x, const TensorView& out, float factor,
           std::string label = "scale");

// --- norm.cpp ---
/// RMS norm of each row (row length = x.shape[0], rows = elements / row length):
/// out = x / sqrt(mean(x^2) + eps) * weight. x and out f32, or both f16; weight f32
/// [row length]; f32 accumulation.
void rms_norm(GraphSession& s, const TensorView& x, const TensorView& weight, const TensorView& out,
              float eps, std::string label = "rms_norm");
/// f32 RMS norm without weight: out = x / sqrt(mean(x^2) + eps).
void rms_norm_no_scale_f32(GraphSession& s, const TensorView& x, const TensorView& out, float eps,
                           std::string label = "rms_norm_no_scale");
/// Fused rms_norm→mul, f32: out = norm(x) [* weight] * m. m is one row (broadcast) or
/// x's shape; weight optional (absent when the norm had none).
void rms_norm_mul(GraphSession& s, const TensorView& x, std::optional<TensorView> weight,
                  const TensorView& m, const TensorView& out, float eps,
                  std::string label = "rms_norm_mul");
/// Fused rms_norm→mul→add, f32: out = norm(x) [* weight] * m + a (m and a: one row or
/// x's shape).
void rms_norm_mul_add(GraphSession& s, const TensorView& x, std::optional<TensorView> weight,
                      const TensorView& m, const TensorView& a, const TensorView& out, float eps,
                      std::string label = "rms_norm_mul_add");

// --- activation.cpp (f32) ---
/// out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
void gelu(GraphSession& s, const TensorView& x, const TensorView& out, std::string label = "gelu");
/// out = x / (1 + e^-x).
void silu(GraphSession& s, const TensorView& x, const TensorView& out, std::string label = "silu");
/// Fused gelu→mul: out = gelu(x) * g (g of x's shape).
void gelu_mul(GraphSession& s, const TensorView& x, const TensorView& g, const TensorView& out,
              std::string label = "gelu_mul");
/// Fused silu→mul: out = silu(x) * g (g of x's shape).
void silu_mul(GraphSession& s, const TensorView& x, const TensorView& g, const TensorView& out,
              std::string label = "silu_mul");
/// out = tanh(x / cap) * cap.
void softcap(GraphSession& s, const TensorView& x, const TensorView& out, float cap,
             std::string label = "softcap");

// --- softmax.cpp (f32) ---
/// Softmax of each row (row length x.shape[0]) of x * scale [+ mask]; mask f32 holds
/// mask_rows rows of the same length, row r of x uses mask row r % mask_rows (-inf
/// entries exclude a column; a fully masked row gives zeros).
void softmax(GraphSession& s, const TensorView& x, const TensorView& out, float scale = 1.0f,
             std::optional<TensorView> mask = std::nullopt, std::string label = "softmax");

// --- rope.cpp (f32) ---
/// Rotary embedding with adjacent pairs (2j, 2j+1); positions i32 [seq_len];
/// freq_factors (optional) f32 [rope_dim / 2] divide the frequencies. x is f32; out is
/// f32 or f16 (rounded as copy() rounds: a rope writing straight into an f16 KV cache).
void rope(GraphSession& s, const TensorView& x, const TensorView& positions, const TensorView& out,
          const RopeParams& params, std::optional<TensorView> freq_factors = std::nullopt,
          std::string label = "rope");
/// NeoX rotary embedding: pairs (j, j + rope_dim/2); otherwise as rope().
void rope_neox_f32(GraphSession& s, const TensorView& x, const TensorView& positions,
                   const TensorView& out, const RopeParams& params,
                   std::optional<TensorView> freq_factors = std::nullopt,
                   std::string label = "rope_neox");

// --- matmul.cpp ---
/// out[c][r] = sum_k weight[r][k] x[c][k]: weight f32 or f16 [k, n], x f32 [k, m],
/// out f32 [n, m]. Mat-vec kernel for m <= 8, tiled mat-mat kernel above.
void matmul(GraphSession& s, const TensorView& weight, const TensorView& x, const TensorView& out,
            std::string label = "matmul");
/// MLX affine-quantised weights (see AffineQuantParams); x f32 [k, m], out f32 [n, m].
void quantized_matmul(GraphSession& s, const TensorView& x, const TensorView& weight,
                      const TensorView& scales, const TensorView& biases, const TensorView& out,
                      const AffineQuantParams& params, std::string label = "quantized_matmul");
/// ggml block weights (q4_0, q8_0, q4_k, q6_k) [k, n] exactly as in GGUF; x f32 [k, m];
/// out f32 [n, m]. Mat-vec kernel for m <= 8, tiled mat-mat kernel above.
void quantized_matmul_ggml(GraphSession& s, const TensorView& x, const TensorView& weight,
                           const TensorView& out, std::string label = "quantized_matmul_ggml");
/// Split-k mat-mat (m > 8 columns): `partials` f32 [n, m * splits] gets the products over
/// `splits` equal, consecutive k ranges, range z as columns z m .. z m + m - 1; the
/// product is their sum, which the caller records (adds: the fusion pass makes a chain of
/// them one multi_add). Each range must be whole 32-element tiles and whole weight blocks.
/// For shapes whose tile grid alone would leave a large GPU idle (matmul_k_splits).
void matmul_split_k(GraphSession& s, const TensorView& weight, const TensorView& x,
                    const TensorView& partials, uint32_t splits, std::string label = "matmul");
/// The same for ggml block weights.
void quantized_matmul_ggml_split_k(GraphSession& s, const TensorView& x, const TensorView& weight,
                                   const TensorView& partials, uint32_t splits,
                                   std::string label = "quantized_matmul_ggml");
/// Expert-routed mat-vec for MoE (see MatmulIdParams): out[t][s] = W[ids[t][s]] x[t][s].
void quantized_matmul_id_ggml(GraphSession& s, const TensorView& x, const TensorView& weight,
                              const TensorView& ids, const TensorView& out,
                              const MatmulIdParams& params,
                              std::string label = "quantized_matmul_id_ggml");
/// MoE routing: per token the k (<= 8) largest of n_experts (<= 256) logits f32
/// [n_experts, n_tokens] → ids i32 [k, n_tokens] and their softmax probabilities f32
/// [k, n_tokens] (over all experts; rescaled to sum 1 when normalize).
void topk(GraphSession& s, const TensorView& logits, const TensorView& ids,
          const TensorView& weights, uint32_t k, bool normalize, std::string label = "topk");

// --- attention.cpp ---
/// Scaled dot-product attention, f32 (see SdpaParams).
void sdpa(GraphSession& s, const TensorView& q, const TensorView& k, const TensorView& v,
          const TensorView& out, const SdpaParams& params, std::string label = "sdpa");
/// Decode attention split over the KV length (see FlashAttnVecParams), one dispatch:
/// each split workgroup writes its partial (o, m, l) to `tmp` (f32,
/// flash_attn_vec_tmp_elements), then the last workgroup of a head (or head batch) to
/// finish, found by an atomic count in `counters` (u32, flash_attn_vec_counter_elements),
/// combines the head's partials into `out` and sets its counter back to 0. The caller
/// allocates `counters` zeroed once; every run leaves them zero, so no other op may write
/// them in between. Both views are bound read-write (the graph sees their whole ranges
/// read and written), so dispatches sharing them are ordered as any RAW/WAW pair is.
void flash_attn_vec(GraphSession& s, const TensorView& q, const TensorView& k_cache,
                    const TensorView& v_cache, const TensorView& out, const TensorView& tmp,
                    const TensorView& counters, const FlashAttnVecParams& params,
                    std::string label = "flash_attn_vec");

// --- copy.cpp ---
/// Contiguous copy of src (f32) into dst (f32, or f16: converted), same element count;
/// e.g. appending K/V rows to a cache (dst = the cache rows at the current position).
void copy(GraphSession& s, const TensorView& src, const TensorView& dst,
          std::string label = "copy");
/// x (f32) quantised to 8 bits: out (q8x, as many elements, a multiple of 32) holds blocks
/// of 32 values as 32 signed bytes q and a scale d = max|x| / 127, x ~ q d (ggml's q8
/// rule; graphlens/ops/ggml_blocks.h BlockQ8x). The x of decode mat-vecs over Q4_0 / Q8_0
/// weights, which then take packed 8-bit integer dot products (quantized_matmul_ggml).
void quantize_q8(GraphSession& s, const TensorView& x, const TensorView& out,
                 std::string label = "quantize_q8");
/// Embedding gather: out[i] = row ids[i] of table, dequantised to f32. table [row_len,
/// n_rows] in f32, f16, q4_0, q8_0, q4_k or q6_k; ids i32 [n]; out f32 [row_len, n].
void get_rows(GraphSession& s, const TensorView& table, const TensorView& ids,
              const TensorView& out, std::string label = "get_rows");

// --- sampling.cpp ---
/// Greedy sampling of a decode loop on the GPU: the index of the largest of `logits` (f32
/// [n_vocab]; the lowest index among equal largest ones) is written to `token` (i32 [1], the
/// next step's input token) and to generated[slot] (i32), and `next_position` to `position`
/// (i32 [1], the next step's position). One dispatch over greedy_next_token_workgroups(n_vocab)
/// workgroups; the last to finish picks the best of their bests. `scratch`: u32 of
/// greedy_next_token_scratch_elements(n_vocab) elements, zero before the first run (every run
/// leaves it ready for the next).
void greedy_next_token(GraphSession& s, const TensorView& logits, const TensorView& token,
                       const TensorView& position, const TensorView& generated,
                       const TensorView& scratch, uint32_t slot, int32_t next_position,
                       std::string label = "greedy_next_token");

}  // namespace ops
}  // namespace graphlens
