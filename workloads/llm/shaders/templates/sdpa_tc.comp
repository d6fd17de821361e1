#version 450
// Tensor-core twin of sdpa.comp's head-dim <= 64 variant (sdpa_{f32,f16}_hd64), for devices with
// VK_NV_cooperative_matrix: the same bindings, push constants, 256 threads and grid (one
// workgroup per 32 queries and query head), so the kernel registry swaps it in without changing
// the recorded dispatch (see matmul_tc.comp). The arithmetic: q (scaled), K, V and the softmax
// weights P as f16, scores and P·V accumulated in f32 (16 x 16 x 16 f16 fragments).
//
// A key tile of 64 per step. The 8 warps each own one 16 x 16 fragment of the 32 x 64 score tile
// (S = Q K^T over the 64 head dims), then one 16 x 16 fragment of the 32 x 64 output tile (P V
// over the 64 keys). Both go through the f32 staging area st, where the 8 threads of a query row
// do the online softmax (clustered subgroup max and sum) and keep the row's running output in
// registers (8 dimensions each): NV cooperative matrices give no per-row access to scale an
// accumulator. The next tile's K and V are read into registers while the current one is
// computed. Head dims below 64 are zero-padded; queries and keys outside the block read as 0
// and their scores are masked.
//
// TC_REFLECT builds the reflection twin (same declarations and memory accesses, no
// cooperative-matrix operations) for spirv-cross 2021; see shaders/CMakeLists.txt.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_clustered : require
#ifndef TC_REFLECT
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#endif

#define WG_SIZE 256
#define BQ 32                 // queries per workgroup, as sdpa_*_hd64
#define BKV 64                // keys per tile
#define HD 64                 // head dims, zero-padded
#define LDH (HD + 8)          // halves per shared row of q, K, V and P (144 bytes: 16-byte aligned)
#define LDS (BKV + 4)         // floats per row of the staging area
#define TPR (WG_SIZE / BQ)    // threads per query row: 8
#define CPT (BKV / TPR)       // keys (softmax) and output dims (accumulate) per thread: 8
#define PER_THREAD (BKV * HD / WG_SIZE)  // K and V values a thread loads per tile: 16

layout(local_size_x = WG_SIZE) in;

#ifdef KV_F16
#define KV_T float16_t
#else
#define KV_T float
#endif

layout(set = 0, binding = 0) readonly buffer Q { float q[]; };
layout(set = 0, binding = 1) readonly buffer K { KV_T kc[]; };
layout(set = 0, binding = 2) readonly buffer V { KV_T vc[]; };
layout(set = 0, binding = 3) writeonly buffer O { float o[]; };

layout(push_constant) uniform Params {
    uint head_dim;
    uint n_heads;
    uint n_kv_heads;
    uint seq_q;
    uint seq_kv;
    float scale;
    uint causal;
    float softcap;
    uint window;
} p;

shared float16_t qh[BQ * LDH];
shared float16_t kh[BKV * LDH];
shared float16_t vh[BKV * LDH];
shared float16_t ph[BQ * LDH];
shared float st[BQ * LDS];  // the tile's scores, then its P·V

const float NEG_INF = -1.0 / 0.0;

