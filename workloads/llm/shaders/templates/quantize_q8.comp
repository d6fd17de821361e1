#version 450
// f32 values -> q8x blocks (DType::q8x: 32 signed bytes q, the scale d as float bits, a spare
// zero word; 10 words per block), ggml's q8 rule: d = max|x| / 127, q = roundEven(x / d) with
// x / d computed as x * (1 / d) (q8x.glsl). One thread per block. The fused norm kernels
// (rms_norm.comp with Q8_OUT) quantise with the same functions, so fused and unfused graphs
// agree bit for bit; the _xq8 mat-vecs (matvec_blocks.comp with X_Q8) read the result.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "q8x.glsl"

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
    const float id = q8x_inverse_scale(d);
    [[unroll]] for (uint j = 0; j < 8u; ++j) yq[10u * b + j] = q8x_pack(v[j], id);
    yq[10u * b + 8u] = floatBitsToUint(d);
    yq[10u * b + 9u] = 0u;
}
