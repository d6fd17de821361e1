#version 450
// Contiguous copy of n elements, converting f32 to OUT_F16 when set (KV-cache append).
#extension GL_GOOGLE_include_directive : require
#define WG_SIZE 256
#include "common.glsl"

layout(local_size_x = WG_SIZE) in;

layout(set = 0, binding = 0) readonly buffer X { float x[]; };
#ifdef OUT_F16
layout(set = 0, binding = 1) writeonly buffer Y { float16_t y[]; };
#else
layout(set = 0, binding = 1) writeonly buffer Y { float y[]; };
#endif

layout(push_constant) uniform Params {
    uint n;
} p;

void main() {
    const uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * WG_SIZE +
                   gl_LocalInvocationID.x;
    if (i >= p.n) return;
#ifdef OUT_F16
    y[i] = float16_t(x[i]);
#else
    y[i] = x[i];
#endif
}
