#version 450
// Elementwise y = a OP b with b repeated: b[i % nb] (nb = n: plain; nb = row length: a row
// broadcast over every row of a). OP_ADD or OP_MUL; IO_F16 for f16 a, b and y.
#extension GL_GOOGLE_include_directive : require
#define WG_SIZE 256
#include "common.glsl"

layout(local_size_x = WG_SIZE) in;

#ifdef IO_F16
#define IO_T float16_t
#else
#define IO_T float
#endif

layout(set = 0, binding = 0) readonly buffer A { IO_T a[]; };
layout(set = 0, binding = 1) readonly buffer B { IO_T b[]; };
layout(set = 0, binding = 2) writeonly buffer Y { IO_T y[]; };

layout(push_constant) uniform Params {
    uint n;
    uint nb;
} p;

void main() {
    const uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * WG_SIZE +
                   gl_LocalInvocationID.x;
    if (i >= p.n) return;
    const float va = float(a[i]);
    const float vb = float(b[i % p.nb]);
#ifdef OP_ADD
    y[i] = IO_T(va + vb);
#else
    y[i] = IO_T(va * vb);
#endif
}
