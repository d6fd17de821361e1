// Shared helpers of the GraphLens kernels. Every kernel binds storage buffers in set 0
// (readonly / writeonly as they are used, so reflection yields the access) and takes its
// sizes as push constants.
#ifndef GRAPHLENS_COMMON_GLSL
#define GRAPHLENS_COMMON_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_16bit_storage : require

// Reduction over a workgroup of WG_SIZE threads through subgroup adds plus one round
// through shared memory. Every thread of the workgroup must call it (it has barriers).
#ifndef WG_SIZE
#define WG_SIZE 128
#endif

shared float red_scratch[WG_SIZE];

float wg_reduce_add(float v) {
    v = subgroupAdd(v);
    if (subgroupElect()) red_scratch[gl_SubgroupID] = v;
    barrier();
    float s = 0.0;
    for (uint i = 0; i < gl_NumSubgroups; ++i) s += red_scratch[i];
    barrier();
    return s;
}

float wg_reduce_max(float v) {
    v = subgroupMax(v);
    if (subgroupElect()) red_scratch[gl_SubgroupID] = v;
    barrier();
    float s = red_scratch[0];
    for (uint i = 1; i < gl_NumSubgroups; ++i) s = max(s, red_scratch[i]);
    barrier();
    return s;
}

float gelu_tanh(float x) {
    const float k = 0.7978845608028654;  // sqrt(2 / pi)
    float inner = k * (x + 0.044715 * x * x * x);
    return 0.5 * x * (1.0 + tanh(clamp(inner, -15.0, 15.0)));
}

float silu(float x) { return x / (1.0 + exp(-x)); }

#endif
