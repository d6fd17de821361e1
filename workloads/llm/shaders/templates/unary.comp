#version 450
// Elementwise activations, f32: y = f(x) with f one of OP_GELU (tanh approximation),
// OP_SILU, OP_SOFTCAP (tanh(x / cap) * cap), OP_SCALE (x * s). GATED: y = f(x) * g, the
// fused gelu→mul / silu→mul.
#extension GL_GOOGLE_include_directive : require
#define WG_SIZE 256
#include "common.glsl"

layout(local_size_x = WG_SIZE) in;

layout(set = 0, binding = 0) readonly buffer X { float x[]; };
#ifdef GATED
layout(set = 0, binding = 1) readonly buffer G { float g[]; };
#endif
layout(set = 0, binding = 2) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params {
    uint n;
    float param;  // softcap: cap; scale: s; unused otherwise
} p;

void main() {
    const uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * WG_SIZE +
                   gl_LocalInvocationID.x;
    if (i >= p.n) return;
    const float v = x[i];
#if defined(OP_GELU)
    float r = gelu_tanh(v);
#elif defined(OP_SILU)
    float r = silu(v);
#elif defined(OP_SOFTCAP)
    float r = tanh(v / p.param) * p.param;
#elif defined(OP_SCALE)
    float r = v * p.param;
#endif
#ifdef GATED
    r *= g[i];
#endif
    y[i] = r;
}
