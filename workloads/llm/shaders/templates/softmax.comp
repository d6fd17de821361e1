#version 450
// Row softmax: y = softmax(x * scale [+ mask[row % mask_rows]]), f32, one workgroup per row.
// Rows that are entirely -inf after masking give zeros instead of NaN.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x = WG_SIZE) in;

layout(set = 0, binding = 0) readonly buffer X { float x[]; };
#ifdef HAS_MASK
layout(set = 0, binding = 1) readonly buffer Mask { float mask[]; };
#endif
layout(set = 0, binding = 2) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params {
    uint rows;
    uint cols;
    float scale;
    uint mask_rows;
} p;

float logit(uint row, uint i) {
    float v = x[row * p.cols + i] * p.scale;
#ifdef HAS_MASK
    v += mask[(row % p.mask_rows) * p.cols + i];
#endif
    return v;
}

void main() {
    const uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (row >= p.rows) return;
    float mx = -1.0 / 0.0;
    for (uint i = gl_LocalInvocationID.x; i < p.cols; i += WG_SIZE) mx = max(mx, logit(row, i));
    mx = wg_reduce_max(mx);
    const bool all_masked = isinf(mx) && mx < 0.0;
    float sum = 0.0;
    for (uint i = gl_LocalInvocationID.x; i < p.cols; i += WG_SIZE)
        sum += all_masked ? 0.0 : exp(logit(row, i) - mx);
    sum = wg_reduce_add(sum);
    const float inv = sum > 0.0 ? 1.0 / sum : 0.0;
    for (uint i = gl_LocalInvocationID.x; i < p.cols; i += WG_SIZE)
        y[row * p.cols + i] = all_masked ? 0.0 : exp(logit(row, i) - mx) * inv;
}
