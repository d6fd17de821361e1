#version 450
// RMS normalisation of each row: y = x / sqrt(mean(x^2) + eps) [* w] [* m] [+ a].
// f32 accumulation whatever the storage type. One workgroup per row.
//   HAS_WEIGHT: multiply by the norm weight w (one row, broadcast)
//   HAS_MUL:    fused rms_norm→mul: multiply by m (row stride mul_stride, 0 = broadcast)
//   HAS_ADD:    fused rms_norm→mul→add: add a (row stride add_stride, 0 = broadcast)
//   IO_F16:     x and y are f16 (weights stay f32)
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x = WG_SIZE) in;

#ifdef IO_F16
#define IO_T float16_t
#else
#define IO_T float
#endif

layout(set = 0, binding = 0) readonly buffer X { IO_T x[]; };
#ifdef HAS_WEIGHT
layout(set = 0, binding = 1) readonly buffer W { float w[]; };
#endif
#ifdef HAS_MUL
layout(set = 0, binding = 2) readonly buffer M { float m[]; };
#endif
#ifdef HAS_ADD
layout(set = 0, binding = 3) readonly buffer A { float a[]; };
#endif
layout(set = 0, binding = 4) writeonly buffer Y { IO_T y[]; };

layout(push_constant) uniform Params {
    uint rows;
    uint dim;
    float eps;
    uint mul_stride;  // elements between rows of m (0: one row broadcast)
    uint add_stride;  // elements between rows of a (0: one row broadcast)
} p;

void main() {
    const uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (row >= p.rows) return;  // uniform per workgroup: safe around barriers
    const uint base = row * p.dim;
    float ss = 0.0;
    for (uint i = gl_LocalInvocationID.x; i < p.dim; i += WG_SIZE) {
        float v = float(x[base + i]);
        ss += v * v;
    }
    ss = wg_reduce_add(ss);
    const float inv = inversesqrt(ss / float(p.dim) + p.eps);
    for (uint i = gl_LocalInvocationID.x; i < p.dim; i += WG_SIZE) {
        float v = float(x[base + i]) * inv;
#ifdef HAS_WEIGHT
        v *= w[i];
#endif
#ifdef HAS_MUL
        v *= m[row * p.mul_stride + i];
#endif
#ifdef HAS_ADD
        v += a[row * p.add_stride + i];
#endif
        y[base + i] = IO_T(v);
    }
}
