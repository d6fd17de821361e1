#version 450
// Matrix-vector products for decode: y[c] = W x[c] for up to 8 columns per workgroup (the
// y dimension of the grid walks further columns). Weight format from weights.glsl (one W_*
// define), or W_F16_VEC: f16 rows read 8 at a time (k % 8 == 0, 16-byte aligned rows).
// The workgroup's threads form groups of TPR; a group owns RPT consecutive rows (a workgroup
// NR = WG_SIZE / TPR * RPT rows) and its threads stride over the rows' chunks. A chunk of x
// is loaded once for the RPT rows (x is re-read once per row otherwise, 7x the bytes of a
// Q4_0 row). Needs a subgroup size that divides TPR (checked by the dispatch).
//   RPT:       rows per thread group (default 1); the dispatch knows it per kernel
//   MATVEC_ID: expert-routed (MoE): grid z = token * n_ids + slot, expert = ids[z].
// Q4_0 / Q8_0 with 32-bit words take a fused decode-and-dot path (block_dot): a lane per
// block, weights dotted with x without materialising them. (Four lanes per block, each a
// quarter, measured slower on the H100: docs/kernels.md.)
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#define TPR 32
#ifndef RPT
#define RPT 1
#endif
#define NR (WG_SIZE / TPR * RPT)
#define MAX_COLS 8
#if (defined(W_Q4_0) || defined(W_Q8_0)) && !defined(WORDS16)
#define FUSED_DOT
#endif

layout(local_size_x = WG_SIZE) in;

#include "matmul_params.glsl"

#include "weight_binding.glsl"
#if defined(W_F32) || defined(W_F16)
layout(set = 0, binding = 1) readonly buffer X { float x[]; };
#else
layout(set = 0, binding = 1) readonly buffer X { vec4 x4[]; };
#endif
layout(set = 0, binding = 2) writeonly buffer Y { float y[]; };
#ifdef W_AFFINE
layout(set = 0, binding = 3) readonly buffer S { float16_t scales[]; };
layout(set = 0, binding = 4) readonly buffer B { float16_t biases[]; };
#endif
#ifdef MATVEC_ID
layout(set = 0, binding = 5) readonly buffer Ids { int ids[]; };
#endif

#include "weights.glsl"

#ifdef FUSED_DOT
// sum_j w_j x_j over block `blk` of the row at byte rb; xv = the block's 32 x values. The
// block's words are loaded once (5 or 9 aligned words, re-aligned by funnel shifts).
float block_dot(uint rb, uint blk, const vec4 xv[8]) {
#ifdef W_Q4_0
    const uint bo = rb + blk * 18u;
#else
    const uint bo = rb + blk * 34u;
#endif
    const uint a = bo >> 2;
    const bool shifted = (bo & 2u) != 0u;  // block starts in the upper half of word a
    const uint w0 = wq[a];
    const float d = unpackHalf2x16(shifted ? (w0 >> 16) : w0).x;
    float s = 0.0;
#ifdef W_Q4_0
    uint w[5];
    w[0] = w0;
    for (uint i = 1; i < 5u; ++i) w[i] = wq[a + i];
    for (uint i = 0; i < 4u; ++i) {
        const uint q = shifted ? w[i + 1] : ((w[i] >> 16) | (w[i + 1] << 16));
        const vec4 lo = vec4(q & 15u, (q >> 8) & 15u, (q >> 16) & 15u, (q >> 24) & 15u) - 8.0;
        const vec4 hi = vec4((q >> 4) & 15u, (q >> 12) & 15u, (q >> 20) & 15u, q >> 28) - 8.0;
        s += dot(lo, xv[i]) + dot(hi, xv[i + 4]);
    }
#else
    uint w[9];
    w[0] = w0;
    for (uint i = 1; i < 9u; ++i) w[i] = wq[a + i];
    for (uint i = 0; i < 8u; ++i) {
        const uint q = shifted ? w[i + 1] : ((w[i] >> 16) | (w[i + 1] << 16));
        const vec4 v = vec4(int(q << 24) >> 24, int(q << 16) >> 24, int(q << 8) >> 24, int(q) >> 24);
        s += dot(v, xv[i]);
    }
#endif
    return d * s;
}
#endif

shared float col_partials[WG_SIZE / 4 * RPT * MAX_COLS];  // subgroups are at least 4 wide

