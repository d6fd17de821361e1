#version 450
// Matrix-matrix product for prefill: Y[c][r] = sum_k W[r][k] X[c][k], tiled 64 rows x 64
// columns x 16 k through shared memory, 256 threads each computing 4 x 4 outputs. Weight
// format from weights.glsl (one W_* define); elements are dequantised as tiles are loaded.
#extension GL_GOOGLE_include_directive : require
#define WG_SIZE 256
#include "common.glsl"

#define BN 64
#define BM 64
#define BK 16

layout(local_size_x = WG_SIZE) in;

#include "matmul_params.glsl"

#include "weight_binding.glsl"
layout(set = 0, binding = 1) readonly buffer X { float x[]; };
layout(set = 0, binding = 2) writeonly buffer Y { float y[]; };
#ifdef W_AFFINE
layout(set = 0, binding = 3) readonly buffer S { float16_t scales[]; };
layout(set = 0, binding = 4) readonly buffer B { float16_t biases[]; };
#endif

#include "weights.glsl"

shared float ws[BK][BN + 1];
shared float xs[BK][BM + 1];

void main() {
    const uint lid = gl_LocalInvocationID.x;
    const uint r0 = gl_WorkGroupID.x * BN;
    const uint c0 = gl_WorkGroupID.y * BM;
    const uint tr = lid % 16u, tc = lid / 16u;  // this thread: rows tr*4.., columns tc*4..
    float acc[4][4];
    for (uint i = 0; i < 4; ++i)
        for (uint j = 0; j < 4; ++j) acc[i][j] = 0.0;

    for (uint k0 = 0; k0 < p.k; k0 += BK) {
        // 1024 elements of each tile, 4 per thread; k fastest so loads follow rows.
        for (uint e = lid; e < BK * BN; e += WG_SIZE) {
            const uint kk = e % BK, rr = e / BK;
            const uint row = r0 + rr, kg = k0 + kk;
            ws[kk][rr] = (row < p.n && kg < p.k) ? w_elem(row * p.row_bytes, kg) : 0.0;
        }
        for (uint e = lid; e < BK * BM; e += WG_SIZE) {
            const uint kk = e % BK, cc = e / BK;
            const uint col = c0 + cc, kg = k0 + kk;
            xs[kk][cc] = (col < p.m && kg < p.k) ? x[col * p.x_stride + kg] : 0.0;
        }
        barrier();
        for (uint kk = 0; kk < BK; ++kk) {
            float a[4], b[4];
            for (uint i = 0; i < 4; ++i) a[i] = ws[kk][tr * 4 + i];
            for (uint j = 0; j < 4; ++j) b[j] = xs[kk][tc * 4 + j];
            for (uint i = 0; i < 4; ++i)
                for (uint j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
        }
        barrier();
    }
    for (uint i = 0; i < 4; ++i) {
        const uint row = r0 + tr * 4 + i;
        if (row >= p.n) continue;
        for (uint j = 0; j < 4; ++j) {
            const uint col = c0 + tc * 4 + j;
            if (col < p.m) y[col * p.y_stride + row] = acc[i][j];
        }
    }
}
