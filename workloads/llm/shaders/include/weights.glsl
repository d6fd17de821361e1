// Weight formats of the matmul / get_rows kernels, selected by one define:
//   W_F32, W_F16, W_Q4_0, W_Q8_0, W_Q4_K, W_Q6_K (ggml blocks, GGUF layout), W_AFFINE (MLX).
// The weight buffer is declared by the including kernel (W_DECL below) as 32-bit words
// `uint wq[]`, or with WORDS16 as 16-bit words `uint16_t wq16[]`: a view whose size is not a
// multiple of 4 (an odd number of 18/34/210-byte blocks, odd f16 counts) has a last partial
// word that a 32-bit array cannot reach. W_F32 reads `float wf[]`. Reads are at byte offsets;
// a row of the matrix starts at byte row * p.row_bytes (+ expert * p.expert_bytes).
//   w_elem(rb, k):          element k of the row starting at byte rb
//   w_chunk(rb, c, v):      elements 32c .. 32c+31 of that row (K is a multiple of 32 for
//                           quantized formats)
#ifndef GRAPHLENS_WEIGHTS_GLSL
#define GRAPHLENS_WEIGHTS_GLSL

#if defined(WORDS16)
uint w_u16_at(uint byte_off) { return uint(wq16[byte_off >> 1]); }
// 32-bit value at an even byte offset.
uint w_u32_at(uint byte_off) {
    const uint i = byte_off >> 1;
    return uint(wq16[i]) | (uint(wq16[i + 1]) << 16);
}
uint w_u8_at(uint byte_off) { return (uint(wq16[byte_off >> 1]) >> ((byte_off & 1u) * 8u)) & 0xffu; }
#elif !defined(W_F32) && !defined(W_F16_VEC)
// 32-bit value at an even byte offset.
uint w_u32_at(uint byte_off) {
    const uint i = byte_off >> 2;
    if ((byte_off & 2u) == 0u) return wq[i];
    return (wq[i] >> 16) | (wq[i + 1] << 16);
}
uint w_u16_at(uint byte_off) { return (wq[byte_off >> 2] >> ((byte_off & 2u) * 8u)) & 0xffffu; }
uint w_u8_at(uint byte_off) { return (wq[byte_off >> 2] >> ((byte_off & 3u) * 8u)) & 0xffu; }
#endif
#if !defined(W_F32) && !defined(W_F16_VEC)
float w_half_at(uint byte_off) { return unpackHalf2x16(w_u16_at(byte_off)).x; }
int sext8(uint v) { return int(v << 24) >> 24; }
#endif

