#version 450
// dst = src over the first `count` elements (src is a dynamic storage buffer).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Src { float v[]; } src;
layout(set = 0, binding = 1) writeonly buffer Dst { float v[]; } dst;
layout(push_constant) uniform PC { uint count; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.count) dst.v[i] = src.v[i];
}
