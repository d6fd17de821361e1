#version 450
// Contiguous copy of n elements, converting f32 to OUT_F16 when set (KV-cache append).
// VEC4: 16-byte loads and stores, n counts vec4s (the bandwidth reference of the kernel bench:
// the scalar copy reaches ~2.1 TB/s on the H100, 16-byte accesses ~3 TB/s).
#extension GL_GOOGLE_include_directive : require
#define WG_SIZE 256
#include "common.glsl"

layout(local_size_x = WG_SIZE) in;

#if defined(VEC4)
layout(set = 0, binding = 0) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1) writeonly buffer Y { vec4 y[]; };
#else
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
#ifdef OUT_F16
layout(set = 0, binding = 1) writeonly buffer Y { float16_t y[]; };
#else
layout(set = 0, binding = 1) writeonly buffer Y { float y[]; };
#endif
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
