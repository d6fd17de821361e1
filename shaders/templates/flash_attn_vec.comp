#version 450
// Decode attention for one query token, split over the KV length: workgroup (split, head)
// attends keys [split * split_len, +split_len) and writes its unnormalised partial
// (o[head_dim], running max m, sum l) to tmp; flash_attn_reduce combines the splits.
// q: [head_dim, n_heads] f32; k, v caches: [head_dim, n_kv_heads, capacity] (KV_F16: f16,
// else f32), first kv_len tokens valid; the query is at position kv_len - 1.
// window > 0: only the last `window` keys (sliding window); softcap > 0: s = cap tanh(s/cap).
// Subgroups take keys in turn; lanes own 4 consecutive dims (vectorised loads), a key's score
// is one subgroupAdd. head_dim must be a multiple of 4 and at most 256.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#define MAX_HEAD_DIM 256
#define MAX_T 8  // groups of 4 dims per lane: 256 / 4 / 8 (smallest subgroup)
#define MAX_SG (WG_SIZE / 8)

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
layout(set = 0, binding = 3) writeonly buffer Tmp { float tmp[]; };

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

shared float part_m[MAX_SG];
shared float part_l[MAX_SG];
shared vec4 part_o[MAX_SG][MAX_HEAD_DIM / 4];

void main() {
    const uint split = gl_WorkGroupID.x;
    const uint h = gl_WorkGroupID.y;
    const uint kvh = h / (p.n_heads / p.n_kv_heads);
    const uint hd4 = p.head_dim / 4u;
    const uint lane = gl_SubgroupInvocationID, sg = gl_SubgroupID;
    const uint sgs = gl_SubgroupSize;

    vec4 qv[MAX_T];
    for (uint t = 0; t < MAX_T; ++t) {
        const uint d4 = lane + t * sgs;
        qv[t] = d4 < hd4 ? q4[h * hd4 + d4] * p.scale : vec4(0.0);
    }

    uint first = split * p.split_len;
    const uint last = min(p.kv_len, first + p.split_len);
    if (p.window > 0u && p.kv_len > p.window) first = max(first, p.kv_len - p.window);

    float m = -1.0 / 0.0, l = 0.0;
    vec4 acc[MAX_T];
    for (uint t = 0; t < MAX_T; ++t) acc[t] = vec4(0.0);
    const uint token_stride4 = p.n_kv_heads * hd4;

    for (uint j = first + sg; j < last; j += gl_NumSubgroups) {
        const uint base = j * token_stride4 + kvh * hd4;
        float part = 0.0;
        for (uint t = 0; t < MAX_T; ++t) {
            const uint d4 = lane + t * sgs;
            if (d4 < hd4) part += dot(qv[t], load_k(base + d4));
        }
        float s = subgroupAdd(part);
        if (p.softcap > 0.0) s = p.softcap * tanh(s / p.softcap);
        const float m_new = max(m, s);
        const float corr = exp(m - m_new);
        const float pj = exp(s - m_new);
        l = l * corr + pj;
        for (uint t = 0; t < MAX_T; ++t) {
            const uint d4 = lane + t * sgs;
            if (d4 < hd4) acc[t] = acc[t] * corr + pj * load_v(base + d4);
        }
        m = m_new;
    }

    if (lane == 0u) {
        part_m[sg] = m;
        part_l[sg] = l;
    }
    for (uint t = 0; t < MAX_T; ++t) {
        const uint d4 = lane + t * sgs;
        if (d4 < hd4) part_o[sg][d4] = acc[t];
    }
    barrier();

    float mx = -1.0 / 0.0;
    for (uint g = 0; g < gl_NumSubgroups; ++g) mx = max(mx, part_m[g]);
    const uint out_base = (h * p.n_splits + split) * (p.head_dim + 2u);
    for (uint d4 = gl_LocalInvocationID.x; d4 < hd4; d4 += WG_SIZE) {
        vec4 o = vec4(0.0);
        if (!isinf(mx))
            for (uint g = 0; g < gl_NumSubgroups; ++g) o += part_o[g][d4] * exp(part_m[g] - mx);
        for (uint c = 0; c < 4u; ++c) tmp[out_base + 4u * d4 + c] = o[c];
    }
    if (gl_LocalInvocationID.x == 0u) {
        float sum = 0.0;
        if (!isinf(mx))
            for (uint g = 0; g < gl_NumSubgroups; ++g) sum += part_l[g] * exp(part_m[g] - mx);
        tmp[out_base + p.head_dim] = mx;
        tmp[out_base + p.head_dim + 1u] = sum;
    }
}
