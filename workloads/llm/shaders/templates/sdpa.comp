#version 450
// Scaled dot-product attention for prefill (flash-attention style): q, out f32
// [head_dim, n_heads, seq_q]; k, v f32 or f16 (KV_F16) [head_dim, n_kv_heads, seq_kv], head_dim
// innermost, grouped-query heads. Query i sits at absolute position pos = seq_kv - seq_q + i;
// causal: it sees keys up to pos; window w > 0: only keys after pos - w; softcap c > 0: scores
// become c * tanh(score / c).
//
// One workgroup per (block of BQ queries, query head). Keys go in tiles of BKV through shared
// memory, head dimensions in chunks of DC (so K and V tiles of any head dim <= 256 fit beside
// the queries in 32 KiB; SMALL_HD: head dims <= 64, the K and V tiles side by side); scores of a tile -> online softmax (running max and sum per query)
// -> the tile's weighted V rows are added to accumulators kept in registers. seq_kv is
// unbounded; only the key tiles a block can see are visited.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_control_flow_attributes : require

#define WG_SIZE 256
#define BKV 32
#define DC 64
#ifdef SMALL_HD
#define MAX_HD 64  // head dims <= 64 (llama-3.2-1b, qwen3-0.6b): K and V tiles loaded together
#define BQ 32      // queries per workgroup (ops::sdpa's grid follows the variant)
#else
#define MAX_HD 256
#define BQ 16
#endif
#define NCH (MAX_HD / DC)
#define TPQ (WG_SIZE / BQ)      // threads per query: 16, or 8 with SMALL_HD
#define KPT (BKV / TPQ)         // keys a thread scores per tile: 2 or 4
#define VPT ((DC / 4) / TPQ)    // vec4s of a chunk a thread accumulates: 1 or 2

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

shared vec4 qs[BQ][MAX_HD / 4];
shared vec4 kvs[BKV][DC / 4 + 1];  // +1 vec4: a column of keys spreads over the banks
#ifdef SMALL_HD
shared vec4 vs[BKV][DC / 4 + 1];  // the V tile, loaded with the K tile (MAX_HD == DC)
#endif
shared float ps[BQ][BKV + 1];
shared float red[BQ][TPQ];  // per-thread partial max, then partial sum, of a query's row

const float NEG_INF = -1.0 / 0.0;

// Dimensions c*DC .. c*DC+DC-1 of the key tile j0.. of K or V into kvs (0 outside).
#define LOAD_CHUNK(SRC, c)                                                             \
    for (uint e = lid; e < BKV * DC; e += WG_SIZE) {                                  \
        const uint jj = e / DC, d = e % DC, key = j0 + jj, dg = (c) * DC + d;         \
        kvs[jj][d / 4][d % 4] = (key < hi && dg < hd) ? float(SRC[key * tok + kv_base + dg]) : 0.0; \
    }