void main() {
    const uint lid = gl_LocalInvocationID.x, warp = lid / 32u;
    const uint q0 = gl_WorkGroupID.x * BQ;
    const uint h = gl_WorkGroupID.y;
    const uint hd = p.head_dim;
    const uint kv_base = (h / (p.n_heads / p.n_kv_heads)) * hd;
    const uint tok = p.n_kv_heads * hd;
    const uint nq = min(uint(BQ), p.seq_q - q0);

    for (uint e = lid; e < BQ * HD; e += WG_SIZE) {
        const uint i = e / HD, d = e % HD;
        qh[i * LDH + d] = float16_t(
            (i < nq && d < hd) ? q[((q0 + i) * p.n_heads + h) * hd + d] * p.scale : 0.0);
    }

    // Keys this block of queries can see: [lo, hi).
    const uint pos0 = p.seq_kv - p.seq_q + q0;
    const uint hi = p.causal != 0u ? min(p.seq_kv, pos0 + nq) : p.seq_kv;
    const uint lo = (p.window > 0u && pos0 + 1u > p.window) ? pos0 + 1u - p.window : 0u;

    // Softmax and output: thread (r, part) owns query row r, keys / dims part*8 .. part*8+7.
    const uint r = lid / TPR, part = lid % TPR;
    const uint pos = pos0 + r;
    float acc[CPT];
    [[unroll]] for (uint t = 0; t < CPT; ++t) acc[t] = 0.0;
    float m = NEG_INF, l = 0.0;
    // This warp's fragment of the score and output tiles.
    const uint rb = warp / 4u, cb = warp % 4u;

    float kr[PER_THREAD], vr[PER_THREAD];
#define LOAD_KV(J0)                                                                    \
    [[unroll]] for (uint u = 0; u < PER_THREAD; ++u) {                                 \
        const uint e = lid + u * WG_SIZE, jj = e / HD, d = e % HD, key = (J0) + jj;    \
        const bool inside = key < hi && d < hd;                                        \
        const uint at = key * tok + kv_base + d;                                       \
        kr[u] = inside ? float(kc[at]) : 0.0;                                          \
        vr[u] = inside ? float(vc[at]) : 0.0;                                          \
    }
    LOAD_KV(lo)
    for (uint j0 = lo; j0 < hi; j0 += BKV) {
        barrier();  // the last tile's readers are done (and qh is written)
        [[unroll]] for (uint u = 0; u < PER_THREAD; ++u) {
            const uint e = lid + u * WG_SIZE, jj = e / HD, d = e % HD;
            kh[jj * LDH + d] = float16_t(kr[u]);
            vh[jj * LDH + d] = float16_t(vr[u]);
        }
        barrier();
        if (j0 + BKV < hi) {
            LOAD_KV(j0 + BKV)
        }
#ifndef TC_REFLECT
        {
            fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> s = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
            [[unroll]] for (uint kk = 0; kk < HD; kk += 16) {
                fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a, b;
                coopMatLoadNV(a, qh, rb * 16u * LDH + kk, LDH, false);
                coopMatLoadNV(b, kh, cb * 16u * LDH + kk, LDH, true);  // K^T: keys are columns
                s = coopMatMulAddNV(a, b, s);
            }
            coopMatStoreNV(s, st, rb * 16u * LDS + cb * 16u, LDS, false);
        }
#endif
        barrier();
        float sc[CPT];
        float tile_max = NEG_INF;
        [[unroll]] for (uint t = 0; t < CPT; ++t) {
            const uint key = j0 + part * CPT + t;
            float s = st[r * LDS + part * CPT + t];
            if (p.softcap > 0.0) s = p.softcap * tanh(s / p.softcap);
            const bool visible = r < nq && key < hi && (p.causal == 0u || key <= pos) &&
                                 (p.window == 0u || key + p.window > pos);
            sc[t] = visible ? s : NEG_INF;
            tile_max = max(tile_max, sc[t]);
        }
        const float mx = max(m, subgroupClusteredMax(tile_max, TPR));
        float sum = 0.0;
        [[unroll]] for (uint t = 0; t < CPT; ++t) {
            // The row sum adds the f16 weights the products use.
            const float16_t w = float16_t(mx == NEG_INF ? 0.0 : exp(sc[t] - mx));
            ph[r * LDH + part * CPT + t] = w;
            sum += float(w);
        }
        const float corr = mx == NEG_INF ? 1.0 : exp(m - mx);
        m = mx;
        l = l * corr + subgroupClusteredAdd(sum, TPR);
        barrier();  // ph complete, scores read
#ifndef TC_REFLECT
        {
            fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> pv = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
            [[unroll]] for (uint kk = 0; kk < BKV; kk += 16) {
                fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a, b;
                coopMatLoadNV(a, ph, rb * 16u * LDH + kk, LDH, false);
                coopMatLoadNV(b, vh, kk * LDH + cb * 16u, LDH, false);
                pv = coopMatMulAddNV(a, b, pv);
            }
            coopMatStoreNV(pv, st, rb * 16u * LDS + cb * 16u, LDS, false);
        }
#endif
        barrier();
        [[unroll]] for (uint t = 0; t < CPT; ++t)
            acc[t] = acc[t] * corr + st[r * LDS + part * CPT + t];
    }
    if (r < nq) {
        [[unroll]] for (uint t = 0; t < CPT; ++t) {
            const uint d = part * CPT + t;
            if (d < hd) o[((q0 + r) * p.n_heads + h) * hd + d] = l > 0.0 ? acc[t] / l : 0.0;
        }
    }
}
