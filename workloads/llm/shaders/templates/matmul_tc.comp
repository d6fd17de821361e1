#version 450
// Tensor-core twin of templates/matmul.comp (GL_NV_cooperative_matrix): the same bindings,
// push constants, 256 threads and TILE_N x TILE_M output tile per workgroup, so the kernel
// registry can swap it in for the matmul_* kernel of the same defines on a device with
// VK_NV_cooperative_matrix (16 x 16 x 16 f16 x f16 + f32, subgroups of 32) without changing
// the recorded dispatch. Weight tiles are dequantised (w_oct) and activation tiles converted
// to f16 in shared memory; products accumulate in f32 cooperative matrices.
//
// Shared tiles: ws [TILE_N rows][BK k], xs [TILE_M columns][BK k], f16, row stride BK + 8
// halves (80 bytes for BK 32: 16-byte aligned for the matrix loads, rows spread over banks).
// Elements of W at or past k (float rows may end inside a tile) read as 0, and so do those of x.
// 8 warps as WARPS_N (rows) x WARPS_M (columns); each holds FN x FM 16 x 16 accumulators.
// Results go through a per-warp 16 x 16 f32 staging area so partial tiles are bounds-checked.
// The next k tile is read from global memory into registers while the tensor cores work on the
// current one (TC_NO_PREFETCH: after it, the variant "_nopf"); BK 64 is the variant "_bk64".
// TC_HALF_BLOCKS (Q4_0, Q8_0): a thread loads half a block (16 weights, one scale) and
// dequantises it as f16 pairs, instead of an octet in f32: fewer loads, a quarter of the
// arithmetic.
// TC_STAGES 2: two shared stages, one barrier per k tile (48 KiB at 128 x 128; the tensor-core
// path requires that much, DeviceFacts::tensor_cores). Measurements per tile shape:
// docs/history.md, Tensor cores.
//
// TC_REFLECT builds the reflection twin: the same declarations and memory accesses with the
// cooperative-matrix operations left out, for spirv-cross 2021 (which cannot parse NV
// cooperative-matrix types). The catalog reflects the twin and checks it against matmul_*.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#ifndef TC_REFLECT
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#endif
#define WG_SIZE 256

#ifndef TILE
#define TILE 128
#endif
#ifndef TILE_N
#define TILE_N TILE
#endif
#ifndef TILE_M
#define TILE_M TILE
#endif
#ifndef BK
#define BK 32              // k per shared tile: 32 or 64
#endif
#define LDS (BK + 8)       // halves per shared row
#ifndef TC_STAGES
#define TC_STAGES 1        // shared tiles: 1, or 2 (one barrier per k tile)
#endif
#if TC_STAGES == 2 && defined(TC_NO_PREFETCH)
#error "TC_STAGES 2 always prefetches the next tile"
#endif
#define WT (TILE_N * BK / 8 / WG_SIZE)  // W octets per thread per tile
#define XT (TILE_M * BK / 4 / WG_SIZE)  // x quads per thread per tile
#if TILE_N == 128 && TILE_M == 128
#define WARPS_N 2
#else
#define WARPS_N 4
#endif
#define WARPS_M (8 / WARPS_N)
#define FN (TILE_N / (16 * WARPS_N))  // 16-row fragments per warp
#define FM (TILE_M / (16 * WARPS_M))  // 16-column fragments per warp

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

