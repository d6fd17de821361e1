// greedy_decode: one decode step planned once, run for every token with its values patched.
#include "graphlens/decode/greedy_decode.h"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "graphlens/decode/decode_step_patch.h"
#include "graphlens/exec/step_loop.h"
#include "graphlens/model/model_weights.h"
#include "graphlens/model/transformer_builder.h"
#include "graphlens/ops/ops.h"
#include "graphlens/ops/params.h"
#include "graphlens/vulkan/device_memory.h"
#include "graphlens/vulkan/graph_session.h"

namespace graphlens {
namespace {

void check_fits(const ModelConfig& c, const GreedyDecodeOptions& o, uint32_t context) {
    const uint64_t steps = uint64_t(o.warmup) + o.tokens;
    if (o.tokens == 0) throw std::invalid_argument("a decode loop of 0 timed tokens");
    if (context < 2)
        throw std::invalid_argument(fmt::format("a context of {} positions: at least 2", context));
    if (steps > context)
        throw std::invalid_argument(
            fmt::format("{} warm-up + {} timed tokens do not fit a context of {} positions",
                        o.warmup, o.tokens, context));
    if (o.prompt_token < 0 || uint32_t(o.prompt_token) >= c.n_vocab)
        throw std::invalid_argument(
            fmt::format("prompt token {} outside the vocabulary of {}", o.prompt_token, c.n_vocab));
}

}  // namespace

GreedyDecodeResult greedy_decode(DeviceMemory& memory, const ModelWeights& weights,
                                 const GreedyDecodeOptions& o) {
    const ModelConfig& c = weights.config();
    const uint32_t steps = o.warmup + o.tokens;
    const uint32_t context = o.context ? o.context : steps;
    check_fits(c, o, context);
    TransformerOptions to;
    to.max_tokens = 1;
    to.kv_capacity = context;
    to.kv_type = o.kv_type;
    to.q8_activations = o.q8_activations;
    TransformerModel model(memory, c, to);
    if (model.embedding_on_host())
        throw std::invalid_argument(fmt::format(
            "{}: this device cannot bind token_embd at once (maxStorageBufferRange), so its "
            "lookup runs on the host; the decode loop keeps its tokens on the GPU",
            c.name));
    const AllocationId generated_alloc =
        memory.allocate("generated_tokens", 4ull * steps, AllocationUsage::output);
    const TensorView generated = memory.view(generated_alloc, DType::i32, {int64_t(steps)});
    // The sampler's arrival counter and per-workgroup bests, zeroed once (every run leaves the
    // counter zero).
    const uint64_t scratch_elements = greedy_next_token_scratch_elements(c.n_vocab);
    const AllocationId scratch_alloc =
        memory.allocate("greedy_scratch", 4 * scratch_elements, AllocationUsage::scratch);
    memory.upload(scratch_alloc, std::vector<uint8_t>(4 * scratch_elements, 0));
    const TensorView sampler_scratch =
        memory.view(scratch_alloc, DType::u32, {int64_t(scratch_elements)});
    model.upload_weights(weights);
    const int32_t prompt[] = {o.prompt_token};
    model.upload_inputs(prompt, 0);

    // One step at the context's last position, then the sampler: the grids are the context's.
    GraphExecutor executor(memory.device(), memory);
    const uint32_t recorded_position = context - 1;
    GraphSession session = executor.begin_recorded();
    model.record_step(session, 1, recorded_position);
    ops::greedy_next_token(session, model.logits(), model.tokens_input(), model.positions_input(),
                           generated, sampler_scratch, 0, int32_t(context), "greedy_next_token");
    const ComputeGraph step = session.finish_recording();

    ModePlan plan = Runner::plan(step, o.mode, o.planning);
    plan.execute.queue_steps = o.queue_steps;
    const DecodeStepPatch patch(plan.graph, model, recorded_position);
    GreedyDecodeResult r;
    r.context = context;
    r.fusions_applied = plan.fusions_applied;
    // Step i runs the token at position i and samples its successor into generated[i].
    r.steps = run_step_loop(executor, plan, steps, [&](ComputeGraph& g, size_t i) {
        patch.apply(g, uint32_t(i), uint32_t(i));
    });
    r.tokens = memory.download_as<int32_t>(generated);
    r.last_logits = memory.download_as<float>(model.logits());
    return r;
}

}  // namespace graphlens
