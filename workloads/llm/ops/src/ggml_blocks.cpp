// CPU (de)quantizers for ggml's block formats. The layouts follow GGUF byte for byte; the
// quantizers are simple round-to-nearest ones (not ggml's iterative search), which is all
// test models need: the dequantizers define the format.
#include "graphlens/ops/ggml_blocks.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace graphlens::ggml {

void q4_k_scale_min(const uint8_t* q, int j, uint8_t& scale, uint8_t& min) {
    if (j < 4) {
        scale = q[j] & 63;
        min = q[j + 4] & 63;
    } else {
        scale = static_cast<uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        min = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

namespace {

void require_multiple(int64_t n, int block, const char* what) {
    if (n % block != 0)
        throw std::invalid_argument(std::string(what) + ": " + std::to_string(n) +
                                    " values is not a multiple of the block size " +
                                    std::to_string(block));
}

int nearest_int(float f) {
    return static_cast<int>(std::lround(f));
}

}  // namespace

void quantize_row_q4_0(const float* x, BlockQ4_0* y, int64_t n) {
    require_multiple(n, kQK4_0, "quantize_row_q4_0");
    for (int64_t b = 0; b < n / kQK4_0; ++b, x += kQK4_0) {
        // Signed absolute maximum maps to -8 so the full nibble range is used (as ggml does).
        float amax = 0, vmax = 0;
        for (int j = 0; j < kQK4_0; ++j)
            if (std::fabs(x[j]) > amax) amax = std::fabs(x[j]), vmax = x[j];
        const float d = vmax / -8.0f;
        const float id = d != 0 ? 1.0f / d : 0.0f;
        y[b].d = float_to_half(d);
        for (int j = 0; j < kQK4_0 / 2; ++j) {
            const int q0 = std::min(15, static_cast<int>(x[j] * id + 8.5f));
            const int q1 = std::min(15, static_cast<int>(x[j + 16] * id + 8.5f));
            y[b].qs[j] = static_cast<uint8_t>(q0 | (q1 << 4));
        }
    }
}

void dequantize_row_q4_0(const BlockQ4_0* x, float* y, int64_t n) {
    require_multiple(n, kQK4_0, "dequantize_row_q4_0");
    for (int64_t b = 0; b < n / kQK4_0; ++b, y += kQK4_0) {
        const float d = half_to_float(x[b].d);
        for (int j = 0; j < kQK4_0 / 2; ++j) {
            y[j] = static_cast<float>((x[b].qs[j] & 0xF) - 8) * d;
            y[j + 16] = static_cast<float>((x[b].qs[j] >> 4) - 8) * d;
        }
    }
}

void quantize_row_q8_0(const float* x, BlockQ8_0* y, int64_t n) {
    require_multiple(n, kQK8_0, "quantize_row_q8_0");
    for (int64_t b = 0; b < n / kQK8_0; ++b, x += kQK8_0) {
        float amax = 0;
        for (int j = 0; j < kQK8_0; ++j) amax = std::max(amax, std::fabs(x[j]));
        const float d = amax / 127.0f;
        const float id = d != 0 ? 1.0f / d : 0.0f;
        y[b].d = float_to_half(d);
        for (int j = 0; j < kQK8_0; ++j) y[b].qs[j] = static_cast<int8_t>(nearest_int(x[j] * id));
    }
}

void dequantize_row_q8_0(const BlockQ8_0* x, float* y, int64_t n) {
    require_multiple(n, kQK8_0, "dequantize_row_q8_0");
    for (int64_t b = 0; b < n / kQK8_0; ++b, y += kQK8_0) {
        const float d = half_to_float(x[b].d);
        for (int j = 0; j < kQK8_0; ++j) y[j] = static_cast<float>(x[b].qs[j]) * d;
    }
}

void quantize_row_q4_k(const float* x, BlockQ4_K* y, int64_t n) {
    require_multiple(n, kQK_K, "quantize_row_q4_k");
    for (int64_t b = 0; b < n / kQK_K; ++b, x += kQK_K) {
        BlockQ4_K& blk = y[b];
        std::memset(&blk, 0, sizeof blk);
        // Per sub-block of 32: w = scale * q - min with q in 0..15 and min >= 0.
        float scale[8], mins[8];
        float max_scale = 0, max_min = 0;
        for (int j = 0; j < 8; ++j) {
            const float* s = x + 32 * j;
            float lo = 0, hi = s[0];
            for (int l = 0; l < 32; ++l) lo = std::min(lo, s[l]), hi = std::max(hi, s[l]);
            scale[j] = (hi - lo) / 15.0f;
            mins[j] = -lo;
            max_scale = std::max(max_scale, scale[j]);
            max_min = std::max(max_min, mins[j]);
        }
        const float d = max_scale / 63.0f, dmin = max_min / 63.0f;
        blk.d = float_to_half(d);
        blk.dmin = float_to_half(dmin);
        const float dq = half_to_float(blk.d), dminq = half_to_float(blk.dmin);
        uint8_t ls[8], lm[8];
        for (int j = 0; j < 8; ++j) {
            ls[j] =
                static_cast<uint8_t>(std::clamp(dq > 0 ? nearest_int(scale[j] / dq) : 0, 0, 63));
            lm[j] = static_cast<uint8_t>(
                std::clamp(dminq > 0 ? nearest_int(mins[j] / dminq) : 0, 0, 63));
            if (j < 4) {
                blk.scales[j] = ls[j];
                blk.scales[j + 4] = lm[j];
            } else {
                blk.scales[j + 4] = static_cast<uint8_t>((ls[j] & 0xF) | ((lm[j] & 0xF) << 4));
                blk.scales[j - 4] |= static_cast<uint8_t>((ls[j] >> 4) << 6);
                blk.scales[j] |= static_cast<uint8_t>((lm[j] >> 4) << 6);
            }
        }
        uint8_t L[kQK_K];
        for (int j = 0; j < 8; ++j) {
            const float sd = dq * ls[j], md = dminq * lm[j];
            for (int l = 0; l < 32; ++l) {
                const int q = sd > 0 ? nearest_int((x[32 * j + l] + md) / sd) : 0;
                L[32 * j + l] = static_cast<uint8_t>(std::clamp(q, 0, 15));
            }
        }
        for (int g = 0; g < 4; ++g)
            for (int l = 0; l < 32; ++l)
                blk.qs[32 * g + l] =
                    static_cast<uint8_t>(L[64 * g + l] | (L[64 * g + 32 + l] << 4));
    }
}

void dequantize_row_q4_k(const BlockQ4_K* x, float* y, int64_t n) {
    require_multiple(n, kQK_K, "dequantize_row_q4_k");
    for (int64_t b = 0; b < n / kQK_K; ++b) {
        const float d = half_to_float(x[b].d), dmin = half_to_float(x[b].dmin);
        const uint8_t* q = x[b].qs;
        for (int g = 0; g < 4; ++g, q += 32) {
            uint8_t sc, m;
            q4_k_scale_min(x[b].scales, 2 * g, sc, m);
            const float d1 = d * sc, m1 = dmin * m;
            q4_k_scale_min(x[b].scales, 2 * g + 1, sc, m);
            const float d2 = d * sc, m2 = dmin * m;
            for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>(q[l] & 0xF) - m1;
            for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>(q[l] >> 4) - m2;
        }
    }
}

void quantize_row_q6_k(const float* x, BlockQ6_K* y, int64_t n) {
    require_multiple(n, kQK_K, "quantize_row_q6_k");
    for (int64_t b = 0; b < n / kQK_K; ++b, x += kQK_K) {
        BlockQ6_K& blk = y[b];
        std::memset(&blk, 0, sizeof blk);
        // Per sub-block of 16: signed maximum maps to -32 (full 6-bit range).
        float scale[16];
        float max_abs_scale = 0, max_scale = 0;
        for (int j = 0; j < 16; ++j) {
            float amax = 0, vmax = 0;
            for (int l = 0; l < 16; ++l)
                if (std::fabs(x[16 * j + l]) > amax)
                    amax = std::fabs(x[16 * j + l]), vmax = x[16 * j + l];
            scale[j] = vmax / -32.0f;
            if (std::fabs(scale[j]) > max_abs_scale)
                max_abs_scale = std::fabs(scale[j]), max_scale = scale[j];
        }
        const float d = max_scale / -128.0f;
        blk.d = float_to_half(d);
        const float dq = half_to_float(blk.d);
        uint8_t L[kQK_K];
        for (int j = 0; j < 16; ++j) {
            const int sc = dq != 0 ? std::clamp(nearest_int(scale[j] / dq), -128, 127) : 0;
            blk.scales[j] = static_cast<int8_t>(sc);
            const float sd = dq * static_cast<float>(sc);
            for (int l = 0; l < 16; ++l) {
                const int q = sd != 0 ? nearest_int(x[16 * j + l] / sd) : 0;
                L[16 * j + l] = static_cast<uint8_t>(std::clamp(q, -32, 31) + 32);
            }
        }
        for (int h = 0; h < 2; ++h) {
            uint8_t* ql = blk.ql + 64 * h;
            uint8_t* qh = blk.qh + 32 * h;
            const uint8_t* Lh = L + 128 * h;
            for (int l = 0; l < 32; ++l) {
                ql[l] = static_cast<uint8_t>((Lh[l] & 0xF) | ((Lh[l + 64] & 0xF) << 4));
                ql[l + 32] = static_cast<uint8_t>((Lh[l + 32] & 0xF) | ((Lh[l + 96] & 0xF) << 4));
                qh[l] = static_cast<uint8_t>((Lh[l] >> 4) | ((Lh[l + 32] >> 4) << 2) |
                                             ((Lh[l + 64] >> 4) << 4) | ((Lh[l + 96] >> 4) << 6));
            }
        }
    }
}

void dequantize_row_q6_k(const BlockQ6_K* x, float* y, int64_t n) {
    require_multiple(n, kQK_K, "dequantize_row_q6_k");
    for (int64_t b = 0; b < n / kQK_K; ++b) {
        const float d = half_to_float(x[b].d);
        for (int h = 0; h < 2; ++h, y += 128) {
            const uint8_t* ql = x[b].ql + 64 * h;
            const uint8_t* qh = x[b].qh + 32 * h;
            const int8_t* sc = x[b].scales + 8 * h;
            for (int l = 0; l < 32; ++l) {
                const int is = l / 16;
                const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
                const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
                const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                y[l] = d * static_cast<float>(sc[is + 0] * q1);
                y[l + 32] = d * static_cast<float>(sc[is + 2] * q2);
                y[l + 64] = d * static_cast<float>(sc[is + 4] * q3);
                y[l + 96] = d * static_cast<float>(sc[is + 6] * q4);
            }
        }
    }
}

void quantize_row_q8x(const float* x, BlockQ8x* y, int64_t n) {
    require_multiple(n, 32, "quantize_row_q8x");
    for (int64_t b = 0; b < n / 32; ++b, x += 32) {
        float amax = 0.0f;
        for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[i]));
        const float d = amax / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        for (int i = 0; i < 32; ++i)
            y[b].qs[i] = static_cast<int8_t>(std::nearbyint(x[i] * id));  // ties to even
        y[b].d = d;
        y[b].spare = 0;
    }
}

