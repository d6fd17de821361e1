#version 450
// RMS normalisation of each row: y = x / sqrt(mean(x^2) + eps) [* w] [* m] [+ a].
// f32 accumulation whatever the storage type. One workgroup per row.
// Decode norms are one row of 2,048-4,096 values on one SM: with 128 threads the row would
// take 16 dependent loads per thread twice over. 512 threads hold up to
// CACHED values each in registers, so x is read once and the loads are issued together.
//   HAS_WEIGHT: multiply by the norm weight w (one row, broadcast)
//   HAS_MUL:    fused rms_norm→mul: multiply by m (row stride mul_stride, 0 = broadcast)
//   HAS_ADD:    fused rms_norm→mul→add: add a (row stride add_stride, 0 = broadcast)
//   IO_F16:     x and y are f16 (weights stay f32)
// Fused forms whose normalised row is itself a sum the graph keeps (the residual stream):
//   PRE_ADD:    fused add→rms_norm: the row is t = x + b (b at binding 5, same shape)
//   PRE_NORM:   fused rms_norm→mul→add→rms_norm: the row is t = rms(x) * pm + b (pm at
//               binding 7, row stride pre_mul_stride; b at binding 5, same shape)
//   ROPE:       fused rms_norm→mul→rope (q/k norm of each head): rows are heads of
//               head_dim = dim values, row = token * n_heads + head; the row, normalised and
//               multiplied, is rotated as rope.comp does (NEOX: pairs (j, j + rope_dim / 2),
//               else (2j, 2j + 1); FREQ_FACTORS divide the frequencies; positions i32 at
//               binding 8, freq factors at 9). dim <= ROPE_MAX_DIM (the row goes through
//               shared memory to meet its pair partner).
//   OUT_F16:    y is f16 (fused ...→rope→copy into an f16 KV cache)
//   Q8_OUT:     y is q8x (fused ...→quantize_q8: the 8-bit x of the next mat-vecs, which read
//               it with integer dot products): the row, finished, goes through shared memory
//               (dim <= Q8_MAX_DIM, a multiple of 32) and each thread quantises one block of
//               32 with quantize_q8.comp's operations.
//   Both write t to s (binding 6): the add's output, which later dispatches still read. Past
//   the register cache t is computed again rather than read back (s is write-only);
//   `precise` keeps both computations free of contraction, so the row normalised is bit for
//   bit the row written.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#define WG_SIZE 512
#define CACHED 8
#include "common.glsl"

layout(local_size_x = WG_SIZE) in;

#ifdef IO_F16
#define IO_T float16_t
#else
#define IO_T float
#endif

layout(set = 0, binding = 0) readonly buffer X { IO_T x[]; };
#ifdef HAS_WEIGHT
layout(set = 0, binding = 1) readonly buffer W { float w[]; };
#endif
#ifdef HAS_MUL
layout(set = 0, binding = 2) readonly buffer M { float m[]; };
#endif
#ifdef HAS_ADD
layout(set = 0, binding = 3) readonly buffer A { float a[]; };
#endif
#if defined(IO_F16) || defined(OUT_F16)
#define Y_T float16_t
#else
#define Y_T float
#endif
#ifdef Q8_OUT
#include "q8x.glsl"
layout(set = 0, binding = 4) writeonly buffer Y { uint yq[]; };
#define Q8_MAX_DIM 4096
shared float qv[Q8_MAX_DIM + Q8_MAX_DIM / 32];  // element i at i + i / 32: no bank conflicts
#else
layout(set = 0, binding = 4) writeonly buffer Y { Y_T y[]; };
#endif
#ifdef ROPE
layout(set = 0, binding = 8) readonly buffer Pos { int pos[]; };
#ifdef FREQ_FACTORS
layout(set = 0, binding = 9) readonly buffer FF { float ff[]; };
#endif
#define ROPE_MAX_DIM 1024
shared float rot[ROPE_MAX_DIM];
#endif
#if defined(PRE_ADD) || defined(PRE_NORM)
#define PRE_SUM
layout(set = 0, binding = 5) readonly buffer B { float b[]; };
layout(set = 0, binding = 6) writeonly buffer S { float s[]; };
#endif
#ifdef PRE_NORM
layout(set = 0, binding = 7) readonly buffer PM { float pm[]; };
#endif