#if defined(W_F32)
float w_elem(uint rb, uint k) { return wf[(rb >> 2) + k]; }
#elif defined(W_F16)
float w_elem(uint rb, uint k) { return w_half_at(rb + 2u * k); }
#elif defined(W_Q4_0)
// Block: f16 d, 16 bytes of nibbles; weight j in the low nibble of byte j, j + 16 in the high.
float w_elem(uint rb, uint k) {
    const uint bo = rb + (k >> 5) * 18u;
    const uint j = k & 31u;
    const uint q = (w_u8_at(bo + 2u + (j & 15u)) >> ((j >> 4) * 4u)) & 15u;
    return w_half_at(bo) * (float(q) - 8.0);
}
void w_chunk(uint rb, uint c, out float v[32]) {
    const uint bo = rb + c * 18u;
    const float d = w_half_at(bo);
    for (uint i = 0; i < 4; ++i) {
        const uint q = w_u32_at(bo + 2u + 4u * i);
        for (uint b = 0; b < 4; ++b) {
            const uint byte = (q >> (8u * b)) & 0xffu;
            v[4 * i + b] = d * (float(byte & 15u) - 8.0);
            v[4 * i + b + 16] = d * (float(byte >> 4) - 8.0);
        }
    }
}
#elif defined(W_Q8_0)
float w_elem(uint rb, uint k) {
    const uint bo = rb + (k >> 5) * 34u;
    return w_half_at(bo) * float(sext8(w_u8_at(bo + 2u + (k & 31u))));
}
void w_chunk(uint rb, uint c, out float v[32]) {
    const uint bo = rb + c * 34u;
    const float d = w_half_at(bo);
    for (uint i = 0; i < 8; ++i) {
        const uint q = w_u32_at(bo + 2u + 4u * i);
        for (uint b = 0; b < 4; ++b) v[4 * i + b] = d * float(sext8(q >> (8u * b)));
    }
}
#elif defined(W_Q4_K)
// Super-block of 256 (144 bytes): f16 d, f16 dmin, 12 bytes of 6-bit scales/mins, 128 bytes
// of nibbles in 4 groups of 64 weights (low nibbles first 32, high nibbles next 32).
void q4k_scale_min(uint bo, uint j, out float sc, out float mn) {
    if (j < 4u) {
        sc = float(w_u8_at(bo + 4u + j) & 63u);
        mn = float(w_u8_at(bo + 8u + j) & 63u);
    } else {
        const uint a = w_u8_at(bo + 4u + j + 4u);
        sc = float((a & 15u) | ((w_u8_at(bo + 4u + j - 4u) >> 6) << 4));
        mn = float((a >> 4) | ((w_u8_at(bo + 4u + j) >> 6) << 4));
    }
}
float w_elem(uint rb, uint k) {
    const uint bo = rb + (k >> 8) * 144u;
    const uint e = k & 255u;
    const uint sub = e >> 5;  // sub-block of 32 = scale index
    const uint g = e >> 6, l = e & 31u, hi = (e >> 5) & 1u;
    const uint q = (w_u8_at(bo + 16u + 32u * g + l) >> (4u * hi)) & 15u;
    float sc, mn;
    q4k_scale_min(bo, sub, sc, mn);
    const vec2 dm = unpackHalf2x16(w_u32_at(bo));
    return dm.x * sc * float(q) - dm.y * mn;
}
void w_chunk(uint rb, uint c, out float v[32]) {
    const uint bo = rb + (c >> 3) * 144u;
    const uint sub = c & 7u;
    const uint g = sub >> 1, hi = sub & 1u;
    float sc, mn;
    q4k_scale_min(bo, sub, sc, mn);
    const vec2 dm = unpackHalf2x16(w_u32_at(bo));
    const float d = dm.x * sc, m = dm.y * mn;
    for (uint i = 0; i < 8; ++i) {
        const uint q = w_u32_at(bo + 16u + 32u * g + 4u * i);
        for (uint b = 0; b < 4; ++b) v[4 * i + b] = d * float((q >> (8u * b + 4u * hi)) & 15u) - m;
    }
}
#elif defined(W_Q6_K)
// Super-block of 256 (210 bytes): ql[128], qh[64], int8 scales[16], f16 d.
float w_elem(uint rb, uint k) {
    const uint bo = rb + (k >> 8) * 210u;
    const uint e = k & 255u;
    const uint h = e >> 7, r = e & 127u;  // half, position inside the half
    const uint quarter = r >> 5, l = r & 31u;
    const uint qlb = w_u8_at(bo + 64u * h + l + 32u * (quarter & 1u));
    const uint lo = (qlb >> (4u * (quarter >> 1))) & 15u;
    const uint hb = (w_u8_at(bo + 128u + 32u * h + l) >> (2u * quarter)) & 3u;
    const int q = int(lo | (hb << 4)) - 32;
    const int sc = sext8(w_u8_at(bo + 192u + 8u * h + (l >> 4) + 2u * quarter));
    return w_half_at(bo + 208u) * float(sc * q);
}
void w_chunk(uint rb, uint c, out float v[32]) {
    const uint bo = rb + (c >> 3) * 210u;
    const uint h = (c >> 2) & 1u, quarter = c & 3u;
    const float d = w_half_at(bo + 208u);
    const float s0 = d * float(sext8(w_u8_at(bo + 192u + 8u * h + 2u * quarter)));
    const float s1 = d * float(sext8(w_u8_at(bo + 192u + 8u * h + 1u + 2u * quarter)));
    const uint qlo = bo + 64u * h + 32u * (quarter & 1u);
    const uint qho = bo + 128u + 32u * h;
    const uint shl = 4u * (quarter >> 1), shh = 2u * quarter;
    for (uint i = 0; i < 8; ++i) {
        const uint ql = w_u32_at(qlo + 4u * i);
        const uint qh = w_u32_at(qho + 4u * i);
        for (uint b = 0; b < 4; ++b) {
            const uint lo = (ql >> (8u * b + shl)) & 15u;
            const uint hb = (qh >> (8u * b + shh)) & 3u;
            v[4 * i + b] = (i < 4u ? s0 : s1) * float(int(lo | (hb << 4)) - 32);
        }
    }
}
#elif defined(W_AFFINE)
// MLX affine quantisation: p.bits-bit values packed low bits first into u32 words; per group
// of p.group_size weights an f16 scale and bias (w = scale * q + bias), [N, K / group_size].
float w_elem(uint rb, uint k) {
    const uint row = rb / p.row_bytes;
    const uint per_word = 32u / p.bits;
    const uint q = (wq[(rb >> 2) + k / per_word] >> ((k % per_word) * p.bits)) & ((1u << p.bits) - 1u);
    const uint gi = row * (p.k / p.group_size) + k / p.group_size;
    return float(scales[gi]) * float(q) + float(biases[gi]);
}
void w_chunk(uint rb, uint c, out float v[32]) {
    const uint row = rb / p.row_bytes;
    const uint gi = row * (p.k / p.group_size) + (32u * c) / p.group_size;
    const float s = float(scales[gi]), b = float(biases[gi]);
    const uint words = p.bits;  // 32 values of `bits` bits = `bits` words
    const uint per_word = 32u / p.bits;
    const uint mask = (1u << p.bits) - 1u;
    const uint w0 = (rb >> 2) + c * words;
    for (uint i = 0; i < words; ++i) {
        const uint q = wq[w0 + i];
        for (uint e = 0; e < per_word; ++e) v[i * per_word + e] = s * float((q >> (e * p.bits)) & mask) + b;
    }
}
#endif

#endif

