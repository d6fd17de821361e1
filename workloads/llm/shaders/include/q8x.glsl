// The q8x block (DType::q8x, ggml_blocks.h BlockQ8x): 32 values as 8 words of 4 signed bytes,
// the scale d as float bits and a zero word. ggml's q8 rule, d = max|x| / 127 and
// q = roundEven(x * (1 / d)), in one place so that quantize_q8.comp and the fused norms
// (rms_norm.comp, Q8_OUT) write the same bits for the same values.

// 1 / d, or 0 for an all-zero block.
float q8x_inverse_scale(float d) {
    return d != 0.0 ? 1.0 / d : 0.0;
}

// Four values as one word of signed bytes, lowest byte first.
uint q8x_pack(vec4 v, float id) {
    const ivec4 q = ivec4(roundEven(v * id));
    return uint(q.x & 255) | (uint(q.y & 255) << 8) | (uint(q.z & 255) << 16) |
           (uint(q.w & 255) << 24);
}
