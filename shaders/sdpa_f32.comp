#version 450
// Scaled dot-product attention, f32, grouped-query heads, optional causal mask (prefill).
// q, out: [head_dim, n_heads, seq_q]; k, v: [head_dim, n_kv_heads, seq_kv] (head_dim
// innermost). Query i sits at absolute position seq_kv - seq_q + i; with causal set it sees
// keys 0..that position. One workgroup per (query, head); keys in tiles of WG_SIZE with an
// online softmax, so seq_kv is unbounded.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#define MAX_HEAD_DIM 256

layout(local_size_x = WG_SIZE) in;

layout(set = 0, binding = 0) readonly buffer Q { float q[]; };
layout(set = 0, binding = 1) readonly buffer K { float kc[]; };
layout(set = 0, binding = 2) readonly buffer V { float vc[]; };
layout(set = 0, binding = 3) writeonly buffer O { float o[]; };

layout(push_constant) uniform Params {
    uint head_dim;
    uint n_heads;
    uint n_kv_heads;
    uint seq_q;
    uint seq_kv;
    float scale;
    uint causal;
} p;

shared float q_sh[MAX_HEAD_DIM];
shared float p_sh[WG_SIZE];

void main() {
    const uint lid = gl_LocalInvocationID.x;
    const uint qi = gl_WorkGroupID.x;
    const uint h = gl_WorkGroupID.y;
    const uint kvh = h / (p.n_heads / p.n_kv_heads);
    const uint hd = p.head_dim;
    const uint q_base = (qi * p.n_heads + h) * hd;
    for (uint d = lid; d < hd; d += WG_SIZE) q_sh[d] = q[q_base + d] * p.scale;
    barrier();

    const uint n_keys = p.causal != 0u ? min(p.seq_kv, p.seq_kv - p.seq_q + qi + 1u) : p.seq_kv;
    const uint kv_token_stride = p.n_kv_heads * hd;
    float m = -1.0 / 0.0, l = 0.0;
    float acc[MAX_HEAD_DIM / WG_SIZE + 1];
    for (uint t = 0; t < acc.length(); ++t) acc[t] = 0.0;

    for (uint j0 = 0; j0 < n_keys; j0 += WG_SIZE) {
        const uint j = j0 + lid;
        float s = -1.0 / 0.0;
        if (j < n_keys) {
            s = 0.0;
            const uint kb = j * kv_token_stride + kvh * hd;
            for (uint d = 0; d < hd; ++d) s += q_sh[d] * kc[kb + d];
        }
        const float m_new = max(m, wg_reduce_max(s));
        const float pj = j < n_keys ? exp(s - m_new) : 0.0;
        p_sh[lid] = pj;
        const float tile_sum = wg_reduce_add(pj);  // its barrier also publishes p_sh
        const float corr = exp(m - m_new);
        l = l * corr + tile_sum;
        const uint tile_n = min(uint(WG_SIZE), n_keys - j0);
        for (uint t = 0; t < acc.length(); ++t) {
            const uint d = lid + t * WG_SIZE;
            if (d >= hd) break;
            float a = acc[t] * corr;
            for (uint jj = 0; jj < tile_n; ++jj)
                a += p_sh[jj] * vc[(j0 + jj) * kv_token_stride + kvh * hd + d];
            acc[t] = a;
        }
        m = m_new;
        barrier();
    }
    for (uint t = 0; t < acc.length(); ++t) {
        const uint d = lid + t * WG_SIZE;
        if (d < hd) o[q_base + d] = l > 0.0 ? acc[t] / l : 0.0;
    }
}
