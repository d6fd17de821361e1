#pragma once
// Where a decode step's per-token values sit in a planned graph of that step, found once, and
// how one token's values are written there. A decode loop plans one step (recorded at the last
// position of its context, so every grid is sized for the context) and runs it for every
// token; what differs from token to token is:
//   - the KV-cache slot each layer's keys and values are appended at: the offset of the binding
//     that writes them, wherever fusion put that write (the copy, the rope, a q/k/v mat-vec's
//     epilogue);
//   - the KV length each decode attention reads: flash_attn_vec's kv_len push constant (its
//     grid stays sized for the context: the splits past the KV length attend no key and weigh
//     nothing in the combine);
//   - the greedy sampler's slot in the generated tokens and the next position it writes: its
//     push constants.
// The token and its position reach the step through buffers the sampler of the step before
// wrote, so nothing else changes. apply() touches no node's order, barrier or kernel.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "graphlens/graph/compute_graph.h"

namespace graphlens {

class TransformerModel;

class DecodeStepPatch {
  public:
    /// Finds the per-token values of `graph`, a plan (any execution mode's graph) of one decode
    /// step of `model` recorded at position `recorded_position`, ending in one
    /// greedy_next_token dispatch. Throws std::logic_error naming what it found when the graph
    /// does not have one key and one value write per layer, one decode attention per layer and
    /// one sampler.
    DecodeStepPatch(const ComputeGraph& graph, const TransformerModel& model,
                    uint32_t recorded_position);

    /// Writes the values of the token at `position` (< the model's KV capacity), whose sampled
    /// successor goes to generated[slot], into `graph` (the graph given to the constructor or a
    /// copy of it): the binding views and byte ranges of the cache writes and the push
    /// constants.
    void apply(ComputeGraph& graph, uint32_t position, uint32_t slot) const;

  private:
    struct CacheWrite {
        size_t node = 0;
        size_t binding = 0;
        uint64_t layer_offset = 0;  ///< byte offset of the layer's K or V cache
    };
    std::vector<CacheWrite> cache_writes_;
    std::vector<size_t> attention_nodes_;
    size_t sampler_node_ = 0;
    uint64_t token_bytes_ = 0;  ///< one position of one layer's K (or V)
    uint32_t capacity_ = 0;
};

}  // namespace graphlens
