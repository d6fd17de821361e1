// Scores of one chunk of decode attention (flash_attn_vec*.comp): the dot products of the
// chunk's keys c0 .. c0 + WG_SIZE - 1 with HEAD_BATCH query heads, written to
// p_sh[r][key - c0] (-inf past `last`). The including kernel declares
// q_sh[HEAD_BATCH][MAX_HD4] (queries, pre-scaled), p_sh[HEAD_BATCH][WG_SIZE] and load_k.
//
// Quads of lanes share a key: lane c of a quad reads units c, c + 4, ... of the key's row, so
// one warp-wide load covers 32 contiguous bytes of each of 8 rows. (One thread per key read 8
// or 16 bytes of each of 32 rows, 1 KiB or more apart: a cache line per lane and load.) The
// quad's partial dots meet through two shuffles; subgroups are at least 4 lanes wide and
// quads never straddle one. The four passes of WG_SIZE / 4 keys issue their loads together.
#ifndef GRAPHLENS_ATTN_SCORES_GLSL
#define GRAPHLENS_ATTN_SCORES_GLSL

#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require

#define SCORE_QUADS (WG_SIZE / 4)
#define SCORE_PASSES 4
// Units of a key row each lane loads before it uses any (all of them for head dim 64): the
// loads of one batch are in flight together, so a chunk's K costs one memory round trip per
// batch instead of one per unit. The dots are summed in the same order either way.
#define SCORE_UNITS 4

void chunk_scores(uint c0, uint last, uint token_stride4, uint head_base4, uint hd4) {
    const uint quad = gl_LocalInvocationID.x >> 2, lane = gl_LocalInvocationID.x & 3u;
    float part[SCORE_PASSES][HEAD_BATCH];
    uint base[SCORE_PASSES];
    [[unroll]] for (uint ps = 0; ps < SCORE_PASSES; ++ps) {
        // Keys past `last` read the last valid row (in bounds) and are masked below.
        base[ps] = min(c0 + ps * SCORE_QUADS + quad, last - 1u) * token_stride4 + head_base4;
        [[unroll]] for (uint r = 0; r < HEAD_BATCH; ++r) part[ps][r] = 0.0;
    }
    for (uint e0 = lane; e0 < hd4; e0 += 4u * SCORE_UNITS) {
        vec4 kv[SCORE_UNITS][SCORE_PASSES];
        [[unroll]] for (uint u = 0; u < SCORE_UNITS; ++u) {
            const uint e = e0 + 4u * u;
            [[unroll]] for (uint ps = 0; ps < SCORE_PASSES; ++ps)
                kv[u][ps] = e < hd4 ? load_k(base[ps] + e) : vec4(0.0);
        }
        [[unroll]] for (uint u = 0; u < SCORE_UNITS; ++u) {
            const uint e = e0 + 4u * u;
            if (e < hd4)
                [[unroll]] for (uint ps = 0; ps < SCORE_PASSES; ++ps)
                    [[unroll]] for (uint r = 0; r < HEAD_BATCH; ++r)
                        part[ps][r] += dot(q_sh[r][e], kv[u][ps]);
        }
    }
    [[unroll]] for (uint ps = 0; ps < SCORE_PASSES; ++ps) {
        const uint key = ps * SCORE_QUADS + quad;
        [[unroll]] for (uint r = 0; r < HEAD_BATCH; ++r) {
            float v = part[ps][r];
            v += subgroupShuffleXor(v, 1u);
            v += subgroupShuffleXor(v, 2u);
            if (lane == 0u) p_sh[r][key] = c0 + key < last ? v : -1.0 / 0.0;
        }
    }
}

#endif
