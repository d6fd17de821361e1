#version 450
// y = x * params.scale + bias over the first `count` elements.
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) readonly buffer In { float x[]; } src;
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; } dst;
layout(set = 1, binding = 0) uniform Params { float scale; } params;
layout(push_constant) uniform PC { uint count; float bias; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.count) dst.y[i] = src.x[i] * params.scale + pc.bias;
}
