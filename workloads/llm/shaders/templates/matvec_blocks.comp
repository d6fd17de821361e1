#version 450
// Q4_0 / Q8_0 mat-vec for decode, one column of x per workgroup (grid y walks the columns):
// y[c][row] = sum_k W[row][k] x[c][k]. The WG_SIZE threads of a workgroup split the k of NR
// consecutive rows between them (split-k inside the workgroup): thread t takes the CW-weight
// chunks t, t + WG_SIZE, ... of every row, so a warp reads a contiguous run of each row and of x,
// x is read once per workgroup (not once per row), and each loaded x chunk serves NR rows.
// UNROLL chunks are loaded before any is used (memory-level parallelism). Row sums: subgroupAdd,
// then shared memory across the subgroups.
//   W_Q4_0 / W_Q8_0: weight format (ggml blocks, GGUF layout)
//   NR:       rows per workgroup
//   CW:       weights per chunk, 8, 16 or 32 (a block is 4, 2 or 1 chunks)
//   WG_SIZE:  threads per workgroup (a multiple of the subgroup size, <= 256)
//   UNROLL:   chunks per row in flight per thread (default 4)
//   ROPE:     the outputs rotated as rope.comp rotates them (adjacent pairs 2j, 2j + 1 of
//             each head of rope_head_dim rows; column c is sequence position pos[c] at binding
//             4; FREQ_FACTORS: theta / ff[j], binding 5), the same f32 operations in the same
//             order: the fused mat-vec→rope of a q or k projection. NR is even, so both rows of
//             a pair are sums of this workgroup.
//   OUT_F16:  y is f16 (the fused copy of k or v into an f16 KV cache: the copy's rounding)
//   GLU_SILU / GLU_GELU: a second weight of the same shape at binding 6 (the up projection)
//             and y = act(W x) * (W2 x), act silu or gelu (tanh) as unary.comp computes them:
//             the fused gate, up and act->mul of a decode FFN. Each workgroup sums NR rows of
//             both weights, so x is loaded once for both.
//   X_Q8:     x given quantised to 8 bits (binding 1, 10 words per 32 elements: 8 words of 4
//             signed bytes q, the scale d as float bits, a spare word; x ~ q d with ggml's q8
//             rule d = max|x| / 127), and the chunk dots are packed 4x8-bit integer dot
//             products (SPV_KHR_integer_dot_product, Vulkan 1.3's shaderIntegerDotProduct: one
//             dp4a on NVIDIA) instead of a nibble extraction, conversion and FMA per weight.
//             The x column is x_stride / 32 blocks from the previous one.
//   Y_Q8:     y is also written quantised to 8 bits (binding 7, q8x blocks as quantize_q8.comp
//             writes them: the fused ...→mul→quantize_q8 of a decode FFN, so the down
//             projection reads 8-bit x without a quantize level of its own). A block of 32 rows
//             spans 32 / NR workgroups: each counts its arrival at the block (binding 8, a
//             zeroed u32 per block, left at 0 for the next run), and the last to arrive
//             quantises the block's 32 values of y with quantize_q8.comp's operations (one
//             thread, q8x.glsl), so fused and unfused graphs agree bit for bit. Needs n and the
//             column stride of y multiples of 32.
//   ADD_NORM: the residual add, rms norm, mul and quantize_q8 after the projection (a decode
//             layer's output or down projection, then the next norm: one level instead of
//             two). Each workgroup writes its rows of y and counts its arrival (binding 8, one
//             zeroed u32, left at 0); the last to arrive computes t = y + res (binding 9),
//             writes it to binding 10 (the residual stream, kept), and quantises
//             rms_norm(t) * m (m at binding 11, one row) into q8x blocks at binding 12, with
//             the operations of add_rms_norm_mul_f32_q8 (rms_norm.comp, 512 threads) in the
//             same order (see add_norm_when_last), so fused and unfused graphs agree bit for
//             bit. One column; n <= 4096, a multiple of 32; eps in the push constants. Built
//             with GROUPS=4 so that the last workgroup has the norm kernel's 512 threads for
//             the row: 128 threads finishing a 4096-value row make a chain of round trips
//             twice as long as the norm kernel's.
//   GROUPS:   row groups of WG_SIZE threads per workgroup (default 1), each summing its NR rows
//             exactly as a workgroup of its own would (same bits).
// Weights are read as 16-bit words: blocks of 18 and 34 bytes are only 2-byte aligned, and a
// view of an odd number of blocks ends on a half word. (32-bit words with realignment, one
// predicated loop instead of main loop + remainder, and exponent-bit nibble decoding are no
// faster: docs/history.md, Kernels.)
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"

