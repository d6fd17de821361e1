#version 450
// Matrix-matrix product for prefill: Y[c][r] = sum_k W[r][k] X[c][k], tiled TILE rows x TILE
// columns x 16 k through shared memory (TILE = 64 or 128), 256 threads each computing
// TILE/16 x TILE/16 outputs from vec4 reads of the tiles. Weight format from weights.glsl (one
// W_* define); each weight is dequantised once per tile, eight at a time (matmul_tile.glsl).
//
// Double-buffered: the global loads of tile t+1 go out before the products of tile t, and land
// in the other shared buffer after them (one barrier per tile). Shared layout: [k][group of 4
// rows (columns)] vec4, the group index XOR-swizzled by k / 4 so that the tile stores (lanes
// spread over k) and the vec4 reads (lanes spread over rows) mostly hit distinct banks.
// 2 buffers x (W + X) x 128 x 16 floats = 32 KiB, lavapipe's limit.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#define WG_SIZE 256  // common.glsl is left out: its reduction scratch would not fit beside the tiles

#ifndef TILE
#define TILE 128
#endif
#define BK 16
#define G (TILE / 4)    // vec4 groups per tile row
#define TI (TILE / 64)  // vec4 groups per thread along rows and along columns

layout(local_size_x = WG_SIZE) in;

#include "matmul_params.glsl"

#include "weight_binding.glsl"
layout(set = 0, binding = 1) readonly buffer X { float x[]; };
layout(set = 0, binding = 2) writeonly buffer Y { float y[]; };
#ifdef W_AFFINE
layout(set = 0, binding = 3) readonly buffer S { float16_t scales[]; };
layout(set = 0, binding = 4) readonly buffer B { float16_t biases[]; };
#endif

#include "weights.glsl"
#include "matmul_tile.glsl"

shared vec4 ws[2][BK][G];
shared vec4 xs[2][BK][G];

uint swz(uint kk, uint g) { return g ^ ((kk >> 2) & 7u); }

// A tile's global data in registers: W as TILE rows x 2 octets (WT per thread, the last
// round partial for TILE 64), X as TILE columns x 4 quads of k (TI per thread; 4 lanes read
// one column's 64 bytes).
#define WT ((2 * TILE + WG_SIZE - 1) / WG_SIZE)
struct Staged {
    float w[WT][8];
    float x[TI][4];
};

void fetch(uint k0, uint r0, uint c0, uint lid, out Staged st) {
    [[unroll]] for (uint t = 0; t < WT; ++t) {
        const uint task = lid + WG_SIZE * t;
        const uint row = r0 + task / 2u;
        if (task < 2u * TILE && row < p.n) {
            w_oct(row * p.row_bytes, k0 / 8u + task % 2u, st.w[t]);
        } else {
            [[unroll]] for (uint e = 0; e < 8u; ++e) st.w[t][e] = 0.0;
        }
    }
    [[unroll]] for (uint t = 0; t < TI; ++t) {
        const uint task = lid + WG_SIZE * t;
        const uint col = c0 + task / 4u;
        [[unroll]] for (uint e = 0; e < 4u; ++e) {
            const uint kg = k0 + 4u * (task % 4u) + e;
            st.x[t][e] = (col < p.m && kg < p.k) ? x[col * p.x_stride + kg] : 0.0;
        }
    }
}

void stage(uint b, uint lid, in Staged st) {
    [[unroll]] for (uint t = 0; t < WT; ++t) {
        const uint task = lid + WG_SIZE * t;
        if (task >= 2u * TILE) break;
        const uint rr = task / 2u, o = task % 2u;
        [[unroll]] for (uint e = 0; e < 8u; ++e) {
            const uint kk = 8u * o + e;
            ws[b][kk][swz(kk, rr / 4u)][rr % 4u] = st.w[t][e];
        }
    }
    [[unroll]] for (uint t = 0; t < TI; ++t) {
        const uint task = lid + WG_SIZE * t;
        const uint cc = task / 4u, q = task % 4u;
        [[unroll]] for (uint e = 0; e < 4u; ++e) {
            const uint kk = 4u * q + e;
            xs[b][kk][swz(kk, cc / 4u)][cc % 4u] = st.x[t][e];
        }
    }
}

void main() {
    const uint lid = gl_LocalInvocationID.x;
    const uint r0 = gl_WorkGroupID.x * TILE;
    const uint c0 = gl_WorkGroupID.y * TILE;
    // 8 warps of 32 as 2 (rows) x 4 (columns); lanes as 8 (rows) x 4 (columns). Thread groups
    // of 4 rows: wr * 8 TI + lr + 8 i; of 4 columns: wc * 4 TI + lc + 4 j.
    const uint w = lid / 32u, l = lid % 32u;
    const uint rg = (w % 2u) * 8u * TI + l % 8u;
    const uint cg = (w / 2u) * 4u * TI + l / 8u;

    vec4 acc[TI * 4][TI];
    [[unroll]] for (uint i = 0; i < TI * 4; ++i)
        [[unroll]] for (uint j = 0; j < TI; ++j) acc[i][j] = vec4(0.0);

    Staged st;
    fetch(0u, r0, c0, lid, st);
    stage(0u, lid, st);
    barrier();
    uint b = 0u;
    for (uint k0 = 0; k0 < p.k; k0 += BK) {
        const bool more = k0 + BK < p.k;
        if (more) fetch(k0 + BK, r0, c0, lid, st);
        [[unroll]] for (uint kk = 0; kk < BK; ++kk) {
            vec4 a[TI], bv[TI];
            [[unroll]] for (uint i = 0; i < TI; ++i) a[i] = ws[b][kk][swz(kk, rg + 8u * i)];
            [[unroll]] for (uint j = 0; j < TI; ++j) bv[j] = xs[b][kk][swz(kk, cg + 4u * j)];
            [[unroll]] for (uint i = 0; i < TI; ++i)
                [[unroll]] for (uint r = 0; r < 4u; ++r)
                    [[unroll]] for (uint j = 0; j < TI; ++j) acc[4 * i + r][j] += a[i][r] * bv[j];
        }
        // The other buffer was last read before the previous barrier.
        if (more) stage(b ^ 1u, lid, st);
        barrier();
        b ^= 1u;
    }
    [[unroll]] for (uint i = 0; i < TI; ++i)
        [[unroll]] for (uint r = 0; r < 4u; ++r) {
            const uint row = r0 + 4u * (rg + 8u * i) + r;
            if (row >= p.n) continue;
            [[unroll]] for (uint j = 0; j < TI; ++j)
                [[unroll]] for (uint c = 0; c < 4u; ++c) {
                    const uint col = c0 + 4u * (cg + 4u * j) + c;
                    if (col < p.m) y[col * p.y_stride + row] = acc[4 * i + r][j][c];
                }
        }
}
