#pragma once
// CPU references of the ops (graphlens/ops/ops.h), computed in double: what the kernel tests
// compare GPU results against. Layouts as in graphlens/ops/params.h (shape[0] innermost).
// Quantized weights are passed already dequantised (graphlens/ops/ggml_blocks.h,
// affine_dequantize).
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "graphlens/ops/params.h"

namespace graphlens::reference {

using Vec = std::vector<double>;

/// out[i] = a[i] + b[i % b.size()] and a[i] * b[i % b.size()].
Vec add(std::span<const float> a, std::span<const float> b);
Vec mul(std::span<const float> a, std::span<const float> b);
/// Sum of the inputs, elementwise.
Vec multi_add(std::span<const std::span<const float>> inputs);
Vec scale(std::span<const float> x, double s);

/// Row RMS norm (row length dim); weight empty = no weight.
Vec rms_norm(std::span<const float> x, std::span<const float> weight, uint32_t dim, double eps);

Vec gelu(std::span<const float> x);  ///< tanh approximation
Vec silu(std::span<const float> x);
Vec softcap(std::span<const float> x, double cap);

/// Row softmax of x * scale [+ mask row (r % mask_rows)]; fully masked rows give zeros.
Vec softmax(std::span<const float> x, uint32_t cols, double scale, std::span<const float> mask,
            uint32_t mask_rows);

/// Rotary embedding; freq_factors empty = none.
Vec rope(std::span<const float> x, std::span<const int32_t> positions,
         std::span<const float> freq_factors, const RopeParams& p, bool neox);

/// out[c * n + r] = sum_k w[r * k + kk] x[c * k + kk]; w is n rows of k, x is m columns.
Vec matmul(std::span<const float> w, std::span<const float> x, uint32_t n, uint32_t k, uint32_t m);
/// Expert-routed products; w: n_experts matrices of n x k after each other.
Vec matmul_id(std::span<const float> w, std::span<const float> x, std::span<const int32_t> ids,
              uint32_t n, uint32_t k, const MatmulIdParams& p, uint32_t x_slots);

Vec sdpa(std::span<const float> q, std::span<const float> k, std::span<const float> v,
         const SdpaParams& p);
/// Decode attention of one query over the first kv_len tokens of the caches (given as f32).
Vec flash_attn_vec(std::span<const float> q, std::span<const float> k_cache,
                   std::span<const float> v_cache, const FlashAttnVecParams& p);

struct TopK {
    std::vector<int32_t> ids;
    Vec weights;
};
TopK topk(std::span<const float> logits, uint32_t n_experts, uint32_t k, bool normalize);

/// Rows ids[i] of table (rows of row_len values).
Vec get_rows(std::span<const float> table, std::span<const int32_t> ids, uint32_t row_len);

/// MLX affine quantisation of a [k, n] matrix (n rows of k) in groups of group_size along k:
/// scale = (max - min) / (2^bits - 1), bias = min, q = round((w - bias) / scale).
struct AffineQuantized {
    std::vector<uint32_t> packed;  ///< n * k * bits / 32 words, low bits first
    std::vector<uint16_t> scales;  ///< f16, n * k / group_size
    std::vector<uint16_t> biases;  ///< f16
};
AffineQuantized affine_quantize(std::span<const float> w, const AffineQuantParams& p);
std::vector<float> affine_dequantize(const AffineQuantized& q, const AffineQuantParams& p);

}  // namespace graphlens::reference
