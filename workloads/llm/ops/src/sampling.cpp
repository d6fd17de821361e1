// Sampling: the greedy choice of a decode loop's next token, on the GPU.
#include <fmt/format.h>

#include "graphlens/ops/dispatch_helpers.h"
#include "graphlens/ops/kernel_stages.h"
#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/graph_session.h"
#include "op_common.h"

namespace graphlens {

using namespace ops_detail;

void ops::greedy_next_token(GraphSession& s, const TensorView& logits, const TensorView& token,
                            const TensorView& position, const TensorView& generated,
                            const TensorView& scratch, uint32_t slot, int32_t next_position,
                            std::string label) {
    constexpr std::string_view op = "greedy_next_token";
    require_dtype(op, label, "logits", logits, DType::f32);
    require_dtype(op, label, "token", token, DType::i32);
    require_dtype(op, label, "position", position, DType::i32);
    require_dtype(op, label, "generated", generated, DType::i32);
    require_dtype(op, label, "scratch", scratch, DType::u32);
    require_subgroups(s.device(), op);
    require_elements(op, label, "token", token, 1);
    require_elements(op, label, "position", position, 1);
    if (generated.elements() <= int64_t(slot))
        fail(op, label,
             fmt::format("slot {} outside the {} generated tokens", slot, generated.elements()));
    if (next_position < 0) fail(op, label, fmt::format("position {} < 0", next_position));
    const uint32_t n_vocab = checked_u32(op, label, "n_vocab", logits.elements());
    if (scratch.elements() < int64_t(greedy_next_token_scratch_elements(n_vocab)))
        fail(op, label,
             fmt::format("scratch of {} elements; {} logits need {}", scratch.elements(), n_vocab,
                         greedy_next_token_scratch_elements(n_vocab)));
    const GreedyNextTokenPush params{n_vocab, slot, next_position};
    DispatchDesc d;
    d.kernel = "greedy_next_token";
    d.stages = kernel_stages(d.kernel);
    d.bindings = {{0, logits}, {1, token}, {2, position}, {3, generated}, {4, scratch}};
    d.push_constants = push_constant_bytes(params);
    d.workgroups = {greedy_next_token_workgroups(n_vocab), 1, 1};
    d.op = OpKind::other;
    d.label = std::move(label);
    s.dispatch(d);
}

}  // namespace graphlens