#ifdef X_Q8
#extension GL_EXT_spirv_intrinsics : require
// OpSUDot (4452) / OpSDot (4450) on words of 4 packed 8-bit components (literal 0:
// PackedVectorFormat4x8Bit); glslang 12 has no GL_EXT_integer_dot_product.
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018],
                  id = 4452) int sudot4x8(uint a_signed, uint b_unsigned, spirv_literal int fmt);
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018],
                  id = 4450) int sdot4x8(uint a_signed, uint b_signed, spirv_literal int fmt);
#endif

#ifndef NR
#define NR 4
#endif
#ifndef CW
#define CW 8
#endif
#ifndef UNROLL
#define UNROLL 4  // chunks per row loaded before the first is used
#endif
#define PARTS (32 / CW)  // chunks per block
#if defined(W_Q4_0)
#define BLOCK_BYTES 18u
#define NW (CW / 8)  // nibble words per chunk: word j holds weights 4j.. (low) and 16 + 4j.. (high)
#elif defined(W_Q8_0)
#define BLOCK_BYTES 34u
#define NW (CW / 4)  // byte words per chunk
#else
#error "matvec_blocks: W_Q4_0 or W_Q8_0"
#endif

#ifndef GROUPS
#define GROUPS 1  // row groups of WG_SIZE threads in a workgroup, each as a workgroup of its own
#endif
#define LOCAL_SIZE (WG_SIZE * GROUPS)
#if GROUPS > 1 && defined(Y_Q8)
#error "Y_Q8 counts arrivals per workgroup of NR rows: GROUPS must be 1"
#endif
layout(local_size_x = LOCAL_SIZE) in;

#include "matmul_params.glsl"

layout(set = 0, binding = 0) readonly buffer W { uint16_t wq16[]; };
#if defined(GLU_SILU) || defined(GLU_GELU)
#define GLU 1
layout(set = 0, binding = 6) readonly buffer W2 { uint16_t uq16[]; };
#define NM 2  // matrices summed per workgroup
#else
#define NM 1
#endif
#ifdef X_Q8
layout(set = 0, binding = 1) readonly buffer X { uint xq[]; };
#else
layout(set = 0, binding = 1) readonly buffer X { vec4 x4[]; };
#endif
#ifdef OUT_F16
layout(set = 0, binding = 2) writeonly buffer Y { float16_t y[]; };
#define STORE(v) float16_t(v)
#elif defined(ADD_NORM)
// Read back by the last workgroup: the other workgroups' rows must be visible.
layout(set = 0, binding = 2) coherent buffer Y { float y[]; };
#define STORE(v) (v)
#include "q8x.glsl"
layout(set = 0, binding = 8) coherent buffer Arrivals { uint arrivals[]; };
layout(set = 0, binding = 9) readonly buffer Res { float res[]; };
layout(set = 0, binding = 10) writeonly buffer Sum { float sum_out[]; };
layout(set = 0, binding = 11) readonly buffer NormMul { float norm_mul[]; };
layout(set = 0, binding = 12) writeonly buffer NormQ8 { uint norm_q8[]; };
#define AN_MAX_DIM 4096
#define AN_THREADS 512  // rms_norm.comp's workgroup
#define AN_CACHED 8     // and its register cache: AN_THREADS * AN_CACHED = AN_MAX_DIM
#if LOCAL_SIZE != AN_THREADS
#error "ADD_NORM finishes the row with rms_norm.comp's threads: WG_SIZE * GROUPS must be 512"
#endif
shared bool last_sh;
shared float an_red[AN_THREADS / 4];  // subgroups are at least 4 wide
shared float an_row[AN_MAX_DIM + AN_MAX_DIM / 32];  // element i at i + i / 32, as rms_norm's qv
#elif defined(Y_Q8)
// Read back by the block's last workgroup: the other workgroups' rows must be visible.
layout(set = 0, binding = 2) coherent buffer Y { float y[]; };
#define STORE(v) (v)
#include "q8x.glsl"
layout(set = 0, binding = 7) writeonly buffer YQ { uint yq[]; };
layout(set = 0, binding = 8) coherent buffer Arrivals { uint arrivals[]; };
shared bool last_sh;
#else
layout(set = 0, binding = 2) writeonly buffer Y { float y[]; };
#define STORE(v) (v)
#endif
#ifdef ROPE
layout(set = 0, binding = 4) readonly buffer Pos { int pos[]; };
#ifdef FREQ_FACTORS
layout(set = 0, binding = 5) readonly buffer FF { float ff[]; };
#endif
#endif

