#version 450
// Writes i into element i of the buffer whose device address the push constants carry: memory
// that no binding names (GL_EXT_buffer_reference).
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 64) in;
layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(push_constant) uniform PC { Floats target; uint count; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.count) pc.target.v[i] = float(i);
}
