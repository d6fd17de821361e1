#version 450
// readonly / writeonly decide the access; the code would say the same.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Source { float src[]; };
layout(set = 0, binding = 1) writeonly buffer Destination { float dst[]; };
layout(set = 0, binding = 2, r32f) uniform readonly image2D image_in;
layout(set = 0, binding = 3, r32f) uniform writeonly image2D image_out;
void main() {
    const uint i = gl_GlobalInvocationID.x;
    dst[i] = src[i] + imageLoad(image_in, ivec2(i, 0)).x;
    imageStore(image_out, ivec2(i, 0), vec4(src[i]));
}
