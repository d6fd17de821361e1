#version 450
// Rotary position embedding, f32. x and y: [head_dim, n_heads, seq] (head_dim innermost).
// Pair j (j < rope_dim / 2) rotates by theta = pos * freq_scale * base^(-2j / rope_dim)
// [/ freq_factors[j]]; dimensions from rope_dim on are copied unchanged (partial rotation).
//   NEOX: pairs (j, j + rope_dim / 2); otherwise adjacent pairs (2j, 2j + 1).
// Positions (i32) come from a buffer, one per sequence element.
//   OUT_F16: y is f16 (fused rope→copy into an f16 KV cache: the copy's rounding, done here).
#extension GL_GOOGLE_include_directive : require
#define WG_SIZE 64
#include "common.glsl"

layout(local_size_x = WG_SIZE) in;

layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) readonly buffer Pos { int pos[]; };
#ifdef FREQ_FACTORS
layout(set = 0, binding = 2) readonly buffer FF { float ff[]; };
#endif
#ifdef OUT_F16
layout(set = 0, binding = 3) writeonly buffer Y { float16_t y[]; };
#define STORE(v) float16_t(v)
#else
layout(set = 0, binding = 3) writeonly buffer Y { float y[]; };
#define STORE(v) (v)
#endif

layout(push_constant) uniform Params {
    uint head_dim;
    uint n_heads;
    uint seq_len;
    uint rope_dim;
    float freq_base;
    float freq_scale;
} p;

void main() {
    // Pair j of a head; the grid's x runs over the pairs of every head of position s.
    const uint pairs = p.head_dim / 2;
    if (gl_GlobalInvocationID.x >= pairs * p.n_heads) return;
    const uint head = gl_GlobalInvocationID.x / pairs, j = gl_GlobalInvocationID.x % pairs;
    const uint s = gl_WorkGroupID.z;
    const uint base = (s * p.n_heads + head) * p.head_dim;
    const uint half_rot = p.rope_dim / 2;
    if (j >= half_rot) {
        // Unrotated tail: this thread copies two elements of it.
        const uint e = p.rope_dim + 2 * (j - half_rot);
        y[base + e] = STORE(x[base + e]);
        y[base + e + 1] = STORE(x[base + e + 1]);
        return;
    }
    float theta = float(pos[s]) * p.freq_scale * pow(p.freq_base, -2.0 * float(j) / float(p.rope_dim));
#ifdef FREQ_FACTORS
    theta /= ff[j];
#endif
    const float c = cos(theta), sn = sin(theta);
#ifdef NEOX
    const uint i0 = j, i1 = j + half_rot;
#else
    const uint i0 = 2 * j, i1 = 2 * j + 1;
#endif
    const float a = x[base + i0], b = x[base + i1];
    y[base + i0] = STORE(a * c - b * sn);
    y[base + i1] = STORE(a * sn + b * c);
}
