#version 450
// out[i] = a[i] + b[i % nb]: elementwise add with b broadcast over a (nb divides n).
// Access modes (readonly / writeonly) are reflected into the graph's read/write ranges.
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { float o[]; };

layout(push_constant) uniform Params {
    uint n;   // elements of a and out
    uint nb;  // elements of b
} p;

void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (i >= p.n) return;
    o[i] = a[i] + b[i % p.nb];
}
