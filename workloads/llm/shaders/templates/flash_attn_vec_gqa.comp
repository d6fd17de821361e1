#version 450
// flash_attn_vec for long KV lengths: as flash_attn_vec.comp, but workgroup (split, KV head,
// head batch) attends keys [split * split_len, +split_len) for up to HEAD_BATCH query heads
// that share the KV head (grouped-query attention) and writes each head's unnormalised
// partial (o[head_dim], running max m, sum l) to tmp; the last of the batch's workgroups to
// finish combines the batch's partials into out (attn_combine.glsl), all in one dispatch.
// q: [head_dim, n_heads] f32; k, v caches: [head_dim, n_kv_heads, capacity] (KV_F16: f16,
// else f32), first kv_len tokens valid; the query is at position kv_len - 1.
// window > 0: only the last `window` keys (sliding window); softcap > 0: s = cap tanh(s/cap).
// The split is walked in chunks of WG_SIZE keys with an online softmax per chunk:
//   scores: a quad of lanes per key, coalesced row reads (attn_scores.glsl), the chunk's loads
//           issued together so it costs one memory round trip, each K row read once for all
//           heads of the batch; then one thread per key;
//   P.V:    thread (group g, dims 4*d4..+3) sums the chunk's keys g, g + G, ... with
//           vectorised, coalesced V loads (a key's row is read by consecutive lanes), again
//           once for all heads of the batch;
// the G groups' sums meet in shared memory at the end. head_dim: multiple of 4, <= 256.
// The host dispatches (splits, n_kv_heads * ceil(group / HEAD_BATCH)) workgroups, where
// group = n_heads / n_kv_heads: keep HEAD_BATCH equal to kFlashAttnHeadBatch in attention.cpp.

// 256 threads: a whole split of the default length is one chunk, one round trip for K and
// one for V, which is what the decode latency is made of.
#define WG_SIZE 256
#define HEAD_BATCH 4
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#define MAX_HD4 64  // 256 / 4
#define MAX_SG 64   // WG_SIZE / 4 (smallest subgroup the ops accept)

layout(local_size_x = WG_SIZE) in;

layout(set = 0, binding = 0) readonly buffer Q { vec4 q4[]; };
#ifdef KV_F16
layout(set = 0, binding = 1) readonly buffer K { uvec2 k4[]; };
layout(set = 0, binding = 2) readonly buffer V { uvec2 v4[]; };
vec4 load_k(uint i) { uvec2 u = k4[i]; return vec4(unpackHalf2x16(u.x), unpackHalf2x16(u.y)); }
vec4 load_v(uint i) { uvec2 u = v4[i]; return vec4(unpackHalf2x16(u.x), unpackHalf2x16(u.y)); }
#else
layout(set = 0, binding = 1) readonly buffer K { vec4 k4[]; };
layout(set = 0, binding = 2) readonly buffer V { vec4 v4[]; };
vec4 load_k(uint i) { return k4[i]; }
vec4 load_v(uint i) { return v4[i]; }
#endif
layout(set = 0, binding = 3) coherent buffer Tmp { float tmp[]; };  // partials
layout(set = 0, binding = 4) writeonly buffer O { float o[]; };
layout(set = 0, binding = 5) coherent buffer Counters { uint counters[]; };  // per row, 0

layout(push_constant) uniform Params {
    uint head_dim;
    uint n_heads;
    uint n_kv_heads;
    uint kv_len;
    uint split_len;
    uint n_splits;
    float scale;
    float softcap;
    uint window;
} p;

shared vec4 q_sh[HEAD_BATCH][MAX_HD4];
shared float p_sh[HEAD_BATCH][WG_SIZE];  // the chunk's probabilities e^(s - m)
shared vec4 o_sh[WG_SIZE];               // per-group P.V sums of one head, combined at the end
shared float batch_red[HEAD_BATCH][MAX_SG];

#include "attn_scores.glsl"
#include "attn_combine.glsl"

// Workgroup max (or sum) of v[r] for every head of the batch, with one pair of barriers.
void batch_reduce(inout float v[HEAD_BATCH], bool is_max) {
    for (uint r = 0; r < HEAD_BATCH; ++r) v[r] = is_max ? subgroupMax(v[r]) : subgroupAdd(v[r]);
    if (subgroupElect())
        for (uint r = 0; r < HEAD_BATCH; ++r) batch_red[r][gl_SubgroupID] = v[r];
    barrier();
    for (uint r = 0; r < HEAD_BATCH; ++r) {
        float a = batch_red[r][0];
        for (uint i = 1; i < gl_NumSubgroups; ++i)
            a = is_max ? max(a, batch_red[r][i]) : a + batch_red[r][i];
        v[r] = a;
    }
    barrier();
}

