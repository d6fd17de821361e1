#version 450
// Matrix-vector products for decode: y[c] = W x[c] for up to 8 columns per workgroup (the
// y dimension of the grid walks further columns). Weight format from weights.glsl (one W_*
// define), or W_F16_VEC: f16 rows read 8 at a time (k % 8 == 0, 16-byte aligned rows).
// A workgroup owns NR = WG_SIZE / TPR rows; the TPR threads of a row stride over its
// chunks, each weight chunk is decoded once and used for every column. Needs a subgroup
// size that divides TPR (checked by the dispatch).
//   MATVEC_ID: expert-routed (MoE): grid z = token * n_ids + slot, expert = ids[z].
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#define TPR 32
#define NR (WG_SIZE / TPR)
#define MAX_COLS 8

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

shared float col_partials[WG_SIZE / 4 * MAX_COLS];  // subgroups are at least 4 wide

void main() {
    const uint lid = gl_LocalInvocationID.x;
    const uint r_local = lid / TPR;
    const uint lane = lid % TPR;
    const uint row = gl_WorkGroupID.x * NR + r_local;
    const bool row_valid = row < p.n;

#ifdef MATVEC_ID
    const uint z = gl_WorkGroupID.z;
    const uint expert = uint(ids[z]);
    const uint rb = expert * p.expert_bytes + row * p.row_bytes;
    const uint x_base = (z / p.n_ids) * p.x_stride + (z % p.n_ids) * p.x_slot_stride;
    const uint c0 = 0;
    const uint ncols = 1;
#else
    const uint rb = row * p.row_bytes;
    const uint c0 = gl_WorkGroupID.y * MAX_COLS;
    const uint ncols = min(MAX_COLS, p.m - c0);
    const uint x_base = c0 * p.x_stride;
#endif

    float acc[MAX_COLS];
    for (uint c = 0; c < MAX_COLS; ++c) acc[c] = 0.0;

    if (row_valid) {
#if defined(W_F32) || defined(W_F16)
        for (uint kk = lane; kk < p.k; kk += TPR) {
            const float w = w_elem(rb, kk);
            for (uint c = 0; c < MAX_COLS; ++c)
                if (c < ncols) acc[c] += w * x[x_base + c * p.x_stride + kk];
        }
#elif defined(W_F16_VEC)
        const uint w0 = rb >> 4;
        const uint xs4 = p.x_stride >> 2;
        for (uint ch = lane; ch < p.k / 8u; ch += TPR) {
            const uvec4 q = wv[w0 + ch];
            const vec2 a = unpackHalf2x16(q.x), b = unpackHalf2x16(q.y);
            const vec2 cc = unpackHalf2x16(q.z), d = unpackHalf2x16(q.w);
            const vec4 lo = vec4(a, b), hi = vec4(cc, d);
            for (uint c = 0; c < MAX_COLS; ++c)
                if (c < ncols) {
                    const uint xi = (x_base >> 2) + c * xs4 + 2u * ch;
                    acc[c] += dot(lo, x4[xi]) + dot(hi, x4[xi + 1u]);
                }
        }
#else
        const uint xs4 = p.x_stride >> 2;
        float v[32];
        for (uint ch = lane; ch < p.k / 32u; ch += TPR) {
            w_chunk(rb, ch, v);
            for (uint c = 0; c < MAX_COLS; ++c)
                if (c < ncols) {
                    const uint xi = (x_base >> 2) + c * xs4 + 8u * ch;
                    float s = 0.0;
                    for (uint i = 0; i < 8u; ++i)
                        s += dot(vec4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]), x4[xi + i]);
                    acc[c] += s;
                }
        }
#endif
    }

    // Row sums: subgroups never straddle rows (subgroup size divides TPR).
    for (uint c = 0; c < MAX_COLS; ++c) {
        if (c < ncols) {
            const float s = subgroupAdd(acc[c]);
            if (subgroupElect()) col_partials[gl_SubgroupID * MAX_COLS + c] = s;
        }
    }
    barrier();
    const uint sg_per_row = TPR / gl_SubgroupSize;
    if (lid < NR * MAX_COLS) {
        const uint r = lid / MAX_COLS, c = lid % MAX_COLS;
        const uint out_row = gl_WorkGroupID.x * NR + r;
        if (c < ncols && out_row < p.n) {
            float s = 0.0;
            for (uint g = 0; g < sg_per_row; ++g) s += col_partials[(r * sg_per_row + g) * MAX_COLS + c];
#ifdef MATVEC_ID
            y[gl_WorkGroupID.z * p.y_stride + out_row] = s;
#else
            y[(c0 + c) * p.y_stride + out_row] = s;
#endif
        }
    }
}
