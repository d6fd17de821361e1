#version 450
// f32 values -> q8x blocks (DType::q8x: 32 signed bytes q, the scale d as float bits, a spare
// zero word; 10 words per block), ggml's q8 rule: d = max|x| / 127, q = roundEven(x / d) with
// x / d computed as x * (1 / d). One thread per block. The fused norm kernels (rms_norm.comp
// with Q8_OUT) quantise with the same operations, so fused and unfused graphs agree bit for
// bit; the _xq8 mat-vecs (matvec_blocks.comp with X_Q8) read the result.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"

layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer X { vec4 x4[]; };
layout(set = 0, binding = 1) writeonly buffer Y { uint yq[]; };

layout(push_constant) uniform Params {
    uint blocks;  // values / 32
} p;

void main() {
    const uint b = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u;
    if (b >= p.blocks) return;
    vec4 v[8];
    float amax = 0.0;
    [[unroll]] for (uint j = 0; j < 8u; ++j) {
        v[j] = x4[8u * b + j];
        const vec4 a = abs(v[j]);
        amax = max(amax, max(max(a.x, a.y), max(a.z, a.w)));
    }
    const float d = amax / 127.0;
    const float id = d != 0.0 ? 1.0 / d : 0.0;
    [[unroll]] for (uint j = 0; j < 8u; ++j) {
        const ivec4 q = ivec4(roundEven(v[j] * id));
        yq[10u * b + j] = uint(q.x & 255) | (uint(q.y & 255) << 8) | (uint(q.z & 255) << 16) |
                          (uint(q.w & 255) << 24);
    }
    yq[10u * b + 8u] = floatBitsToUint(d);
    yq[10u * b + 9u] = 0u;
}
