#version 450
// Bindings outside set 0, a uniform buffer and a runtime descriptor array.
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 16) in;
layout(set = 2, binding = 0) uniform Parameters { uint count; float scale; } params;
layout(set = 1, binding = 3) buffer Values { float values[]; };
layout(set = 0, binding = 1) readonly buffer Tables { float t[]; } tables[4];
layout(set = 3, binding = 0) buffer Many { float m[]; } many[];
void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i < params.count) values[i] = params.scale * tables[i % 4].t[i] + many[i].m[0];
}