#ifdef X_Q8
struct XChunk {
    uint w[2 * NW];  // Q4_0: NW low-half words, then NW high-half words; Q8_0: the first NW
    float d;
    int sum;  // Q4_0: the chunk's quantised x summed (the offset of 8)
};

XChunk load_x(uint xb4, uint c) {
    const uint b = c / PARTS, part = c % PARTS;
    const uint base = (xb4 >> 3) * 10u + b * 10u;  // xb4 = column start in vec4s: 8 per block
    XChunk x;
    x.sum = 0;
    [[unroll]] for (uint j = 0; j < NW; ++j) {
        x.w[j] = xq[base + NW * part + j];
#if defined(W_Q4_0)
        x.w[NW + j] = xq[base + 4u + NW * part + j];
#endif
    }
    x.d = uintBitsToFloat(xq[base + 8u]);
#if defined(W_Q4_0)
    [[unroll]] for (uint j = 0; j < 2u * NW; ++j) x.sum = sdot4x8(x.w[j], 0x01010101u, 0) + x.sum;
#endif
    return x;
}
#else
// One chunk of x: the vec4s the chunk's weights multiply, and (Q4_0) their sum, so that the
// nibbles' offset of 8 is one multiply per row: sum (q - 8) x = sum q x - 8 sum x.
struct XChunk {
#if defined(W_Q4_0)
    vec4 lo[NW];
    vec4 hi[NW];
    float sum;
#else
    vec4 v[NW];
#endif
};

XChunk load_x(uint xb4, uint c) {
    const uint b = c / PARTS, part = c % PARTS;
    XChunk x;
#if defined(W_Q4_0)
    [[unroll]] for (uint j = 0; j < NW; ++j) {
        x.lo[j] = x4[xb4 + 8u * b + NW * part + j];
        x.hi[j] = x4[xb4 + 8u * b + 4u + NW * part + j];
    }
    precise vec4 s = vec4(0.0);
    [[unroll]] for (uint j = 0; j < NW; ++j) s += x.lo[j] + x.hi[j];
    precise float sum = dot(s, vec4(1.0));
    x.sum = sum;
#else
    [[unroll]] for (uint j = 0; j < NW; ++j) x.v[j] = x4[xb4 + 8u * b + NW * part + j];
#endif
    return x;
}
#endif  // X_Q8

// The chunk's weight words of one row (row byte offset rb), and the block's scale.
struct WChunk {
    uint q[NW];
    float d;
};

