// The combine step of decode attention (flash_attn_vec*.comp), run by the last workgroup to
// finish a row of the grid (one query head, or a head batch for _gqa): every split
// workgroup has written its unnormalised partial (o[head_dim], running max m, sum l) of its
// head(s) to tmp, [head_dim + 2, n_splits, n_heads]; the last one to arrive combines them
//   out = sum_s o_s e^(m_s - M) / sum_s l_s e^(m_s - M),  M = max_s m_s
// with the arithmetic and order of the former flash_attn_reduce_f32 kernel (bitwise the
// same result). Arrival is counted in counters[row] (zero before the dispatch); the last
// workgroup sets it back to zero for the next run, so no other dispatch touches it.
// The including kernel declares p (head_dim, n_splits), `coherent` Tmp { float tmp[]; } and
// Counters { uint counters[]; }.
#ifndef GRAPHLENS_ATTN_COMBINE_GLSL
#define GRAPHLENS_ATTN_COMBINE_GLSL

shared bool last_sh;

// After this workgroup's partial writes: true (in every thread) when this workgroup is the
// last of `row`'s n_splits to finish, which then sees every split's partial in tmp.
bool last_split(uint row) {
    memoryBarrierBuffer();  // this thread's partial writes, before the arrival below
    barrier();
    if (p.n_splits == 1u) return true;  // the only workgroup: no counter
    if (gl_LocalInvocationID.x == 0u) {
        const bool last = atomicAdd(counters[row], 1u) == p.n_splits - 1u;
        if (last) counters[row] = 0u;  // every other split has arrived: ready for the next run
        last_sh = last;
    }
    barrier();
    memoryBarrierBuffer();  // the other workgroups' partials, after their arrivals
    return last_sh;
}

// out[h, d], as flash_attn_reduce_f32 computed it.
float combine(uint h, uint d) {
    const uint stride = p.head_dim + 2u;
    const uint base = h * p.n_splits * stride;
    float mx = -1.0 / 0.0;
    for (uint s = 0; s < p.n_splits; ++s) mx = max(mx, tmp[base + s * stride + p.head_dim]);
    float sum = 0.0;
    if (!isinf(mx))
        for (uint s = 0; s < p.n_splits; ++s)
            sum += tmp[base + s * stride + p.head_dim + 1u] *
                   exp(tmp[base + s * stride + p.head_dim] - mx);
    float acc = 0.0;
    if (!isinf(mx))
        for (uint s = 0; s < p.n_splits; ++s)
            acc += tmp[base + s * stride + d] * exp(tmp[base + s * stride + p.head_dim] - mx);
    return sum > 0.0 ? acc / sum : 0.0;
}

#endif
