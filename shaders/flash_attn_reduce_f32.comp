#version 450
// Combines the per-split partials of flash_attn_vec: o = sum_s o_s e^(m_s - M) / sum_s l_s
// e^(m_s - M), M = max_s m_s. tmp: [head_dim + 2, n_splits, n_heads]; out: [head_dim, n_heads].
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x = WG_SIZE) in;

layout(set = 0, binding = 0) readonly buffer Tmp { float tmp[]; };
layout(set = 0, binding = 1) writeonly buffer O { float o[]; };

layout(push_constant) uniform Params {
    uint head_dim;
    uint n_heads;
    uint n_splits;
} p;

void main() {
    const uint h = gl_WorkGroupID.x;
    const uint stride = p.head_dim + 2u;
    const uint base = h * p.n_splits * stride;
    float mx = -1.0 / 0.0;
    for (uint s = 0; s < p.n_splits; ++s) mx = max(mx, tmp[base + s * stride + p.head_dim]);
    float sum = 0.0;
    if (!isinf(mx))
        for (uint s = 0; s < p.n_splits; ++s)
            sum += tmp[base + s * stride + p.head_dim + 1u] * exp(tmp[base + s * stride + p.head_dim] - mx);
    for (uint d = gl_LocalInvocationID.x; d < p.head_dim; d += WG_SIZE) {
        float acc = 0.0;
        if (!isinf(mx))
            for (uint s = 0; s < p.n_splits; ++s)
                acc += tmp[base + s * stride + d] * exp(tmp[base + s * stride + p.head_dim] - mx);
        o[h * p.head_dim + d] = sum > 0.0 ? acc / sum : 0.0;
    }
}