// Matrix mat (0: binding 0, 1: binding 6); a constant at every call, so the branch folds.
WChunk load_w(uint mat, uint rb, uint c) {
    const uint b = c / PARTS, part = c % PARTS;
    WChunk w;
    const uint h = (rb + b * BLOCK_BYTES) >> 1;  // block start, in 16-bit words
#ifdef GLU
#define WORD(i) (mat == 0u ? uint(wq16[i]) : uint(uq16[i]))
#else
#define WORD(i) uint(wq16[i])
#endif
    w.d = unpackHalf2x16(WORD(h)).x;
    [[unroll]] for (uint j = 0; j < NW; ++j) {
        const uint i = h + 1u + 2u * (NW * part + j);
        w.q[j] = WORD(i) | (WORD(i + 1u) << 16);
    }
#undef WORD
    return w;
}

// The float arithmetic of the dot products and of their sums is `precise` (no contraction into
// fused multiply-adds): the compiler would contract differently in different variants of this
// template (seen on the H100 in the ADD_NORM variant over rows of 8192), and the fused
// variants must write the plain mat-vec's bits, because a q8x quantisation after them turns
// a last-bit difference into a whole step.
#ifdef X_Q8
float chunk_dot(const WChunk w, const XChunk x) {
    int s = 0;
#if defined(W_Q4_0)
    [[unroll]] for (uint j = 0; j < NW; ++j) {
        s = sudot4x8(x.w[j], w.q[j] & 0x0F0F0F0Fu, 0) + s;
        s = sudot4x8(x.w[NW + j], (w.q[j] >> 4) & 0x0F0F0F0Fu, 0) + s;
    }
    precise float r = (w.d * x.d) * float(s - 8 * x.sum);
#else
    [[unroll]] for (uint j = 0; j < NW; ++j) s = sdot4x8(x.w[j], w.q[j], 0) + s;
    precise float r = (w.d * x.d) * float(s);
#endif
    return r;
}
#else
float chunk_dot(const WChunk w, const XChunk x) {
    precise float s = 0.0;
#if defined(W_Q4_0)
    [[unroll]] for (uint j = 0; j < NW; ++j) {
        const uint q = w.q[j];
        s += dot(vec4(q & 15u, (q >> 8) & 15u, (q >> 16) & 15u, (q >> 24) & 15u), x.lo[j]);
        s += dot(vec4((q >> 4) & 15u, (q >> 12) & 15u, (q >> 20) & 15u, q >> 28), x.hi[j]);
    }
    precise float r = w.d * (s - 8.0 * x.sum);
    return r;
#else
    [[unroll]] for (uint j = 0; j < NW; ++j) {
        const uint q = w.q[j];
        s += dot(vec4(int(q << 24) >> 24, int(q << 16) >> 24, int(q << 8) >> 24, int(q) >> 24),
                 x.v[j]);
    }
    precise float r = w.d * s;
    return r;
#endif
}
#endif  // X_Q8

#ifdef Y_Q8
// After this workgroup wrote its rows of y: the last workgroup of their block of 32 rows
// quantises the block (every thread calls this; NR divides 32, so the rows share a block).
// Eight threads take four values each: the tail after the last arrival stays one load deep.
shared float amax_sh[8];
void quantize_block_when_last(uint first) {
    memoryBarrierBuffer();  // this workgroup's rows of y, before its arrival
    barrier();
    const uint blk = first / 32u, t = gl_LocalInvocationID.x;
    if (t == 0u) {
        const bool last = atomicAdd(arrivals[blk], 1u) == 32u / NR - 1u;
        if (last) arrivals[blk] = 0u;  // every workgroup of the block has arrived
        last_sh = last;
    }
    barrier();
    if (!last_sh) return;   // uniform per workgroup
    memoryBarrierBuffer();  // the other workgroups' rows, after their arrivals
    vec4 v = vec4(0.0);
    if (t < 8u) {
        const uint i = 32u * blk + 4u * t;
        v = vec4(y[i], y[i + 1u], y[i + 2u], y[i + 3u]);
        const vec4 a = abs(v);
        amax_sh[t] = max(max(a.x, a.y), max(a.z, a.w));
    }
    barrier();
    if (t < 8u) {
        float amax = 0.0;  // quantize_q8.comp's maximum: max is exact in any order
        [[unroll]] for (uint j = 0; j < 8u; ++j) amax = max(amax, amax_sh[j]);
        const float d = amax / 127.0;
        yq[10u * blk + t] = q8x_pack(v, q8x_inverse_scale(d));
        if (t == 0u) {
            yq[10u * blk + 8u] = floatBitsToUint(d);
            yq[10u * blk + 9u] = 0u;
        }
    }
}
#endif

