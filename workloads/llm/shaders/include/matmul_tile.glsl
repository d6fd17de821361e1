// Tile loads of the mat-mat kernel (templates/matmul.comp): eight consecutive weights of a row,
// dequantised, for the shared-memory W tile. Built on weights.glsl's byte readers (read only).
//   w_oct(rb, k8, v): elements 8*k8 .. 8*k8+7 of the row starting at byte rb; elements at or
//                     beyond p.k read as 0 (only the float formats can have such a tail: the
//                     block formats need k to be a multiple of their block).
#ifndef GRAPHLENS_MATMUL_TILE_GLSL
#define GRAPHLENS_MATMUL_TILE_GLSL

#if defined(W_Q4_0)
// One block holds octets 0..3: octets 0, 1 are the low nibbles of bytes 0..15, 2 and 3 the high.
void w_oct(uint rb, uint k8, out float v[8]) {
    const uint bo = rb + (k8 >> 2) * 18u;
    const uint o = k8 & 3u;
    const float d = w_half_at(bo);
    const uint off = bo + 2u + 8u * (o & 1u), sh = 4u * (o >> 1);
    const uint q0 = w_u32_at(off) >> sh, q1 = w_u32_at(off + 4u) >> sh;
    for (uint b = 0; b < 4; ++b) {
        v[b] = d * (float((q0 >> (8u * b)) & 15u) - 8.0);
        v[b + 4] = d * (float((q1 >> (8u * b)) & 15u) - 8.0);
    }
}
#elif defined(W_Q8_0)
void w_oct(uint rb, uint k8, out float v[8]) {
    const uint bo = rb + (k8 >> 2) * 34u;
    const float d = w_half_at(bo);
    const uint off = bo + 2u + 8u * (k8 & 3u);
    const uint q0 = w_u32_at(off), q1 = w_u32_at(off + 4u);
    for (uint b = 0; b < 4; ++b) {
        v[b] = d * float(sext8(q0 >> (8u * b)));
        v[b + 4] = d * float(sext8(q1 >> (8u * b)));
    }
}
#else
// Other formats: element by element (w_elem); float rows may end inside the octet.
void w_oct(uint rb, uint k8, out float v[8]) {
    for (uint e = 0; e < 8u; ++e) {
        const uint kg = 8u * k8 + e;
        v[e] = kg < p.k ? w_elem(rb, kg) : 0.0;
    }
}
#endif

#endif