void main() {
    const uint split = gl_WorkGroupID.x;
    const uint tid = gl_LocalInvocationID.x;
    const uint group = p.n_heads / p.n_kv_heads;
    const uint n_batches = (group + HEAD_BATCH - 1u) / HEAD_BATCH;
    const uint kvh = gl_WorkGroupID.y / n_batches;
    const uint h0 = kvh * group + (gl_WorkGroupID.y % n_batches) * HEAD_BATCH;
    const uint nh = min(uint(HEAD_BATCH), kvh * group + group - h0);  // heads in this batch
    const uint hd4 = p.head_dim / 4u;
    const uint token_stride4 = p.n_kv_heads * hd4;
    const uint head_base4 = kvh * hd4;

    for (uint i = tid; i < HEAD_BATCH * hd4; i += WG_SIZE) {
        const uint r = i / hd4, e = i % hd4;
        q_sh[r][e] = r < nh ? q4[(h0 + r) * hd4 + e] * p.scale : vec4(0.0);
    }

    uint first = split * p.split_len;
    const uint last = min(p.kv_len, first + p.split_len);
    if (p.window > 0u && p.kv_len > p.window) first = max(first, p.kv_len - p.window);

    // P.V layout: n_groups groups of hd4 threads; threads past them only score keys.
    const uint n_groups = WG_SIZE / hd4;
    const uint g = tid / hd4, d4 = tid % hd4;
    const bool pv_thread = g < n_groups;

    float m[HEAD_BATCH];  // running max per head, the same in every thread
    float l[HEAD_BATCH];  // this thread's keys' share of the running sum per head
    vec4 acc[HEAD_BATCH];
    for (uint r = 0; r < HEAD_BATCH; ++r) {
        m[r] = -1.0 / 0.0;
        l[r] = 0.0;
        acc[r] = vec4(0.0);
    }
    barrier();

    for (uint c0 = first; c0 < last; c0 += WG_SIZE) {
        const uint j = c0 + tid;
        chunk_scores(c0, last, token_stride4, head_base4, hd4);
        barrier();
        float s[HEAD_BATCH];
        for (uint r = 0; r < HEAD_BATCH; ++r) s[r] = p_sh[r][tid];  // -inf past last
        if (j < last && p.softcap > 0.0)
            for (uint r = 0; r < HEAD_BATCH; ++r) s[r] = p.softcap * tanh(s[r] / p.softcap);
        float m_chunk[HEAD_BATCH] = s;
        batch_reduce(m_chunk, true);  // finite: key c0 is valid
        float corr[HEAD_BATCH];
        for (uint r = 0; r < HEAD_BATCH; ++r) {
            const float m_new = max(m[r], m_chunk[r]);
            corr[r] = exp(m[r] - m_new);
            const float pj = j < last ? exp(s[r] - m_new) : 0.0;
            p_sh[r][tid] = pj;
            l[r] = l[r] * corr[r] + pj;
            m[r] = m_new;
        }
        barrier();
        if (pv_thread) {
            const uint n = min(uint(WG_SIZE), last - c0);
            vec4 a[HEAD_BATCH];
            for (uint r = 0; r < HEAD_BATCH; ++r) a[r] = vec4(0.0);
            for (uint k = g; k < n; k += n_groups) {
                const vec4 v = load_v((c0 + k) * token_stride4 + head_base4 + d4);
                for (uint r = 0; r < HEAD_BATCH; ++r) a[r] += p_sh[r][k] * v;
            }
            for (uint r = 0; r < HEAD_BATCH; ++r) acc[r] = acc[r] * corr[r] + a[r];
        }
        barrier();  // p_sh is rewritten by the next chunk
    }

    batch_reduce(l, false);
    for (uint r = 0; r < nh; ++r) {
        o_sh[tid] = pv_thread ? acc[r] : vec4(0.0);
        barrier();
        const uint out_base = ((h0 + r) * p.n_splits + split) * (p.head_dim + 2u);
        if (tid < hd4) {
            vec4 o = vec4(0.0);
            for (uint gi = 0; gi < n_groups; ++gi) o += o_sh[gi * hd4 + tid];
            for (uint c = 0; c < 4u; ++c) tmp[out_base + 4u * tid + c] = o[c];
        }
        if (tid == 0u) {
            tmp[out_base + p.head_dim] = m[r];
            tmp[out_base + p.head_dim + 1u] = l[r];
        }
        barrier();  // o_sh is rewritten for the next head
    }
    if (!last_split(gl_WorkGroupID.y)) return;
    for (uint i = tid; i < nh * p.head_dim; i += WG_SIZE) {
        const uint h = h0 + i / p.head_dim, d = i % p.head_dim;
        o[h * p.head_dim + d] = combine(h, d);
    }
}