layout(push_constant) uniform Params {
    uint rows;
    uint dim;
    float eps;
    uint mul_stride;  // elements between rows of m (0: one row broadcast)
    uint add_stride;  // elements between rows of a (0: one row broadcast)
#ifdef PRE_NORM
    uint pre_mul_stride;  // elements between rows of pm (0: one row broadcast)
    float pre_eps;        // eps of the first norm
#endif
#ifdef ROPE
    uint n_heads;
    uint rope_dim;
    float freq_base;
    float freq_scale;
#endif
} p;

#ifdef PRE_SUM
#ifdef PRE_NORM
float pre_inv;  // 1 / rms of the row of x (the first norm)
#endif
// Element i of the row's sum t (see the header) from xv = x[base + i].
float pre_sum(uint row, uint base, uint i, float xv) {
#ifdef PRE_NORM
    precise float n = xv * pre_inv;
    precise float t = n * pm[row * p.pre_mul_stride + i];
    precise float r = t + b[base + i];
#else
    precise float r = xv + b[base + i];
#endif
    return r;
}
// The value the norm normalises: t (written to s once) or x itself.
float row_value(uint row, uint base, uint i, bool write_sum) {
    const float t = pre_sum(row, base, i, float(x[base + i]));
    if (write_sum) s[base + i] = t;
    return t;
}
#else
float row_value(uint row, uint base, uint i, bool write_sum) {
    return float(x[base + i]);
}
#endif

// The operands of the epilogue of element i: loaded before the row's reduction, so that their
// memory round trip overlaps the row's instead of following the reduction (a decode norm is one
// row on one SM; its latency is its chain of round trips).
struct Epilogue {
    float w;
    float m;
    float a;
};
Epilogue load_epilogue(uint row, uint i) {
    Epilogue e;
    e.w = 1.0;
    e.m = 1.0;
    e.a = 0.0;
#ifdef HAS_WEIGHT
    e.w = w[i];
#endif
#ifdef HAS_MUL
    e.m = m[row * p.mul_stride + i];
#endif
#ifdef HAS_ADD
    e.a = a[row * p.add_stride + i];
#endif
    return e;
}

// The normalised value v [* w] [* m] [+ a].
float apply_epilogue(float v, Epilogue e) {
    precise float r = v;
#ifdef HAS_WEIGHT
    r *= e.w;
#endif
#ifdef HAS_MUL
    r *= e.m;
#endif
#ifdef HAS_ADD
    r += e.a;
#endif
    return r;
}
// y of element i of the row (with ROPE: kept in rot for the rotation; Q8_OUT: in qv).
void store_row_value(uint base, uint i, float v, Epilogue e) {
    v = apply_epilogue(v, e);
#if defined(ROPE)
    rot[i] = v;
#elif defined(Q8_OUT)
    qv[i + i / 32u] = v;
#else
    y[base + i] = Y_T(v);
#endif
}

#ifdef Q8_OUT
// Quantises the row held in qv, one block of 32 per thread (q8x.glsl, as quantize_q8.comp).
void quantize_row(uint row) {
    barrier();  // qv is complete
    const uint blocks = p.dim / 32u;
    for (uint blk = gl_LocalInvocationID.x; blk < blocks; blk += WG_SIZE) {
        const uint s0 = 33u * blk;
        float amax = 0.0;
        [[unroll]] for (uint j = 0; j < 32u; ++j) amax = max(amax, abs(qv[s0 + j]));
        const float d = amax / 127.0;
        const float id = q8x_inverse_scale(d);
        const uint dst = 10u * (row * blocks + blk);
        [[unroll]] for (uint w = 0; w < 8u; ++w)
            yq[dst + w] = q8x_pack(vec4(qv[s0 + 4u * w], qv[s0 + 4u * w + 1u],
                                        qv[s0 + 4u * w + 2u], qv[s0 + 4u * w + 3u]),
                                   id);
        yq[dst + 8u] = floatBitsToUint(d);
        yq[dst + 9u] = 0u;
    }
}
#endif