#ifdef ADD_NORM
// After this workgroup wrote its rows of y: the last workgroup of the grid adds, normalises,
// multiplies and quantises the whole row as rms_norm.comp's workgroup of as many threads does:
// thread t sums the squares of elements t + 512 c (c < AN_CACHED) in that order, its subgroup
// sums are added up in subgroup order, and the same `precise` operations follow.
void add_norm_when_last() {
    memoryBarrierBuffer();  // this workgroup's rows of y, before its arrival
    barrier();
    const uint t = gl_LocalInvocationID.x;
    if (t == 0u) {
        const bool last = atomicAdd(arrivals[0], 1u) == gl_NumWorkGroups.x - 1u;
        if (last) arrivals[0] = 0u;  // every workgroup has arrived
        last_sh = last;
    }
    barrier();
    if (!last_sh) return;   // uniform per workgroup
    memoryBarrierBuffer();  // the other workgroups' rows, after their arrivals
    const uint dim = p.n;
    float m[AN_CACHED];  // the mul operand, loaded before the reduction
    float v[AN_CACHED];  // the row's sums
    precise float ss = 0.0;  // as rms_norm.comp's: no contraction
    [[unroll]] for (uint c = 0; c < AN_CACHED; ++c) {
        const uint i = t + AN_THREADS * c;
        v[c] = 0.0;
        if (i < dim) {
            precise float sum = y[i] + res[i];  // rms_norm.comp's PRE_ADD sum
            v[c] = sum;
            sum_out[i] = sum;
            m[c] = norm_mul[i];
        }
        ss += v[c] * v[c];
    }
    const float s = subgroupAdd(ss);
    if (subgroupElect()) an_red[gl_SubgroupID] = s;
    barrier();
    float total = 0.0;
    for (uint g = 0; g < gl_NumSubgroups; ++g) total += an_red[g];
    precise float inv = inversesqrt(total / float(dim) + p.norm_eps);
    [[unroll]] for (uint c = 0; c < AN_CACHED; ++c) {
        const uint i = t + AN_THREADS * c;
        if (i < dim) {
            const float n = v[c] * inv;
            precise float r = n;
            r *= m[c];
            an_row[i + i / 32u] = r;
        }
    }
    barrier();  // the row is complete; one block of 32 per thread, as rms_norm's quantize_row
    for (uint blk = t; blk < dim / 32u; blk += AN_THREADS) {
        const uint s0 = 33u * blk;
        float amax = 0.0;
        [[unroll]] for (uint k = 0; k < 32u; ++k) amax = max(amax, abs(an_row[s0 + k]));
        const float d = amax / 127.0;
        const float id = q8x_inverse_scale(d);
        [[unroll]] for (uint w = 0; w < 8u; ++w)
            norm_q8[10u * blk + w] =
                q8x_pack(vec4(an_row[s0 + 4u * w], an_row[s0 + 4u * w + 1u],
                              an_row[s0 + 4u * w + 2u], an_row[s0 + 4u * w + 3u]),
                         id);
        norm_q8[10u * blk + 8u] = floatBitsToUint(d);
        norm_q8[10u * blk + 9u] = 0u;
    }
}
#endif

// Per row group; subgroups are at least 4 wide (checked by the op) and do not straddle row
// groups (WG_SIZE is a multiple of the subgroup size).
shared float partials[GROUPS][NM * NR][WG_SIZE / 4];

