#version 450
// local_size_x_id: glslang emits a WorkgroupSize built-in spec-constant composite (SPIR-V
// 1.0-1.5) or LocalSizeId (1.6), both of spec constants that default to 1.
layout(local_size_x_id = 0, local_size_y = 4, local_size_z_id = 2) in;
layout(set = 0, binding = 0) buffer Data { uint data[]; };
void main() { data[gl_GlobalInvocationID.x] = gl_WorkGroupSize.x; }
