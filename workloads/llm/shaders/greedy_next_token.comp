#version 450
// Greedy sampling of a decode loop, on the GPU so that the token never goes to the host and
// back: the index of the largest logit (the lowest index among equal largest ones, as
// std::max_element and llama.cpp's greedy sampler pick) becomes the next step's input token,
// is appended to the generated tokens at p.slot, and the next step's position is written. A
// loop's step then needs nothing from the host but its push constants.
// The logits are split over the grid (PER_THREAD values a thread) so that their loads are one
// round trip of the whole GPU, not hundreds of round trips of one SM: a vocabulary of 128k
// values read by one workgroup is a long chain of dependent loads after the lm_head. Each
// workgroup writes its best (value, index) to the scratch and counts its arrival there; the
// last to arrive sets the counter back to 0 and picks the best of the workgroups' bests (the
// order is total, so the result does not depend on which workgroup is last).
// logits: f32 [n_vocab]; token, position: i32 [1]; generated: i32 [> slot];
// scratch: u32, [0] the arrival counter (zero before the first run, left zero), [1 + 2 w] and
// [2 + 2 w] workgroup w's best value (float bits) and index.
// NaN logits are never chosen; all NaN or -inf gives token 0.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_shuffle : require
#define WG_SIZE 256
#define PER_THREAD 4  // must match kGreedyNextTokenPerWorkgroup / WG_SIZE in params.h
#include "common.glsl"

layout(local_size_x = WG_SIZE) in;

layout(set = 0, binding = 0) readonly buffer Logits { float logits[]; };
layout(set = 0, binding = 1) writeonly buffer Token { int token[]; };
layout(set = 0, binding = 2) writeonly buffer Position { int position[]; };
layout(set = 0, binding = 3) writeonly buffer Generated { int generated[]; };
// Read back by the last workgroup: the other workgroups' bests must be visible.
layout(set = 0, binding = 4) coherent buffer Scratch { uint scratch[]; };

layout(push_constant) uniform Params {
    uint n_vocab;
    uint slot;
    int next_position;
} p;

const uint kNone = 0xffffffffu;  // no index yet: every value seen was NaN or -inf

// (value, index) pairs ordered by value, then by the lower index: a total order on the pairs a
// thread can hold (values are never NaN), so any reduction order gives the same best.
bool better(float v, uint i, float than_v, uint than_i) {
    return v > than_v || (v == than_v && i < than_i);
}

shared float subgroup_value[WG_SIZE / 4];  // subgroups are at least 4 wide
shared uint subgroup_index[WG_SIZE / 4];
shared bool last_sh;

// The best pair of the workgroup, in every thread. Every thread must call it (barriers).
void workgroup_best(inout float v, inout uint idx) {
    for (uint d = 1u; d < gl_SubgroupSize; d <<= 1u) {
        const float ov = subgroupShuffleXor(v, d);
        const uint oi = subgroupShuffleXor(idx, d);
        if (better(ov, oi, v, idx)) {
            v = ov;
            idx = oi;
        }
    }
    if (subgroupElect()) {
        subgroup_value[gl_SubgroupID] = v;
        subgroup_index[gl_SubgroupID] = idx;
    }
    barrier();
    v = subgroup_value[0];
    idx = subgroup_index[0];
    for (uint g = 1u; g < gl_NumSubgroups; ++g)
        if (better(subgroup_value[g], subgroup_index[g], v, idx)) {
            v = subgroup_value[g];
            idx = subgroup_index[g];
        }
    barrier();  // the shared bests may be written again
}

void write_token(uint idx) {
    const int t = idx == kNone ? 0 : int(idx);
    token[0] = t;
    generated[p.slot] = t;
    position[0] = p.next_position;
}

void main() {
    const uint tid = gl_LocalInvocationID.x;
    const uint wg = gl_WorkGroupID.x;
    const uint first = wg * WG_SIZE * PER_THREAD + tid;
    // All loads first (one round trip), then the thread's best in ascending index order with a
    // strict comparison: its lowest index of its maximum.
    float x[PER_THREAD];
    [[unroll]] for (uint j = 0u; j < PER_THREAD; ++j) {
        const uint i = first + j * WG_SIZE;
        x[j] = i < p.n_vocab ? logits[i] : -1.0 / 0.0;
    }
    float v = -1.0 / 0.0;
    uint idx = kNone;
    [[unroll]] for (uint j = 0u; j < PER_THREAD; ++j)
        if (x[j] > v) {
            v = x[j];
            idx = first + j * WG_SIZE;
        }
    workgroup_best(v, idx);
    if (gl_NumWorkGroups.x == 1u) {  // uniform: the only workgroup needs no counter
        if (tid == 0u) write_token(idx);
        return;
    }

    if (tid == 0u) {
        scratch[1u + 2u * wg] = floatBitsToUint(v);
        scratch[2u + 2u * wg] = idx;
    }
    memoryBarrierBuffer();  // this workgroup's best, before its arrival
    barrier();
    if (tid == 0u) {
        const bool last = atomicAdd(scratch[0], 1u) == gl_NumWorkGroups.x - 1u;
        if (last) scratch[0] = 0u;  // every workgroup has arrived
        last_sh = last;
    }
    barrier();
    if (!last_sh) return;   // uniform per workgroup
    memoryBarrierBuffer();  // the other workgroups' bests, after their arrivals
    v = -1.0 / 0.0;
    idx = kNone;
    for (uint w = tid; w < gl_NumWorkGroups.x; w += WG_SIZE) {
        const float wv = uintBitsToFloat(scratch[1u + 2u * w]);
        const uint wi = scratch[2u + 2u * w];
        if (better(wv, wi, v, idx)) {
            v = wv;
            idx = wi;
        }
    }
    workgroup_best(v, idx);
    if (tid == 0u) write_token(idx);
}
