#version 450
// c = a + b over the first `count` elements (bound with push descriptors).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { float v[]; } a;
layout(set = 0, binding = 1) readonly buffer B { float v[]; } b;
layout(set = 0, binding = 2) writeonly buffer C { float v[]; } c;
layout(push_constant) uniform PC { uint count; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.count) c.v[i] = a.v[i] + b.v[i];
}