#if defined(TC_HALF_BLOCKS) && (defined(W_Q4_0) || defined(W_Q8_0))
#define HALF_BLOCKS 1
// Half h of one block (32 weights) of the row at byte rb, as 8 f16 pairs: v[4g + 2i] holds
// weights HB_K(h, g, i) + 0 and + 2 of the block, v[4g + 2i + 1] weights + 1 and + 3.
// An integer u below 1024 or'ed into the f16 bits 0x6400 is the f16 1024 + u: minus 1024 + the
// format's offset that is the quant exactly, and the one rounding of quant * d in f16 equals
// float16_t(d * quant) of the f32 path (the product is exact in f32).
#if defined(W_Q4_0)
// Q4_0: bytes 8h .. 8h+7 of the nibbles; low nibbles are weights 8h + j, high ones 16 + 8h + j.
#define HB_K(h, g, i) (8u * (h) + 16u * (g) + 4u * (i))
void w_half_block(uint rb, uint blk, uint h, out f16vec2 v[8]) {
    const uint bo = rb + blk * 18u;
    const f16vec2 d = f16vec2(float16_t(w_half_at(bo)));
    const f16vec2 off = f16vec2(float16_t(1032.0));  // 1024 + 8
    const uint q[2] = uint[2](w_u32_at(bo + 2u + 8u * h), w_u32_at(bo + 6u + 8u * h));
    [[unroll]] for (uint i = 0; i < 2u; ++i)
        [[unroll]] for (uint g = 0; g < 2u; ++g) {  // g: low, high nibbles
            const uint n = q[i] >> (4u * g);
            v[4u * g + 2u * i] = (unpackFloat2x16((n & 0x000F000Fu) | 0x64006400u) - off) * d;
            v[4u * g + 2u * i + 1u] =
                (unpackFloat2x16(((n >> 8) & 0x000F000Fu) | 0x64006400u) - off) * d;
        }
}
#else
// Q8_0: bytes 16h .. 16h+15 are weights 16h + j; a signed byte xor 0x80 is itself + 128.
#define HB_K(h, g, i) (16u * (h) + 8u * (g) + 4u * (i))
void w_half_block(uint rb, uint blk, uint h, out f16vec2 v[8]) {
    const uint bo = rb + blk * 34u;
    const f16vec2 d = f16vec2(float16_t(w_half_at(bo)));
    const f16vec2 off = f16vec2(float16_t(1152.0));  // 1024 + 128
    [[unroll]] for (uint w = 0; w < 4u; ++w) {  // word w = 2g + i
        const uint u = w_u32_at(bo + 2u + 16u * h + 4u * w) ^ 0x80808080u;
        v[2u * w] = (unpackFloat2x16((u & 0x00FF00FFu) | 0x64006400u) - off) * d;
        v[2u * w + 1u] = (unpackFloat2x16(((u >> 8) & 0x00FF00FFu) | 0x64006400u) - off) * d;
    }
}
#endif
#define WH (TILE_N * BK / 16)                   // half blocks per W tile
#define WHT ((WH + WG_SIZE - 1) / WG_SIZE)      // per thread
#endif

// Scalar f16 arrays: the matrix loads read the matrix component type itself.
shared float16_t ws[TC_STAGES * TILE_N * LDS];
shared float16_t xs[TC_STAGES * TILE_M * LDS];
shared float stage[8 * 256];

