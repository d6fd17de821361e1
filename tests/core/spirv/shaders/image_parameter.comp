#version 450
#extension GL_EXT_shader_image_load_formatted : require
// glslang passes images to functions as pointers: the write happens in the callee.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform image2D target;
layout(set = 0, binding = 1) uniform sampler2D source;
void paint(image2D img, ivec2 at, vec4 colour) { imageStore(img, at, colour); }
void main() {
    const ivec2 at = ivec2(gl_GlobalInvocationID.xy);
    paint(target, at, texelFetch(source, at, 0));
}
