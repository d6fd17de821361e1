#version 450
// Matrix-matrix product for prefill: Y[c][r] = sum_k W[r][k] X[c][k], tiled TILE_N rows x
// TILE_M columns x 32 k through shared memory (each 64 or 128; TILE sets both), 256 threads each
// computing TILE_N/16 x TILE_M/16 outputs from vec4 reads of the tiles. Weight format from weights.glsl (one
// W_* define); each weight is dequantised once per tile, eight at a time (matmul_tile.glsl).
//
// Shared layout: [k][group of 4 rows (columns)] vec4, the group index XOR-swizzled by k / 4 so
// that both the tile stores (lanes spread over k) and the vec4 reads (lanes spread over rows)
// hit distinct banks. 128 x 128 x 32 floats x 2 tiles = 32 KiB, lavapipe's limit.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#define WG_SIZE 256  // common.glsl is left out: its reduction scratch would not fit beside the tiles

#ifndef TILE
#define TILE 128
#endif
#ifndef TILE_N
#define TILE_N TILE
#endif
#ifndef TILE_M
#define TILE_M TILE
#endif
#define BK 32
#define TIR (TILE_N / 64)  // vec4 groups of 4 rows per thread
#define TIC (TILE_M / 64)  // vec4 groups of 4 columns per thread

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

shared vec4 ws[BK][TILE_N / 4];
shared vec4 xs[BK][TILE_M / 4];

uint swz(uint kk, uint g) { return g ^ ((kk >> 2) & 7u); }

void main() {
    const uint lid = gl_LocalInvocationID.x;
    const uint r0 = gl_WorkGroupID.x * TILE_N;
    const uint c0 = gl_WorkGroupID.y * TILE_M;
    // 8 warps of 32 as 2 (rows) x 4 (columns); lanes as 8 (rows) x 4 (columns). Thread groups
    // of 4 rows: wr * 8 TIR + lr + 8 i; of 4 columns: wc * 4 TIC + lc + 4 j.
    const uint w = lid / 32u, l = lid % 32u;
    const uint rg = (w % 2u) * 8u * TIR + l % 8u;
    const uint cg = (w / 2u) * 4u * TIC + l / 8u;

    vec4 acc[TIR * 4][TIC];
    [[unroll]] for (uint i = 0; i < TIR * 4; ++i)
        [[unroll]] for (uint j = 0; j < TIC; ++j) acc[i][j] = vec4(0.0);

    // Split k (GraphSession::*_split_k): workgroup z sums k range z of gl_NumWorkGroups.z equal
    // ones and writes its partial product as column block z of y.
    const uint ks = p.k / gl_NumWorkGroups.z, kb = gl_WorkGroupID.z * ks;
    const uint yb = gl_WorkGroupID.z * p.m * p.y_stride;
    for (uint k0 = kb; k0 < kb + ks; k0 += BK) {
        // W: TILE_N rows x 4 octets of k.
        [[unroll]] for (uint t = 0; t < TIR; ++t) {
            const uint task = lid + WG_SIZE * t;
            const uint rr = task / 4u, o = task % 4u, row = r0 + rr;
            float v[8];
            if (row < p.n) {
                w_oct(row * p.row_bytes, k0 / 8u + o, v);
            } else {
                [[unroll]] for (uint e = 0; e < 8u; ++e) v[e] = 0.0;
            }
            [[unroll]] for (uint e = 0; e < 8u; ++e) {
                const uint kk = 8u * o + e;
                ws[kk][swz(kk, rr / 4u)][rr % 4u] = v[e];
            }
        }
        // X: TILE_M columns x 8 quads of k; 8 lanes read one column's 128 bytes.
        [[unroll]] for (uint t = 0; t < TIC * 2; ++t) {
            const uint task = lid + WG_SIZE * t;
            const uint cc = task / 8u, q = task % 8u, col = c0 + cc;
            [[unroll]] for (uint e = 0; e < 4u; ++e) {
                const uint kk = 4u * q + e, kg = k0 + kk;
                xs[kk][swz(kk, cc / 4u)][cc % 4u] =
                    (col < p.m && kg < p.k) ? x[col * p.x_stride + kg] : 0.0;
            }
        }
        barrier();
        [[unroll]] for (uint kk = 0; kk < BK; ++kk) {
            vec4 a[TIR], b[TIC];
            [[unroll]] for (uint i = 0; i < TIR; ++i) a[i] = ws[kk][swz(kk, rg + 8u * i)];
            [[unroll]] for (uint j = 0; j < TIC; ++j) b[j] = xs[kk][swz(kk, cg + 4u * j)];
            [[unroll]] for (uint i = 0; i < TIR; ++i)
                [[unroll]] for (uint r = 0; r < 4u; ++r)
                    [[unroll]] for (uint j = 0; j < TIC; ++j) acc[4 * i + r][j] += a[i][r] * b[j];
        }
        barrier();
    }
    [[unroll]] for (uint i = 0; i < TIR; ++i)
        [[unroll]] for (uint r = 0; r < 4u; ++r) {
            const uint row = r0 + 4u * (rg + 8u * i) + r;
            if (row >= p.n) continue;
            [[unroll]] for (uint j = 0; j < TIC; ++j)
                [[unroll]] for (uint c = 0; c < 4u; ++c) {
                    const uint col = c0 + 4u * (cg + 4u * j) + c;
                    if (col < p.m) y[yb + col * p.y_stride + row] = acc[4 * i + r][j][c];
                }
        }
}
