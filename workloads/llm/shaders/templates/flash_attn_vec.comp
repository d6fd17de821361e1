#version 450
// Decode attention for one query token, split over the KV length, in one dispatch: workgroup
// (split, head) attends keys [split * split_len, +split_len) and writes its unnormalised
// partial (o[head_dim], running max m, sum l) to tmp; the last of a head's workgroups to
// finish combines the head's partials into out (attn_combine.glsl).
// q: [head_dim, n_heads] f32; k, v caches: [head_dim, n_kv_heads, capacity] (KV_F16: f16,
// else f32), first kv_len tokens valid; the query is at position kv_len - 1.
// window > 0: only the last `window` keys (sliding window); softcap > 0: s = cap tanh(s/cap).
// The split is walked in chunks of WG_SIZE keys with an online softmax per chunk:
//   scores: a quad of lanes per key, coalesced row reads (attn_scores.glsl), the chunk's loads
//           issued together so it costs one memory round trip; then one thread per key;
//   P.V:    thread (group g, dims 4*d4..+3) sums the chunk's keys g, g + G, ... with
//           vectorised, coalesced V loads (a key's row is read by consecutive lanes);
// the G groups' sums meet in shared memory at the end. head_dim: multiple of 4, <= 256.
// 256 threads: a whole split of the default length is one chunk, one round trip for K and
// one for V, which is what the decode latency is made of.
#define WG_SIZE 256
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#define MAX_HD4 64  // 256 / 4

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
layout(set = 0, binding = 5) coherent buffer Counters { uint counters[]; };  // per head, 0

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

#define HEAD_BATCH 1  // attn_scores.glsl: one query head per workgroup
#define PV_PAIRS 4    // pairs of V rows a P.V thread loads together
shared vec4 q_sh[HEAD_BATCH][MAX_HD4];
shared float p_sh[HEAD_BATCH][WG_SIZE];  // the chunk's scores, then probabilities e^(s - m)
shared vec4 o_sh[WG_SIZE];               // per-group P.V sums, combined at the end

#include "attn_scores.glsl"
#include "attn_combine.glsl"

void main() {
    const uint split = gl_WorkGroupID.x;
    const uint h = gl_WorkGroupID.y;
    const uint tid = gl_LocalInvocationID.x;
    const uint kvh = h / (p.n_heads / p.n_kv_heads);
    const uint hd4 = p.head_dim / 4u;
    const uint token_stride4 = p.n_kv_heads * hd4;
    const uint head_base4 = kvh * hd4;

    if (tid < hd4) q_sh[0][tid] = q4[h * hd4 + tid] * p.scale;

    uint first = split * p.split_len;
    const uint last = min(p.kv_len, first + p.split_len);
    if (p.window > 0u && p.kv_len > p.window) first = max(first, p.kv_len - p.window);

    // P.V layout: n_groups groups of hd4 threads; threads past them only score keys.
    const uint n_groups = WG_SIZE / hd4;
    const uint g = tid / hd4, d4 = tid % hd4;
    const bool pv_thread = g < n_groups;

    float m = -1.0 / 0.0;  // running max, the same in every thread
    float l = 0.0;         // this thread's keys' share of the running sum
    vec4 acc = vec4(0.0);
    barrier();

    for (uint c0 = first; c0 < last; c0 += WG_SIZE) {
        const uint j = c0 + tid;
        chunk_scores(c0, last, token_stride4, head_base4, hd4);
        barrier();
        float s = p_sh[0][tid];  // -inf past last
        if (j < last && p.softcap > 0.0) s = p.softcap * tanh(s / p.softcap);
        const float m_new = max(m, wg_reduce_max(s));  // finite: key c0 is valid
        const float corr = exp(m - m_new);
        const float pj = j < last ? exp(s - m_new) : 0.0;
        p_sh[0][tid] = pj;
        l = l * corr + pj;
        m = m_new;
        barrier();
        if (pv_thread) {
            const uint n = min(uint(WG_SIZE), last - c0);
            vec4 a0 = vec4(0.0), a1 = vec4(0.0);
            // Pairs of keys k, k + n_groups (a0, a1), PV_PAIRS pairs' V rows loaded before
            // any is used (one memory round trip a batch), summed in the order of one pair at
            // a time.
            uint k = g;
            for (;;) {
                vec4 v[PV_PAIRS][2];
                [[unroll]] for (uint b = 0; b < PV_PAIRS; ++b) {
                    const uint kb = k + 2u * n_groups * b;
                    const bool pair = kb + n_groups < n;
                    v[b][0] = pair ? load_v((c0 + kb) * token_stride4 + head_base4 + d4)
                                   : vec4(0.0);
                    v[b][1] = pair ? load_v((c0 + kb + n_groups) * token_stride4 +
                                            head_base4 + d4)
                                   : vec4(0.0);
                }
                uint done = 0u;
                [[unroll]] for (uint b = 0; b < PV_PAIRS; ++b) {
                    const uint kb = k + 2u * n_groups * b;
                    if (kb + n_groups < n) {
                        a0 += p_sh[0][kb] * v[b][0];
                        a1 += p_sh[0][kb + n_groups] * v[b][1];
                        ++done;
                    }
                }
                k += 2u * n_groups * done;
                if (done < PV_PAIRS) break;
            }
            if (k < n) a0 += p_sh[0][k] * load_v((c0 + k) * token_stride4 + head_base4 + d4);
            acc = acc * corr + a0 + a1;
        }
        barrier();  // p_sh is rewritten by the next chunk
    }

    const float sum = wg_reduce_add(l);
    o_sh[tid] = pv_thread ? acc : vec4(0.0);
    barrier();
    const uint out_base = (h * p.n_splits + split) * (p.head_dim + 2u);
    if (tid < hd4) {
        vec4 o = vec4(0.0);
        for (uint gi = 0; gi < n_groups; ++gi) o += o_sh[gi * hd4 + tid];
        for (uint c = 0; c < 4u; ++c) tmp[out_base + 4u * tid + c] = o[c];
    }
    if (tid == 0u) {
        tmp[out_base + p.head_dim] = m;
        tmp[out_base + p.head_dim + 1u] = sum;
    }
    if (!last_split(h)) return;
    for (uint d = tid; d < p.head_dim; d += WG_SIZE) o[h * p.head_dim + d] = combine(h, d);
}
