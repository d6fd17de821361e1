#pragma once
// A real autoregressive decode loop on the GPU, greedy: each token's step reads the KV cache up
// to its own position and appends at it, the position advances, and the next token is the
// argmax of the step's logits, chosen on the GPU (greedy_next_token) and left there: the next
// step's embedding lookup reads it from the buffer the sampler wrote, so no token goes to the
// host and back between steps; the generated tokens are read back once, after the loop.
//
// The plan is made once: one decode step is recorded at the context's last position (so every
// grid, in particular decode attention's splits, is sized for the context), followed by the
// sampler, and planned for the execution mode (Runner::plan: fusion, reorder, barriers,
// command-buffer split). Every token then runs that plan with its own values patched in
// (DecodeStepPatch: the cache slot, the attention's KV length, the sampler's slot and next
// position) and is recorded anew from it (run_step_loop; levels+ahead records the next token's
// step while the GPU runs this one and queues it behind this one at once: queue_steps). Nothing
// is planned again per token.
#include <cstdint>
#include <vector>

#include "graphlens/exec/execution_mode.h"
#include "graphlens/exec/runner.h"
#include "graphlens/graph/dtype.h"
#include "graphlens/vulkan/graph_executor.h"

namespace graphlens {

class DeviceMemory;
class ModelWeights;

struct GreedyDecodeOptions {
    ExecutionMode mode = ExecutionMode::levels_ahead;
    /// Tokens generated before the timed ones: the loop's warm-up, through which the KV cache
    /// grows (warmup 512 times the tokens at KV lengths 513, 514, ...).
    uint32_t warmup = 4;
    uint32_t tokens = 16;  ///< tokens generated and timed after the warm-up
    /// KV-cache positions; 0 = warmup + tokens, the least the loop needs.
    uint32_t context = 0;
    int32_t prompt_token = 1;  ///< the first step's input token, at position 0
    DType kv_type = DType::f16;
    /// TransformerOptions::q8_activations.
    bool q8_activations = true;
    /// levels+ahead: each token's step is submitted as soon as it is recorded, queued behind
    /// the step before (ExecuteOptions::queue_steps): the step needs nothing from the host,
    /// since the sampler left its token on the GPU. false: submitted once the step before has
    /// completed, as a loop that samples on the host must.
    bool queue_steps = true;
    /// The planning options: fusion table, stream and parallel settings (RunnerOptions's).
    RunnerOptions planning;
};

struct GreedyDecodeResult {
    /// The token each step chose, warm-up included: tokens[i] is the input of step i + 1.
    std::vector<int32_t> tokens;
    /// Per step: wall_ns (previous step's completion to this one's: the time per token),
    /// gpu_ns, encode_ns, dispatches, barriers, command buffers.
    std::vector<ExecutionTiming> steps;
    std::vector<float> last_logits;  ///< the last step's logits (n_vocab)
    uint32_t context = 0;            ///< KV-cache positions the plan was made for
    size_t fusions_applied = 0;      ///< by the mode's plan
};

/// Runs the loop on `memory`'s device with `weights` (uploaded into a model laid out for one
/// token a step and `context` positions). Throws std::invalid_argument for a loop that does not
/// fit (context < warmup + tokens, a context below 2, a prompt token outside the vocabulary) or
/// a model whose token embedding the device cannot bind (its lookup would need the token on
/// the host), and what Runner::plan and the execution throw.
GreedyDecodeResult greedy_decode(DeviceMemory& memory, const ModelWeights& weights,
                                 const GreedyDecodeOptions& options);

}  // namespace graphlens
