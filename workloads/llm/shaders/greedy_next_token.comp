#version 450
// Greedy sampling of a decode loop, on the GPU so that the token never goes to the host and
// back: one workgroup finds the index of the largest logit (the lowest index among equal
// largest ones, as std::max_element and llama.cpp's greedy sampler pick) and writes it as the
// next step's input token, appends it to the generated tokens at p.slot, and writes the next
// step's position. A loop's step then needs nothing from the host but its push constants.
// logits: f32 [n_vocab]; token, position: i32 [1]; generated: i32 [> slot].
// NaN logits are never chosen; all NaN or -inf gives token 0.
#extension GL_GOOGLE_include_directive : require
#define WG_SIZE 256
#include "common.glsl"

layout(local_size_x = WG_SIZE) in;

layout(set = 0, binding = 0) readonly buffer Logits { float logits[]; };
layout(set = 0, binding = 1) writeonly buffer Token { int token[]; };
layout(set = 0, binding = 2) writeonly buffer Position { int position[]; };
layout(set = 0, binding = 3) writeonly buffer Generated { int generated[]; };

layout(push_constant) uniform Params {
    uint n_vocab;
    uint slot;
    int next_position;
} p;

shared float best_value[WG_SIZE];
shared uint best_index[WG_SIZE];

// (value, index) pairs ordered by value, then by the lower index.
bool better(float v, uint i, float than_v, uint than_i) {
    return v > than_v || (v == than_v && i < than_i);
}

void main() {
    const uint tid = gl_LocalInvocationID.x;
    float v = -1.0 / 0.0;
    uint idx = 0xffffffffu;
    // Strided with a strict comparison: each thread keeps its lowest index of its maximum.
    for (uint i = tid; i < p.n_vocab; i += WG_SIZE) {
        const float x = logits[i];
        if (x > v) {
            v = x;
            idx = i;
        }
    }
    best_value[tid] = v;
    best_index[tid] = idx;
    barrier();
    for (uint stride = WG_SIZE / 2u; stride > 0u; stride >>= 1u) {
        if (tid < stride &&
            better(best_value[tid + stride], best_index[tid + stride], best_value[tid],
                   best_index[tid])) {
            best_value[tid] = best_value[tid + stride];
            best_index[tid] = best_index[tid + stride];
        }
        barrier();
    }
    if (tid == 0u) {
        const int t = best_index[0] == 0xffffffffu ? 0 : int(best_index[0]);
        token[0] = t;
        generated[p.slot] = t;
        position[0] = p.next_position;
    }
}
