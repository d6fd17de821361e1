#version 450
// Buffer device address: the kernel writes memory no binding names.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(buffer_reference, std430) buffer Floats { float f[]; };
layout(push_constant) uniform Push { Floats target; uint count; } pc;
void main() {
    if (gl_GlobalInvocationID.x < pc.count) pc.target.f[gl_GlobalInvocationID.x] = 1.0;
}
