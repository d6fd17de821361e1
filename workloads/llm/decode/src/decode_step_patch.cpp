// DecodeStepPatch: the per-token values of a planned decode step.
#include "graphlens/decode/decode_step_patch.h"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "graphlens/model/transformer_builder.h"
#include "graphlens/ops/params.h"

namespace graphlens {
namespace {

bool runs_kernel(const ComputeGraph& g, const Node& n, std::string_view prefix) {
    return n.is_dispatch() && n.kernel < g.kernels.size() &&
           g.kernels[n.kernel].name.starts_with(prefix);
}

template <class Field>
void write_push(Node& n, size_t offset, Field value) {
    static_assert(sizeof(Field) == 4);
    std::memcpy(n.push_constants.data() + offset, &value, sizeof value);
}

}  // namespace

DecodeStepPatch::DecodeStepPatch(const ComputeGraph& graph, const TransformerModel& model,
                                 uint32_t recorded_position)
    : capacity_(model.options().kv_capacity) {
    const ModelConfig& c = model.config();
    token_bytes_ = dtype_bytes_for(model.options().kv_type, uint64_t(c.kv_dim()));
    const AllocationId kv = model.k_cache(0).allocation;
    std::vector<uint64_t> layer_offsets;
    for (uint32_t il = 0; il < c.n_layer; ++il)
        for (const TensorView& cache : {model.k_cache(il), model.v_cache(il)})
            layer_offsets.push_back(cache.offset);
    size_t samplers = 0;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& n = graph.nodes[i];
        if (!n.is_dispatch()) continue;
        // A cache write binds exactly the slot of the recorded position; the attention binds
        // the cache from position 0 on.
        for (size_t b = 0; b < n.bindings.size(); ++b) {
            const TensorView& v = n.bindings[b].view;
            if (v.allocation != kv || v.size != token_bytes_) continue;
            for (uint64_t layer : layer_offsets)
                if (v.offset == layer + token_bytes_ * recorded_position)
                    cache_writes_.push_back({i, b, layer});
        }
        if (runs_kernel(graph, n, "flash_attn_vec")) {
            if (n.push_constants.size() != sizeof(FlashAttnVecPush))
                throw std::logic_error(fmt::format("{}: {} push-constant bytes, expected {}",
                                                   n.label, n.push_constants.size(),
                                                   sizeof(FlashAttnVecPush)));
            attention_nodes_.push_back(i);
        }
        if (runs_kernel(graph, n, "greedy_next_token")) {
            if (n.push_constants.size() != sizeof(GreedyNextTokenPush))
                throw std::logic_error(fmt::format("{}: {} push-constant bytes, expected {}",
                                                   n.label, n.push_constants.size(),
                                                   sizeof(GreedyNextTokenPush)));
            sampler_node_ = i;
            ++samplers;
        }
    }
    if (cache_writes_.size() != 2 * c.n_layer || attention_nodes_.size() != c.n_layer ||
        samplers != 1)
        throw std::logic_error(fmt::format(
            "the planned decode step of {} has {} KV-cache writes, {} decode attentions and {} "
            "samplers; a step of {} layers needs {}, {} and 1 for its per-token values to be "
            "patched",
            c.name, cache_writes_.size(), attention_nodes_.size(), samplers, c.n_layer,
            2 * c.n_layer, c.n_layer));
}

void DecodeStepPatch::apply(ComputeGraph& graph, uint32_t position, uint32_t slot) const {
    if (position >= capacity_)
        throw std::out_of_range(
            fmt::format("position {} outside the KV cache of {} positions", position, capacity_));
    for (const CacheWrite& w : cache_writes_) {
        Node& n = graph.nodes[w.node];
        n.bindings[w.binding].view.offset = w.layer_offset + token_bytes_ * position;
        graph.derive_ranges(n);
    }
    for (size_t i : attention_nodes_)
        write_push(graph.nodes[i], offsetof(FlashAttnVecPush, kv_len), position + 1);
    Node& sampler = graph.nodes[sampler_node_];
    write_push(sampler, offsetof(GreedyNextTokenPush, slot), slot);
    write_push(sampler, offsetof(GreedyNextTokenPush, next_position), int32_t(position + 1));
}

}  // namespace graphlens
