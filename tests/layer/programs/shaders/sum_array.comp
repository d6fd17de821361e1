#version 450
// result = inputs[0] + inputs[1] over the first `count` elements: the inputs are one binding,
// a descriptor array of two buffers.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { float v[]; } inputs[2];
layout(set = 0, binding = 1) writeonly buffer Out { float v[]; } result;
layout(push_constant) uniform PC { uint count; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.count) result.v[i] = inputs[0].v[i] + inputs[1].v[i];
}