void dequantize_row_q8x(const BlockQ8x* x, float* y, int64_t n) {
    require_multiple(n, 32, "dequantize_row_q8x");
    for (int64_t b = 0; b < n / 32; ++b)
        for (int i = 0; i < 32; ++i) *y++ = x[b].d * static_cast<float>(x[b].qs[i]);
}

namespace {

template <class Block>
std::vector<uint8_t> quantize_blocks(std::span<const float> v, int per_block,
                                     void (*fn)(const float*, Block*, int64_t)) {
    const auto n = static_cast<int64_t>(v.size());
    require_multiple(n, per_block, "ggml::quantize");
    std::vector<uint8_t> out(static_cast<size_t>(n / per_block) * sizeof(Block));
    std::vector<Block> blocks(static_cast<size_t>(n / per_block));
    fn(v.data(), blocks.data(), n);
    if (!out.empty()) std::memcpy(out.data(), blocks.data(), out.size());
    return out;
}

template <class Block>
std::vector<float> dequantize_blocks(std::span<const uint8_t> bytes, size_t n, int per_block,
                                     void (*fn)(const Block*, float*, int64_t)) {
    require_multiple(static_cast<int64_t>(n), per_block, "ggml::dequantize");
    std::vector<Block> blocks(n / per_block);
    if (!blocks.empty()) std::memcpy(blocks.data(), bytes.data(), blocks.size() * sizeof(Block));
    std::vector<float> out(n);
    fn(blocks.data(), out.data(), static_cast<int64_t>(n));
    return out;
}

}  // namespace