void main() {
    const uint lid = gl_LocalInvocationID.x;
    const uint group = lid / TPR;
    const uint lane = lid % TPR;
    const uint row0 = gl_WorkGroupID.x * NR + group * RPT;

#ifdef MATVEC_ID
    const uint z = gl_WorkGroupID.z;
    const uint expert = uint(ids[z]);
    const uint base_bytes = expert * p.expert_bytes;
    const uint x_base = (z / p.n_ids) * p.x_stride + (z % p.n_ids) * p.x_slot_stride;
    const uint c0 = 0;
    const uint ncols = 1;
#else
    const uint base_bytes = 0;
    const uint c0 = gl_WorkGroupID.y * MAX_COLS;
    const uint ncols = min(MAX_COLS, p.m - c0);
    const uint x_base = c0 * p.x_stride;
#endif

    float acc[RPT][MAX_COLS];
    for (uint r = 0; r < RPT; ++r)
        for (uint c = 0; c < MAX_COLS; ++c) acc[r][c] = 0.0;
    uint nrows = 0;  // rows of this group inside the matrix
    for (uint r = 0; r < RPT; ++r)
        if (row0 + r < p.n) nrows = r + 1;

#if defined(W_F32) || defined(W_F16)
    for (uint kk = lane; kk < p.k; kk += TPR)
        for (uint r = 0; r < RPT; ++r) {
            if (r >= nrows) break;
            const float w = w_elem(base_bytes + (row0 + r) * p.row_bytes, kk);
            for (uint c = 0; c < MAX_COLS; ++c)
                if (c < ncols) acc[r][c] += w * x[x_base + c * p.x_stride + kk];
        }
#elif defined(W_F16_VEC)
    const uint xs4 = p.x_stride >> 2;
    for (uint ch = lane; ch < p.k / 8u; ch += TPR)
        for (uint r = 0; r < RPT; ++r) {
            if (r >= nrows) break;
            const uvec4 q = wv[((base_bytes + (row0 + r) * p.row_bytes) >> 4) + ch];
            const vec4 lo = vec4(unpackHalf2x16(q.x), unpackHalf2x16(q.y));
            const vec4 hi = vec4(unpackHalf2x16(q.z), unpackHalf2x16(q.w));
            for (uint c = 0; c < MAX_COLS; ++c)
                if (c < ncols) {
                    const uint xi = (x_base >> 2) + c * xs4 + 2u * ch;
                    acc[r][c] += dot(lo, x4[xi]) + dot(hi, x4[xi + 1u]);
                }
        }
#elif defined(FUSED_DOT)
    const uint xs4 = p.x_stride >> 2;
    for (uint blk = lane; blk < p.k / 32u; blk += TPR)
        for (uint c = 0; c < MAX_COLS; ++c) {
            if (c >= ncols) break;
            vec4 xv[8];
            const uint xi = (x_base >> 2) + c * xs4 + 8u * blk;
            for (uint i = 0; i < 8u; ++i) xv[i] = x4[xi + i];
            for (uint r = 0; r < RPT; ++r)
                if (r < nrows) acc[r][c] += block_dot(base_bytes + (row0 + r) * p.row_bytes, blk, xv);
        }
#else
    const uint xs4 = p.x_stride >> 2;
    float v[32];
    for (uint ch = lane; ch < p.k / 32u; ch += TPR)
        for (uint r = 0; r < RPT; ++r) {
            if (r >= nrows) break;
            w_chunk(base_bytes + (row0 + r) * p.row_bytes, ch, v);
            for (uint c = 0; c < MAX_COLS; ++c)
                if (c < ncols) {
                    const uint xi = (x_base >> 2) + c * xs4 + 8u * ch;
                    float s = 0.0;
                    for (uint i = 0; i < 8u; ++i)
                        s += dot(vec4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]), x4[xi + i]);
                    acc[r][c] += s;
                }
        }
#endif

    // Row sums: subgroups never straddle thread groups (subgroup size divides TPR).
    for (uint r = 0; r < RPT; ++r)
        for (uint c = 0; c < MAX_COLS; ++c) {
            if (c < ncols) {
                const float s = subgroupAdd(acc[r][c]);
                if (subgroupElect()) col_partials[(gl_SubgroupID * RPT + r) * MAX_COLS + c] = s;
            }
        }
    barrier();
    const uint sg_per_group = TPR / gl_SubgroupSize;
    for (uint idx = lid; idx < NR * MAX_COLS; idx += WG_SIZE) {
        const uint rr = idx / MAX_COLS, c = idx % MAX_COLS;
        const uint g = rr / RPT, r = rr % RPT;
        const uint out_row = gl_WorkGroupID.x * NR + rr;
        if (c < ncols && out_row < p.n) {
            float s = 0.0;
            for (uint k = 0; k < sg_per_group; ++k)
                s += col_partials[((g * sg_per_group + k) * RPT + r) * MAX_COLS + c];
#ifdef MATVEC_ID
            y[gl_WorkGroupID.z * p.y_stride + out_row] = s;
#else
            y[(c0 + c) * p.y_stride + out_row] = s;
#endif
        }
    }
}