void main() {
    const uint lid = gl_LocalInvocationID.x;
    const uint q0 = gl_WorkGroupID.x * BQ;
    const uint h = gl_WorkGroupID.y;
    const uint hd = p.head_dim;
    const uint kv_base = (h / (p.n_heads / p.n_kv_heads)) * hd;
    const uint tok = p.n_kv_heads * hd;
    const uint nq = min(uint(BQ), p.seq_q - q0);

    for (uint e = lid; e < BQ * MAX_HD; e += WG_SIZE) {
        const uint i = e / MAX_HD, d = e % MAX_HD;
        qs[i][d / 4][d % 4] =
            (i < nq && d < hd) ? q[((q0 + i) * p.n_heads + h) * hd + d] * p.scale : 0.0;
    }

    // Keys this block of queries can see: [lo, hi).
    const uint pos0 = p.seq_kv - p.seq_q + q0;
    const uint hi = p.causal != 0u ? min(p.seq_kv, pos0 + nq) : p.seq_kv;
    const uint lo = (p.window > 0u && pos0 + 1u > p.window) ? pos0 + 1u - p.window : 0u;

    // Scores: thread (si, sj) computes keys sj + t TPQ (t < KPT) of query si. Outputs: thread
    // (si, sj) accumulates the vec4s sj + v TPQ (v < VPT) of each chunk of query si, so a vec4
    // of the V tile is one shared load per 4 FMAs (dimensions sj + 16 u took one per FMA).
    const uint si = lid / TPQ, sj = lid % TPQ;
    const uint pos = pos0 + si;
    vec4 acc[NCH][VPT];
    [[unroll]] for (uint c = 0; c < NCH; ++c)
        [[unroll]] for (uint v = 0; v < VPT; ++v) acc[c][v] = vec4(0.0);
    // Running max and sum of query si: the 16 threads of a query keep identical copies.
    float m = NEG_INF, l = 0.0;

    // SMALL_HD (head dims <= DC): K and V tiles are loaded together, one barrier pair a tile
    // instead of two, and only one chunk of each.
#ifdef SMALL_HD
    // The next tile's K and V values of this thread, loaded into registers while the current
    // tile is computed (global latency hidden behind the scores and P·V).
#define PER_THREAD (BKV * DC / WG_SIZE)
    float kr[PER_THREAD], vr[PER_THREAD];
    [[unroll]] for (uint u = 0; u < PER_THREAD; ++u) {
        const uint e = lid + u * WG_SIZE, jj = e / DC, d = e % DC, key = lo + jj;
        const bool inside = key < hi && d < hd;
        const uint at = key * tok + kv_base + d;
        kr[u] = inside ? float(kc[at]) : 0.0;
        vr[u] = inside ? float(vc[at]) : 0.0;
    }
#endif
    for (uint j0 = lo; j0 < hi; j0 += BKV) {
        float sc[KPT];
        [[unroll]] for (uint t = 0; t < KPT; ++t) sc[t] = 0.0;
#ifdef SMALL_HD
        {
            barrier();  // kvs, vs free (every thread done with the last tile; qs written)
            [[unroll]] for (uint u = 0; u < PER_THREAD; ++u) {
                const uint e = lid + u * WG_SIZE, jj = e / DC, d = e % DC;
                kvs[jj][d / 4][d % 4] = kr[u];
                vs[jj][d / 4][d % 4] = vr[u];
            }
            barrier();
            [[unroll]] for (uint u = 0; u < PER_THREAD; ++u) {
                const uint e = lid + u * WG_SIZE, jj = e / DC, d = e % DC, key = j0 + BKV + jj;
                const bool inside = key < hi && d < hd;
                const uint at = key * tok + kv_base + d;
                kr[u] = inside ? float(kc[at]) : 0.0;
                vr[u] = inside ? float(vc[at]) : 0.0;
            }
            [[unroll]] for (uint d4 = 0; d4 < DC / 4; ++d4) {
                const vec4 qv = qs[si][d4];
                [[unroll]] for (uint t = 0; t < KPT; ++t) sc[t] += dot(qv, kvs[sj + t * TPQ][d4]);
            }
        }
#else
        {
            [[unroll]] for (uint c = 0; c < NCH; ++c) {
                if (c * DC >= hd) break;
                barrier();  // qs written / kvs free
                LOAD_CHUNK(kc, c)
                barrier();
                [[unroll]] for (uint d4 = 0; d4 < DC / 4; ++d4) {
                    const vec4 qv = qs[si][c * (DC / 4) + d4];
                    [[unroll]] for (uint t = 0; t < KPT; ++t)
                        sc[t] += dot(qv, kvs[sj + t * TPQ][d4]);
                }
            }
        }
#endif
        float tile_max = NEG_INF;
        [[unroll]] for (uint t = 0; t < KPT; ++t) {
            const uint key = j0 + sj + t * TPQ;
            float s = sc[t];
            if (p.softcap > 0.0) s = p.softcap * tanh(s / p.softcap);
            const bool visible = si < nq && key < hi && (p.causal == 0u || key <= pos) &&
                                 (p.window == 0u || key + p.window > pos);
            sc[t] = visible ? s : NEG_INF;
            tile_max = max(tile_max, sc[t]);
        }
        // Online softmax of the tile: the row max over the query's 16 threads through shared
        // memory; the row sum is taken in the P·V loop below, which reads every p of the row
        // anyway (red is next written after the next tile's first barrier).
        red[si][sj] = tile_max;
        barrier();
        float mx = m;
        for (uint t = 0; t < TPQ; ++t) mx = max(mx, red[si][t]);
        [[unroll]] for (uint t = 0; t < KPT; ++t)
            ps[si][sj + t * TPQ] = mx == NEG_INF ? 0.0 : exp(sc[t] - mx);
        const float corr = mx == NEG_INF ? 1.0 : exp(m - mx);
        m = mx;
        [[unroll]] for (uint c = 0; c < NCH; ++c)
            [[unroll]] for (uint v = 0; v < VPT; ++v) acc[c][v] *= corr;
        float sum = 0.0;
#ifdef SMALL_HD
        {
            barrier();  // ps complete
            [[unroll]] for (uint jj = 0; jj < BKV; ++jj) {
                const float pj = ps[si][jj];
                sum += pj;
                [[unroll]] for (uint v = 0; v < VPT; ++v) acc[0][v] += pj * vs[jj][sj + v * TPQ];
            }
        }
#else
        {
            [[unroll]] for (uint c = 0; c < NCH; ++c) {
                if (c * DC >= hd) break;
                barrier();  // kvs free, ps complete
                LOAD_CHUNK(vc, c)
                barrier();
                [[unroll]] for (uint jj = 0; jj < BKV; ++jj) {
                    const float pj = ps[si][jj];
                    if (c == 0u) sum += pj;  // c is a constant of the unrolled loop
                    [[unroll]] for (uint v = 0; v < VPT; ++v)
                        acc[c][v] += pj * kvs[jj][sj + v * TPQ];
                }
            }
        }
#endif
        l = l * corr + sum;
    }
    if (si < nq) {
        [[unroll]] for (uint c = 0; c < NCH; ++c)
            [[unroll]] for (uint v = 0; v < VPT; ++v)
                [[unroll]] for (uint e = 0; e < 4u; ++e) {
                    const uint d = c * DC + 4u * (sj + v * TPQ) + e;
                    if (d < hd)
                        o[((q0 + si) * p.n_heads + h) * hd + d] =
                            l > 0.0 ? acc[c][v][e] / l : 0.0;
                }
    }
}
