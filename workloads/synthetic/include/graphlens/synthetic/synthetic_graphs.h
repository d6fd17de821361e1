#pragma once
// Synthetic compute graphs without Vulkan: kernels are KernelInfo with plausible bindings.
// Used by the pass tests, the CPU benchmark and as sample data for the GUI.
#include <cstddef>
#include <cstdint>

#include "graphlens/graph/compute_graph.h"

namespace graphlens {

struct RandomGraphOptions {
    uint64_t seed = 1;
    size_t dispatches = 16;
    size_t allocations = 3;
    uint64_t allocation_size = 256;         ///< bytes; views are multiples of 16 bytes inside it
    double fence_probability = 0.0;         ///< chance that a dispatch has unknown ranges
    double barrier_probability = 0.0;       ///< chance of a barrier node after a dispatch
    double empty_range_probability = 0.05;  ///< chance that a view has zero length
};

/// Random dispatches of random op kinds over random, overlapping and disjoint sub-ranges.
ComputeGraph random_graph(const RandomGraphOptions& options);

struct TransformerGraphOptions {
    size_t layers = 4;
    int64_t hidden = 2048;
    int64_t ffn = 8192;
    int64_t heads = 32;
    int64_t kv_heads = 8;
    int64_t context = 512;
    int64_t vocab = 32000;
    /// Capture barriers the way GraphSession::barrier_between would (before every dispatch
    /// that conflicts with the current group).
    bool capture_barriers = true;
    /// Norm outputs and attention scores live in one scratch arena reused by every layer.
    bool reuse_scratch = true;
};

/// One decode step of a llama-style model, in the depth-first order a ggml graph has: per
/// layer attn_norm (rms_norm→mul), q + rope, k + rope + cache store, v + cache store,
/// attention, o projection, residual add, ffn_norm (rms_norm→mul), up, gate, silu, mul,
/// down, residual add; then output_norm (rms_norm→mul) and lm_head, after a get_rows
/// embedding. Labels like "blk.3.attn_q". 20 dispatches per layer + 4.
ComputeGraph transformer_graph(const TransformerGraphOptions& options);
/// Dispatches per layer of transformer_graph and the fixed rest, to size a graph.
inline constexpr size_t kTransformerDispatchesPerLayer = 20;
inline constexpr size_t kTransformerExtraDispatches = 4;

}  // namespace graphlens
