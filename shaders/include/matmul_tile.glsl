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

#ifdef TC_V4
// The same octet as four packed f16 pairs (element 2i in the low half of word i), for the
// tensor-core kernel's uvec4 tiles. Q4_0 / Q8_0 decode in f16 arithmetic: a quant q under the
// exponent of 1024 (0x6400) reads as the half 1024 + q, so (that - offset) * d is the same
// single rounding of the exact product d * q that converting w_oct's f32 value gives.
#if defined(W_Q4_0)
uvec4 w_oct_f16(uint rb, uint k8) {
    const uint bo = rb + (k8 >> 2) * 18u;
    const uint o = k8 & 3u;
    const f16vec2 d = unpackFloat2x16(w_u16_at(bo)).xx;
    const uint off = bo + 2u + 8u * (o & 1u), sh = 4u * (o >> 1);
    const uint q0 = (w_u32_at(off) >> sh) & 0x0f0f0f0fu, q1 = (w_u32_at(off + 4u) >> sh) & 0x0f0f0f0fu;
    uvec4 h = uvec4((q0 & 0xffu) | ((q0 & 0xff00u) << 8), (q0 >> 16) & 0xffu | ((q0 >> 8) & 0xff0000u),
                    (q1 & 0xffu) | ((q1 & 0xff00u) << 8), (q1 >> 16) & 0xffu | ((q1 >> 8) & 0xff0000u)) |
              0x64006400u;
    const f16vec2 bias = f16vec2(1032.0);  // 1024 + Q4_0's offset of 8
    [[unroll]] for (uint i = 0; i < 4u; ++i) h[i] = packFloat2x16((unpackFloat2x16(h[i]) - bias) * d);
    return h;
}
#elif defined(W_Q8_0)
uvec4 w_oct_f16(uint rb, uint k8) {
    const uint bo = rb + (k8 >> 2) * 34u;
    const f16vec2 d = unpackFloat2x16(w_u16_at(bo)).xx;
    const uint off = bo + 2u + 8u * (k8 & 3u);
    // Flipping the sign bit makes a signed byte q the unsigned q + 128.
    const uint q0 = w_u32_at(off) ^ 0x80808080u, q1 = w_u32_at(off + 4u) ^ 0x80808080u;
    uvec4 h = uvec4((q0 & 0xffu) | ((q0 & 0xff00u) << 8), (q0 >> 16) & 0xffu | ((q0 >> 8) & 0xff0000u),
                    (q1 & 0xffu) | ((q1 & 0xff00u) << 8), (q1 >> 16) & 0xffu | ((q1 >> 8) & 0xff0000u)) |
              0x64006400u;
    const f16vec2 bias = f16vec2(1152.0);  // 1024 + 128
    [[unroll]] for (uint i = 0; i < 4u; ++i) h[i] = packFloat2x16((unpackFloat2x16(h[i]) - bias) * d);
    return h;
}
#else
uvec4 w_oct_f16(uint rb, uint k8) {
    float v[8];
    w_oct(rb, k8, v);
    return uvec4(packFloat2x16(f16vec2(v[0], v[1])), packFloat2x16(f16vec2(v[2], v[3])),
                 packFloat2x16(f16vec2(v[4], v[5])), packFloat2x16(f16vec2(v[6], v[7])));
}
#endif
#endif

#endif
