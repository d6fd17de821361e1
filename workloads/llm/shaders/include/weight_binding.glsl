// Binding 0 of the matmul / get_rows kernels: the weights, in the word size weights.glsl reads.
#if defined(W_F32)
layout(set = 0, binding = 0) readonly buffer W { float wf[]; };
#elif defined(W_F16_VEC)
layout(set = 0, binding = 0) readonly buffer W { uvec4 wv[]; };
#elif defined(WORDS16)
layout(set = 0, binding = 0) readonly buffer W { uint16_t wq16[]; };
#else
layout(set = 0, binding = 0) readonly buffer W { uint wq[]; };
#endif