#ifdef ROPE
// Rotates the row held in rot, as rope.comp does for pair j of the head.
void rotate_row(uint row, uint base) {
    barrier();  // rot is complete
    const uint s = row / p.n_heads;
    const uint half_rot = p.rope_dim / 2;
    for (uint j = gl_LocalInvocationID.x; j < p.dim / 2; j += WG_SIZE) {
        if (j >= half_rot) {
            const uint e = p.rope_dim + 2 * (j - half_rot);
            y[base + e] = Y_T(rot[e]);
            y[base + e + 1] = Y_T(rot[e + 1]);
            continue;
        }
        float theta = float(pos[s]) * p.freq_scale *
                      pow(p.freq_base, -2.0 * float(j) / float(p.rope_dim));
#ifdef FREQ_FACTORS
        theta /= ff[j];
#endif
        const float c = cos(theta), sn = sin(theta);
#ifdef NEOX
        const uint i0 = j, i1 = j + half_rot;
#else
        const uint i0 = 2 * j, i1 = 2 * j + 1;
#endif
        const float a0 = rot[i0], b0 = rot[i1];
        y[base + i0] = Y_T(a0 * c - b0 * sn);
        y[base + i1] = Y_T(a0 * sn + b0 * c);
    }
}
#endif

void main() {
    const uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (row >= p.rows) return;  // uniform per workgroup: safe around barriers
    const uint base = row * p.dim;
    const uint tid = gl_LocalInvocationID.x;
    float xc[CACHED];
    Epilogue ec[CACHED];
    // `precise`: the sum of squares, 1 / rms and the epilogue are not contracted into fused
    // multiply-adds, which the compiler would otherwise choose per variant (seen on the H100:
    // the fused post-norm chain's kept sum one bit off the unfused norm's now and then), so
    // that fused and unfused norms write the same bits.
    precise float ss = 0.0;
#ifdef PRE_NORM
    // The first norm's sum of squares over x (cached), then the row t from the cache.
    [[unroll]] for (uint c = 0; c < CACHED; ++c) {
        const uint i = tid + c * WG_SIZE;
        xc[c] = i < p.dim ? float(x[base + i]) : 0.0;
        ss += xc[c] * xc[c];
    }
    [[unroll]] for (uint c = 0; c < CACHED; ++c) {
        const uint i = tid + c * WG_SIZE;
        if (i < p.dim) ec[c] = load_epilogue(row, i);
    }
    for (uint i = tid + CACHED * WG_SIZE; i < p.dim; i += WG_SIZE) {
        float v = float(x[base + i]);
        ss += v * v;
    }
    ss = wg_reduce_add(ss);
    precise float first_inv = inversesqrt(ss / float(p.dim) + p.pre_eps);
    pre_inv = first_inv;
    ss = 0.0;
    [[unroll]] for (uint c = 0; c < CACHED; ++c) {
        const uint i = tid + c * WG_SIZE;
        if (i < p.dim) {
            xc[c] = pre_sum(row, base, i, xc[c]);
            s[base + i] = xc[c];
        }
        ss += xc[c] * xc[c];
    }
#else
    [[unroll]] for (uint c = 0; c < CACHED; ++c) {
        const uint i = tid + c * WG_SIZE;
        xc[c] = i < p.dim ? row_value(row, base, i, true) : 0.0;
        ss += xc[c] * xc[c];
    }
    [[unroll]] for (uint c = 0; c < CACHED; ++c) {
        const uint i = tid + c * WG_SIZE;
        if (i < p.dim) ec[c] = load_epilogue(row, i);
    }
#endif
    for (uint i = tid + CACHED * WG_SIZE; i < p.dim; i += WG_SIZE) {
        float v = row_value(row, base, i, true);
        ss += v * v;
    }
    ss = wg_reduce_add(ss);
    precise float inv = inversesqrt(ss / float(p.dim) + p.eps);
    // Constant indices into xc keep it in registers.
    [[unroll]] for (uint c = 0; c < CACHED; ++c) {
        const uint i = tid + c * WG_SIZE;
        if (i < p.dim) store_row_value(base, i, xc[c] * inv, ec[c]);
    }
    // Beyond the cache the row value is computed again (bit for bit the same: `precise`).
    for (uint i = tid + CACHED * WG_SIZE; i < p.dim; i += WG_SIZE)
        store_row_value(base, i, row_value(row, base, i, false) * inv, load_epilogue(row, i));
#ifdef ROPE
    rotate_row(row, base);
#endif
#ifdef Q8_OUT
    quantize_row(row);
#endif
}