void main() {
    const uint group = gl_LocalInvocationID.x / WG_SIZE;
    const uint tid = gl_LocalInvocationID.x % WG_SIZE;
    const uint row0 = (gl_WorkGroupID.x * GROUPS + group) * NR;
    const uint subgroups = gl_NumSubgroups / GROUPS;  // of a row group
    const uint col = gl_WorkGroupID.y;
    const uint xb4 = (col * p.x_stride) >> 2;
    const uint nchunks = p.k / CW;

    // Rows past the matrix read the last row (valid memory) and are not written.
    uint rb[NR];
    [[unroll]] for (uint r = 0; r < NR; ++r) rb[r] = min(row0 + r, p.n - 1u) * p.row_bytes;

    precise float acc[NM * NR];  // matrix mat's row r at mat * NR + r
    [[unroll]] for (uint r = 0; r < NM * NR; ++r) acc[r] = 0.0;

    uint c = tid;
    // Main loop: UNROLL chunks per row, all loads issued before the first dot.
    for (; c + (UNROLL - 1u) * WG_SIZE < nchunks; c += UNROLL * WG_SIZE) {
        XChunk xc[UNROLL];
        WChunk wc[UNROLL][NM * NR];
        [[unroll]] for (uint u = 0; u < UNROLL; ++u) {
            xc[u] = load_x(xb4, c + u * WG_SIZE);
            [[unroll]] for (uint r = 0; r < NM * NR; ++r)
                wc[u][r] = load_w(r / NR, rb[r % NR], c + u * WG_SIZE);
        }
        [[unroll]] for (uint u = 0; u < UNROLL; ++u)
            [[unroll]] for (uint r = 0; r < NM * NR; ++r) acc[r] += chunk_dot(wc[u][r], xc[u]);
    }
    for (; c < nchunks; c += WG_SIZE) {
        const XChunk xc = load_x(xb4, c);
        [[unroll]] for (uint r = 0; r < NM * NR; ++r)
            acc[r] += chunk_dot(load_w(r / NR, rb[r % NR], c), xc);
    }

    [[unroll]] for (uint r = 0; r < NM * NR; ++r) {
        const float s = subgroupAdd(acc[r]);
        if (subgroupElect()) partials[group][r][gl_SubgroupID % subgroups] = s;
    }
    barrier();
    if (tid < NR && row0 + tid < p.n) {
        float s = 0.0;
        for (uint g = 0; g < subgroups; ++g) s += partials[group][tid][g];
#ifdef GLU
        float up = 0.0;
        for (uint g = 0; g < subgroups; ++g) up += partials[group][NR + tid][g];
#if defined(GLU_SILU)
        s = silu(s) * up;
#else
        s = gelu_tanh(s) * up;
#endif
#endif
#ifdef ROPE
        const uint e = (row0 + tid) % p.rope_head_dim;  // element within the head
        const uint j = e / 2u;                          // its pair
        if (j < p.rope_dim / 2u) {
            float o = 0.0;  // the pair's other row (row n is even: it exists)
            for (uint g = 0; g < subgroups; ++g) o += partials[group][tid ^ 1u][g];
            float theta = float(pos[col]) * p.freq_scale *
                          pow(p.freq_base, -2.0 * float(j) / float(p.rope_dim));
#ifdef FREQ_FACTORS
            theta /= ff[j];
#endif
            const float c = cos(theta), sn = sin(theta);
            const bool first = (e & 1u) == 0u;
            const float a = first ? s : o, b = first ? o : s;
            s = first ? a * c - b * sn : a * sn + b * c;
        }
#endif
        y[col * p.y_stride + row0 + tid] = STORE(s);
    }
#ifdef Y_Q8
    quantize_block_when_last(col * p.y_stride + row0);
#endif
#ifdef ADD_NORM
    add_norm_when_last();
#endif
}
