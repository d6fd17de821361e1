#version 450
// MoE routing: per token, the k largest of n_experts router logits (ties: lower index
// first) with their softmax probabilities over all experts; normalize != 0 rescales the k
// weights to sum to 1. logits: [n_experts, n_tokens] f32; ids: [k, n_tokens] i32;
// weights: [k, n_tokens] f32. One thread per token (n_experts <= 256, k <= 8).
#extension GL_GOOGLE_include_directive : require
#define WG_SIZE 64
#include "common.glsl"

layout(local_size_x = WG_SIZE) in;

layout(set = 0, binding = 0) readonly buffer L { float logits[]; };
layout(set = 0, binding = 1) writeonly buffer Ids { int ids[]; };
layout(set = 0, binding = 2) writeonly buffer Wt { float weights[]; };

layout(push_constant) uniform Params {
    uint n_experts;
    uint n_tokens;
    uint k;
    uint normalize;
} p;

void main() {
    const uint t = gl_GlobalInvocationID.x;
    if (t >= p.n_tokens) return;
    const uint base = t * p.n_experts;
    float mx = -1.0 / 0.0;
    for (uint e = 0; e < p.n_experts; ++e) mx = max(mx, logits[base + e]);
    float sum = 0.0;
    for (uint e = 0; e < p.n_experts; ++e) sum += exp(logits[base + e] - mx);
    uint taken[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);  // bitmask of chosen experts
    float chosen_sum = 0.0;
    float w[8];
    int id[8];
    for (uint r = 0; r < p.k; ++r) {
        int best = -1;
        float bv = -1.0 / 0.0;
        for (uint e = 0; e < p.n_experts; ++e) {
            if ((taken[e >> 5] & (1u << (e & 31u))) != 0u) continue;
            const float v = logits[base + e];
            if (best < 0 || v > bv) {
                best = int(e);
                bv = v;
            }
        }
        taken[uint(best) >> 5] |= 1u << (uint(best) & 31u);
        id[r] = best;
        w[r] = exp(bv - mx) / sum;
        chosen_sum += w[r];
    }
    for (uint r = 0; r < p.k; ++r) {
        ids[t * p.k + r] = id[r];
        weights[t * p.k + r] = p.normalize != 0u ? w[r] / chosen_sum : w[r];
    }
}