std::vector<uint8_t> quantize(DType dtype, std::span<const float> v) {
    switch (dtype) {
        case DType::q4_0:
            return quantize_blocks<BlockQ4_0>(v, kQK4_0, quantize_row_q4_0);
        case DType::q8_0:
            return quantize_blocks<BlockQ8_0>(v, kQK8_0, quantize_row_q8_0);
        case DType::q4_k:
            return quantize_blocks<BlockQ4_K>(v, kQK_K, quantize_row_q4_k);
        case DType::q6_k:
            return quantize_blocks<BlockQ6_K>(v, kQK_K, quantize_row_q6_k);
        case DType::q8x:
            return quantize_blocks<BlockQ8x>(v, 32, quantize_row_q8x);
        case DType::f16: {
            std::vector<uint8_t> out(v.size() * 2);
            for (size_t i = 0; i < v.size(); ++i) {
                const uint16_t h = float_to_half(v[i]);
                std::memcpy(out.data() + 2 * i, &h, 2);
            }
            return out;
        }
        case DType::f32: {
            std::vector<uint8_t> out(v.size() * 4);
            if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
            return out;
        }
        default:
            throw std::invalid_argument("ggml::quantize: unsupported dtype " +
                                        std::string(dtype_name(dtype)));
    }
}

std::vector<float> dequantize(DType dtype, std::span<const uint8_t> bytes, size_t n) {
    if (dtype == DType::f32 || dtype == DType::f16 || dtype_is_quantized(dtype)) {
        const uint64_t need = dtype_bytes_for(dtype, n);
        if (bytes.size() < need)
            throw std::invalid_argument("ggml::dequantize: " + std::string(dtype_name(dtype)) +
                                        " needs " + std::to_string(need) + " bytes for " +
                                        std::to_string(n) + " values, got " +
                                        std::to_string(bytes.size()));
    }
    switch (dtype) {
        case DType::q4_0:
            return dequantize_blocks<BlockQ4_0>(bytes, n, kQK4_0, dequantize_row_q4_0);
        case DType::q8_0:
            return dequantize_blocks<BlockQ8_0>(bytes, n, kQK8_0, dequantize_row_q8_0);
        case DType::q4_k:
            return dequantize_blocks<BlockQ4_K>(bytes, n, kQK_K, dequantize_row_q4_k);
        case DType::q6_k:
            return dequantize_blocks<BlockQ6_K>(bytes, n, kQK_K, dequantize_row_q6_k);
        case DType::q8x:
            return dequantize_blocks<BlockQ8x>(bytes, n, 32, dequantize_row_q8x);
        case DType::f16: {
            std::vector<float> out(n);
            for (size_t i = 0; i < n; ++i) {
                uint16_t h;
                std::memcpy(&h, bytes.data() + 2 * i, 2);
                out[i] = half_to_float(h);
            }
            return out;
        }
        case DType::f32: {
            std::vector<float> out(n);
            if (n) std::memcpy(out.data(), bytes.data(), n * 4);
            return out;
        }
        default:
            throw std::invalid_argument("ggml::dequantize: unsupported dtype " +
                                        std::string(dtype_name(dtype)));
    }
}

}  // namespace graphlens::ggml
