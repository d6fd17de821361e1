#version 450
// A push-constant block with a vec3, a float, an array and a matrix: 12 + 4 + 16 + 64 bytes.
layout(local_size_x = 128) in;
struct Inner { vec3 direction; float len; };
layout(push_constant) uniform Push {
    Inner inner;     // offset 0, 16 bytes
    uint lanes[4];   // offset 16, stride 4
    mat4 transform;  // offset 32, 64 bytes
} pc;
layout(set = 0, binding = 0) writeonly buffer Out { vec4 o[]; };
void main() {
    o[gl_GlobalInvocationID.x] =
        pc.transform * vec4(pc.inner.direction * pc.inner.len, float(pc.lanes[3]));
}
