#version 450
// y = x0 + x1 + ... + x{N_INPUTS-1}: the fused form of a chain of 1..8 adds (2..9 inputs).
// Inputs at bindings 0..N_INPUTS-1, output at binding 15.
#extension GL_GOOGLE_include_directive : require
#define WG_SIZE 256
#include "common.glsl"

layout(local_size_x = WG_SIZE) in;

#define IN(k) layout(set = 0, binding = k) readonly buffer X##k { float x##k[]; };
IN(0)
IN(1)
#if N_INPUTS > 2
IN(2)
#endif
#if N_INPUTS > 3
IN(3)
#endif
#if N_INPUTS > 4
IN(4)
#endif
#if N_INPUTS > 5
IN(5)
#endif
#if N_INPUTS > 6
IN(6)
#endif
#if N_INPUTS > 7
IN(7)
#endif
#if N_INPUTS > 8
IN(8)
#endif
layout(set = 0, binding = 15) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params {
    uint n;
} p;

void main() {
    const uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * WG_SIZE +
                   gl_LocalInvocationID.x;
    if (i >= p.n) return;
    // Summed in chain order so the result matches the unfused adds bit for bit.
    float s = x0[i] + x1[i];
#if N_INPUTS > 2
    s += x2[i];
#endif
#if N_INPUTS > 3
    s += x3[i];
#endif
#if N_INPUTS > 4
    s += x4[i];
#endif
#if N_INPUTS > 5
    s += x5[i];
#endif
#if N_INPUTS > 6
    s += x6[i];
#endif
#if N_INPUTS > 7
    s += x7[i];
#endif
#if N_INPUTS > 8
    s += x8[i];
#endif
    y[i] = s;
}
