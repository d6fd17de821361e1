#version 450
// Embedding gather: out[i] = dequantised row ids[i] of the table (f32 out). Table format from
// weights.glsl (one W_* define). Params: n = number of ids, k = row length, row_bytes.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x = WG_SIZE) in;

#include "matmul_params.glsl"

#include "weight_binding.glsl"
layout(set = 0, binding = 1) readonly buffer Ids { int ids[]; };
layout(set = 0, binding = 2) writeonly buffer Y { float y[]; };

#include "weights.glsl"

void main() {
    const uint e = gl_GlobalInvocationID.x;
    const uint i = gl_WorkGroupID.y;
    if (e >= p.k || i >= p.n) return;
    y[i * p.y_stride + e] = w_elem(uint(ids[i]) * p.row_bytes, e);
}