void main() {
    const uint lid = gl_LocalInvocationID.x;
    const uint r0 = gl_WorkGroupID.x * TILE_N;
    const uint c0 = gl_WorkGroupID.y * TILE_M;
    const uint warp = lid / 32u, lane = lid % 32u;
    // Split k (GraphSession::*_split_k): workgroup z sums k range z of gl_NumWorkGroups.z equal
    // ones and writes its partial product as column block z of y.
    const uint ks = p.k / gl_NumWorkGroups.z, kb = gl_WorkGroupID.z * ks, ke = kb + ks;
    const uint yb = gl_WorkGroupID.z * p.m * p.y_stride;
    const uint wn = warp % WARPS_N, wm = warp / WARPS_N;

#ifndef TC_REFLECT
    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[FN][FM];
    [[unroll]] for (uint i = 0; i < FN; ++i)
        [[unroll]] for (uint j = 0; j < FM; ++j)
            acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
#endif

    // Global -> registers for the tile at k0: TILE_N rows x BK/8 octets of W (dequantised) and
    // TILE_M columns x BK/4 quads of x (8 lanes read one column's 128 bytes per 32 k).
#ifdef HALF_BLOCKS
    f16vec2 wh[WHT][8];
#define LOAD_W(K0)                                                                     \
    [[unroll]] for (uint t = 0; t < WHT; ++t) {                                        \
        const uint task = lid + WG_SIZE * t;                                           \
        const uint rr = task / (BK / 16u), hb = task % (BK / 16u), row = r0 + rr;      \
        if (task < WH && row < p.n && (K0) + 32u * (hb / 2u) < p.k) {                  \
            w_half_block(row * p.row_bytes, (K0) / 32u + hb / 2u, hb % 2u, wh[t]);     \
        } else {                                                                       \
            [[unroll]] for (uint e = 0; e < 8u; ++e) wh[t][e] = f16vec2(0.0);          \
        }                                                                              \
    }
#define STORE_W(S)                                                                     \
    [[unroll]] for (uint t = 0; t < WHT; ++t) {                                        \
        const uint task = lid + WG_SIZE * t;                                           \
        const uint rr = task / (BK / 16u), hb = task % (BK / 16u);                     \
        const uint b = (S) * (TILE_N * LDS) + rr * LDS + 32u * (hb / 2u);              \
        if (task < WH) {                                                               \
            [[unroll]] for (uint g = 0; g < 2u; ++g) {                                 \
                [[unroll]] for (uint i = 0; i < 2u; ++i) {                             \
                    const uint o = b + HB_K(hb % 2u, g, i);                            \
                    ws[o] = wh[t][4u * g + 2u * i].x;                                  \
                    ws[o + 1u] = wh[t][4u * g + 2u * i + 1u].x;                        \
                    ws[o + 2u] = wh[t][4u * g + 2u * i].y;                             \
                    ws[o + 3u] = wh[t][4u * g + 2u * i + 1u].y;                        \
                }                                                                      \
            }                                                                          \
        }                                                                              \
    }
#else
    float wv[WT][8];
#define LOAD_W(K0)                                                                     \
    [[unroll]] for (uint t = 0; t < WT; ++t) {                                         \
        const uint task = lid + WG_SIZE * t;                                           \
        const uint rr = task / (BK / 8u), o = task % (BK / 8u), row = r0 + rr;          \
        if (row < p.n && (K0) + 8u * o < p.k) {                                        \
            w_oct(row * p.row_bytes, (K0) / 8u + o, wv[t]);                            \
        } else {                                                                       \
            [[unroll]] for (uint e = 0; e < 8u; ++e) wv[t][e] = 0.0;                   \
        }                                                                              \
    }
#define STORE_W(S)                                                                     \
    [[unroll]] for (uint t = 0; t < WT; ++t) {                                         \
        const uint task = lid + WG_SIZE * t;                                           \
        const uint rr = task / (BK / 8u), o = task % (BK / 8u);                        \
        [[unroll]] for (uint e = 0; e < 8u; ++e)                                       \
            ws[(S) * (TILE_N * LDS) + rr * LDS + 8u * o + e] = float16_t(wv[t][e]);    \
    }
#endif
    vec4 xv[XT];
#define LOAD_TILE(K0)                                                                  \
    LOAD_W(K0)                                                                         \
    [[unroll]] for (uint t = 0; t < XT; ++t) {                                         \
        const uint task = lid + WG_SIZE * t;                                           \
        const uint cc = task / (BK / 4u), q = task % (BK / 4u), col = c0 + cc;         \
        xv[t] = vec4(0.0);                                                             \
        if (col < p.m) {                                                               \
            const uint kq = (K0) + 4u * q, base = col * p.x_stride + kq;               \
            if (kq + 4u <= p.k) { /* a whole quad: four loads, no per-element test */   \
                [[unroll]] for (uint e = 0; e < 4u; ++e) xv[t][e] = x[base + e];       \
            } else {                                                                   \
                [[unroll]] for (uint e = 0; e < 4u; ++e)                               \
                    if (kq + e < p.k) xv[t][e] = x[base + e];                          \
            }                                                                          \
        }                                                                              \
    }

    // Registers -> shared stage S, as f16.
#define STORE_TILE(S)                                                                  \
    STORE_W(S)                                                                         \
    [[unroll]] for (uint t = 0; t < XT; ++t) {                                         \
        const uint task = lid + WG_SIZE * t;                                           \
        const uint cc = task / (BK / 4u), q = task % (BK / 4u);                        \
        [[unroll]] for (uint e = 0; e < 4u; ++e)                                       \
            xs[(S) * (TILE_M * LDS) + cc * LDS + 4u * q + e] = float16_t(xv[t][e]);    \
    }
#ifndef TC_REFLECT
#define PRODUCTS(S)                                                                    \
    [[unroll]] for (uint kk = 0; kk < BK; kk += 16) {                                  \
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a[FN];                                \
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> b[FM];                                \
        [[unroll]] for (uint i = 0; i < FN; ++i)                                       \
            coopMatLoadNV(a[i], ws, (S) * (TILE_N * LDS) + (wn * FN + i) * 16u * LDS + kk, \
                          LDS, false);                                                 \
        [[unroll]] for (uint j = 0; j < FM; ++j)                                       \
            coopMatLoadNV(b[j], xs, (S) * (TILE_M * LDS) + (wm * FM + j) * 16u * LDS + kk, \
                          LDS, true);                                                  \
        [[unroll]] for (uint i = 0; i < FN; ++i)                                       \
            [[unroll]] for (uint j = 0; j < FM; ++j)                                   \
                acc[i][j] = coopMatMulAddNV(a[i], b[j], acc[i][j]);                    \
    }
#else
#define PRODUCTS(S)
#endif

    LOAD_TILE(kb)
#if TC_STAGES == 2
    // Two stages: the products read stage s while the next tile's registers go to stage s ^ 1,
    // which every warp finished reading before the previous barrier: one barrier per k tile.
    STORE_TILE(0u)
    barrier();
    uint s = 0u;
    for (uint k0 = kb; k0 < ke; k0 += BK) {
        const bool more = k0 + BK < ke;
        if (more) {
            LOAD_TILE(k0 + BK)
        }
        PRODUCTS(s)
        if (more) {
            STORE_TILE(s ^ 1u)
        }
        barrier();
        s ^= 1u;
    }
#else
    for (uint k0 = kb; k0 < ke; k0 += BK) {
        STORE_TILE(0u)
        barrier();
#ifndef TC_NO_PREFETCH
        // The next tile's global loads are in flight during this tile's products.
        if (k0 + BK < ke) {
            LOAD_TILE(k0 + BK)
        }
#endif
        PRODUCTS(0u)
        barrier();
#ifdef TC_NO_PREFETCH
        if (k0 + BK < ke) {
            LOAD_TILE(k0 + BK)
        }
#endif
    }
#endif

    // Each 16 x 16 result: column-major into this warp's staging area, then 32 lanes write
    // it out, 16 consecutive rows of a column per half-warp.
    [[unroll]] for (uint i = 0; i < FN; ++i)
        [[unroll]] for (uint j = 0; j < FM; ++j) {
#ifndef TC_REFLECT
            coopMatStoreNV(acc[i][j], stage, warp * 256u, 16u, true);
#endif
            subgroupMemoryBarrierShared();
            subgroupBarrier();
            const uint rb = r0 + (wn * FN + i) * 16u, cb = c0 + (wm * FM + j) * 16u;
            [[unroll]] for (uint e = 0; e < 8u; ++e) {
                const uint idx = lane + 32u * e, row = rb + idx % 16u, col = cb + idx / 16u;
                if (row < p.n && col < p.m) y[yb + col * p.y_stride + row] = stage[warp * 256u + idx];
            }
            subgroupMemoryBarrierShared();
            subgroupBarrier();
        }
}
