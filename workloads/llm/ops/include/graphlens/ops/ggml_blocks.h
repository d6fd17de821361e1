#pragma once
// ggml's block-quantized weight formats, byte-for-byte as GGUF files store them, with
// CPU quantizers and dequantizers. The GPU kernels read exactly these layouts, so a tensor
// can be copied from a GGUF file into a buffer unchanged. See docs/kernels.md.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "graphlens/graph/dtype.h"
#include "graphlens/graph/half_float.h"

namespace graphlens::ggml {

inline constexpr int kQK4_0 = 32;  ///< weights per Q4_0 block
inline constexpr int kQK8_0 = 32;  ///< weights per Q8_0 block
inline constexpr int kQK_K = 256;  ///< weights per K-quant super-block
inline constexpr int kKScaleSize = 12;

/// 32 weights: w = d * (q - 8), q a nibble. Byte j of qs holds weight j (low nibble) and
/// weight j + 16 (high nibble).
struct BlockQ4_0 {
    uint16_t d;  ///< f16 scale
    uint8_t qs[kQK4_0 / 2];
};

/// 32 weights: w = d * q, q a signed byte.
struct BlockQ8_0 {
    uint16_t d;  ///< f16 scale
    int8_t qs[kQK8_0];
};

/// 256 weights in 8 sub-blocks of 32: w = d * sc[j] * q - dmin * m[j], q a nibble.
/// scales packs eight 6-bit scales and eight 6-bit mins (see q4_k_scale_min). qs holds
/// 4 groups of 64 weights, 32 bytes each: weight l of the group in the low nibble of byte l,
/// weight l + 32 in its high nibble.
struct BlockQ4_K {
    uint16_t d;     ///< f16 super-block scale of the scales
    uint16_t dmin;  ///< f16 super-block scale of the mins
    uint8_t scales[kKScaleSize];
    uint8_t qs[kQK_K / 2];
};

/// 256 weights in 16 sub-blocks of 16: w = d * scales[j] * (q - 32), q 6 bits: low 4 bits in
/// ql, high 2 bits in qh. Two halves of 128 weights; within a half (ql 64 bytes, qh 32 bytes)
/// weight l (l < 32) is ql[l] low | qh[l] bits 0-1, l + 32 is ql[l + 32] low | qh[l] bits 2-3,
/// l + 64 is ql[l] high | qh[l] bits 4-5, l + 96 is ql[l + 32] high | qh[l] bits 6-7.
struct BlockQ6_K {
    uint8_t ql[kQK_K / 2];
    uint8_t qh[kQK_K / 4];
    int8_t scales[kQK_K / 16];
    uint16_t d;  ///< f16 super-block scale
};

static_assert(sizeof(BlockQ4_0) == 18);
static_assert(sizeof(BlockQ8_0) == 34);
static_assert(sizeof(BlockQ4_K) == 144);
/// GraphLens's 8-bit activations (DType::q8x, not a GGUF type): 32 values x = d * q, with
/// d = max|x| / 127 and q = x / d rounded to nearest even (ggml's q8 rule), as the
/// quantize_q8 and fused norm kernels write them and the _xq8 mat-vecs read them.
struct BlockQ8x {
    int8_t qs[32];
    float d;
    uint32_t spare;  ///< zero; keeps blocks at 10 words
};

static_assert(sizeof(BlockQ6_K) == 210);
static_assert(sizeof(BlockQ8x) == 40);

/// IEEE binary16 conversions (graphlens/graph/half_float.h).
using graphlens::float_to_half;
using graphlens::half_to_float;

/// Scale j (0..7) and min j of a Q4_K block's packed 12 bytes.
void q4_k_scale_min(const uint8_t* scales, int j, uint8_t& scale, uint8_t& min);

// Row quantizers: n must be a multiple of the block size (32 or 256).
void quantize_row_q4_0(const float* x, BlockQ4_0* y, int64_t n);
void quantize_row_q8_0(const float* x, BlockQ8_0* y, int64_t n);
void quantize_row_q4_k(const float* x, BlockQ4_K* y, int64_t n);
void quantize_row_q6_k(const float* x, BlockQ6_K* y, int64_t n);
/// In f32 arithmetic as the GPU kernels do it (d = amax / 127, q = roundEven(x * (1 / d))), so
/// a CPU reference fed the GPU's values gets the GPU's bytes.
void quantize_row_q8x(const float* x, BlockQ8x* y, int64_t n);

void dequantize_row_q4_0(const BlockQ4_0* x, float* y, int64_t n);
void dequantize_row_q8_0(const BlockQ8_0* x, float* y, int64_t n);
void dequantize_row_q4_k(const BlockQ4_K* x, float* y, int64_t n);
void dequantize_row_q6_k(const BlockQ6_K* x, float* y, int64_t n);
void dequantize_row_q8x(const BlockQ8x* x, float* y, int64_t n);

/// Quantizes values to dtype's bytes (q4_0, q8_0, q4_k, q6_k, q8x, f16 or f32). Throws
/// std::invalid_argument when values.size() is not a multiple of the block size.
std::vector<uint8_t> quantize(DType dtype, std::span<const float> values);
/// The n values stored in bytes of dtype (any type quantize accepts). Throws when bytes is
/// shorter than n values need.
std::vector<float> dequantize(DType dtype, std::span<const uint8_t> bytes, size_t n);

}  // namespace graphlens::ggml
