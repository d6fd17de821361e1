#include "graphlens/model/transformer_builder.h"
#include "graphlens/ops/ops.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <vector>

#include "graphlens/model/model_weights.h"
#include "graphlens/ops/ggml_blocks.h"
#include "graphlens/ops/params.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"
#include "graphlens/vulkan/graph_executor.h"
#include "graphlens/vulkan/graph_session.h"

namespace graphlens {

std::string_view phase_name(Phase p) {
    return p == Phase::decode ? "decode" : "prefill";
}

namespace {

/// Offsets inside allocations: a multiple of every device's storage-buffer offset
/// alignment (the Vulkan maximum is 256).
constexpr uint64_t kAlign = 256;
uint64_t align_up(uint64_t v) {
    return (v + kAlign - 1) / kAlign * kAlign;
}

}  // namespace

TransformerModel::TransformerModel(DeviceMemory& memory, ModelConfig config,
                                   TransformerOptions options)
    : memory_(&memory), config_(std::move(config)), options_(options) {
    const ModelConfig& c = config_;
    c.validate();
    if (options_.max_tokens == 0) options_.max_tokens = 1;
    if (options_.kv_capacity == 0) options_.kv_capacity = std::min(c.n_ctx_train, 4096u);
    if (options_.kv_capacity == 0) options_.kv_capacity = 4096;
    if (options_.kv_type != DType::f32 && options_.kv_type != DType::f16)
        throw std::invalid_argument(fmt::format("KV cache type {} is not supported (f32, f16)",
                                                dtype_name(options_.kv_type)));

    allocate_weights();
    allocate_kv_cache_and_inputs();
    allocate_activations();
    allocate_attention_state_and_logits();
}

void TransformerModel::allocate_weights() {
    const ModelConfig& c = config_;
    DeviceMemory& memory = *memory_;
    std::vector<WeightSpec> specs = model_weights(c);
    auto arena_of = [](const std::string& name) -> std::string {
        if (name.rfind("blk.", 0) == 0) return "weights." + name.substr(0, name.find('.', 4));
        if (name.rfind("token_embd", 0) == 0 || name.rfind("rope_freqs", 0) == 0)
            return "weights.token_embd";
        return "weights.output";
    };
    std::vector<std::pair<std::string, uint64_t>> arenas;  // in file order
    std::unordered_map<std::string, uint64_t> offsets;
    for (const auto& w : specs) {
        const std::string arena = arena_of(w.name);
        if (arenas.empty() || arenas.back().first != arena) arenas.push_back({arena, 0});
        offsets[w.name] = arenas.back().second;
        arenas.back().second = align_up(arenas.back().second + w.bytes());
    }
    std::unordered_map<std::string, AllocationId> arena_ids;
    for (const auto& [name, size] : arenas)
        arena_ids[name] = memory.allocate(fmt::format("{}", name), size, AllocationUsage::weights);
    for (const auto& w : specs)
        weights_.emplace(w.name, WeightSlot{arena_ids.at(arena_of(w.name)), offsets.at(w.name), w});
    embedding_on_host_ = !fits_one_binding(slot("token_embd.weight").spec.bytes());
}

void TransformerModel::allocate_kv_cache_and_inputs() {
    const ModelConfig& c = config_;
    DeviceMemory& memory = *memory_;
    kv_layer_bytes_ =
        align_up(dtype_bytes_for(options_.kv_type, uint64_t(c.kv_dim()) * options_.kv_capacity));
    kv_alloc_ =
        memory.allocate("kv_cache", kv_layer_bytes_ * 2 * c.n_layer, AllocationUsage::kv_cache);

    // --- inputs
    const uint32_t T = options_.max_tokens;
    const AllocationId inp_tokens =
        memory.allocate("inp_tokens", align_up(4ull * T), AllocationUsage::input);
    const AllocationId inp_pos =
        memory.allocate("inp_pos", align_up(4ull * T), AllocationUsage::input);
    tokens_ = memory.view(inp_tokens, DType::i32, {int64_t(T)});
    positions_ = memory.view(inp_pos, DType::i32, {int64_t(T)});
    if (embedding_on_host_)
        inp_embd_ = memory.view(
            memory.allocate("inp_embd", align_up(4ull * c.n_embd * T), AllocationUsage::input),
            DType::f32, {int64_t(c.n_embd), int64_t(T)});
}

void TransformerModel::allocate_activations() {
    const ModelConfig& c = config_;
    DeviceMemory& memory = *memory_;
    const uint32_t T = options_.max_tokens;
    // --- residual stream: two rows of [n_embd, T] the layers ping-pong between.
    const uint64_t row = align_up(4ull * c.n_embd * T);
    residual_alloc_ = memory.allocate("act.residual", 2 * row, AllocationUsage::activations);
    regions_["residual0"] = {residual_alloc_, 0, row};
    regions_["residual1"] = {residual_alloc_, row, row};

    // --- scratch: the attention phase's regions, then the FFN phase's from offset 0 again.
    uint64_t end = 0, scratch = 0;
    auto region = [&](const std::string& name, uint64_t bytes) {
        regions_[name] = {0, end, align_up(bytes)};  // allocation set below
        end += align_up(bytes);
        scratch = std::max(scratch, end);
    };
    // Partials and running sums of a split-k product of n outputs a token over rows of k
    // (matmul(..., split_region)), where a step of up to T tokens might split it: the fewest
    // mat-mat columns (9) make the smallest tile grid, and f32's 32-element unit divides
    // every format's.
    auto split_regions = [&](const std::string& name, uint64_t n, uint64_t k) {
        if (T <= 8 || matmul_k_splits(DType::f32, uint32_t(n), uint32_t(k), 9) == 1) return;
        region(name, 4ull * T * n * 4);  // at most 4 ranges
        region(name + ".sum1", 4ull * T * n);
        region(name + ".sum2", 4ull * T * n);
    };
    const uint64_t f = 4ull * T;  // f32 bytes per value per token
    region("norm_raw", f * c.n_embd);
    region("norm", f * c.n_embd);
    const bool q8_rows = c.n_embd % 32 == 0;  // q8x x: one-token steps only (record_layer)
    if (q8_rows) region("norm_q8", dtype_bytes_for(DType::q8x, c.n_embd));
    region("q", f * c.q_dim());
    region("k", f * c.kv_dim());
    region("v", f * c.kv_dim());
    if (c.qkv_bias) {
        region("q_bias", f * c.q_dim());
        region("k_bias", f * c.kv_dim());
        region("v_bias", f * c.kv_dim());
    }
    if (c.qk_norm) {
        region("q_norm_raw", f * c.q_dim());
        region("q_norm", f * c.q_dim());
        region("k_norm_raw", f * c.kv_dim());
        region("k_norm", f * c.kv_dim());
    }
    region("q_rope", f * c.q_dim());
    region("k_rope", f * c.kv_dim());
    region("attn", f * c.q_dim());
    region("attn_out", f * c.n_embd);
    split_regions("o_parts", c.n_embd, c.q_dim());
    if (c.post_norms) {
        region("post_attn_raw", f * c.n_embd);
        region("post_attn", f * c.n_embd);
    }
    if (c.final_logit_softcap > 0) region("logits_raw", 4ull * c.n_vocab);
    end = 0;  // the FFN phase reuses the attention phase's bytes
    region("ffn_norm_raw", f * c.n_embd);
    region("ffn_norm", f * c.n_embd);
    if (q8_rows) region("ffn_norm_q8", dtype_bytes_for(DType::q8x, c.n_embd));
    if (c.is_moe()) {
        const uint64_t k = c.n_expert_used;
        region("router", f * c.n_expert);
        region("expert_ids", f * k);
        region("expert_weights", f * k);
        region("gate", f * k * c.n_ff_expert);
        region("up", f * k * c.n_ff_expert);
        region("act_raw", f * k * c.n_ff_expert);
        region("act", f * k * c.n_ff_expert);
        region("down", f * k * c.n_embd);
        region("expert_scale", f * k * c.n_embd);
        region("down_perm", f * k * c.n_embd);
        region("down_weighted", f * k * c.n_embd);
        region("ffn_out", f * c.n_embd);
    } else {
        region("gate", f * c.n_ff);
        region("up", f * c.n_ff);
        region("act_raw", f * c.n_ff);
        region("act", f * c.n_ff);
        if (c.n_ff % 32 == 0) region("act_q8", dtype_bytes_for(DType::q8x, c.n_ff));
        region("ffn_out", f * c.n_embd);
        split_regions("down_parts", c.n_embd, c.n_ff);
    }
    if (c.post_norms) {
        region("post_ffw_raw", f * c.n_embd);
        region("post_ffw", f * c.n_embd);
    }
    scratch_alloc_ = memory.allocate("act.scratch", scratch, AllocationUsage::scratch);
    for (auto& [name, r] : regions_)
        if (name.rfind("residual", 0) != 0) r.allocation = scratch_alloc_;
    if (c.is_moe()) {
        // Index tables for the weighted sum of the experts' outputs (see record_moe).
        const uint64_t table = align_up(4ull * c.n_embd * c.n_expert_used * T);
        moe_index_alloc_ = memory.allocate("moe_index", 2 * table, AllocationUsage::input);
        regions_["moe_scale_index"] = {moe_index_alloc_, 0, table};
        regions_["moe_perm_index"] = {moe_index_alloc_, table, table};
    }
}

void TransformerModel::allocate_attention_state_and_logits() {
    const ModelConfig& c = config_;
    DeviceMemory& memory = *memory_;
    FlashAttnVecParams fa;
    fa.head_dim = c.head_dim;
    fa.n_heads = c.n_head;
    fa.n_kv_heads = c.n_head_kv;
    fa.kv_len = options_.kv_capacity;
    // Decode attention's state (ops::flash_attn_vec): its arrival counters, zeroed
    // once here and left zero by every run, and its per-split partials. Each gets an
    // allocation of its own: the kernel binds both read-write, so the hazard analysis sees
    // every layer's attention read all of them, and in act.scratch, whose bytes the FFN phase
    // reuses, the FFN's intermediates would look read by the next layer's attention (no
    // fusion there, and more levels: 30 more barriers for llama-3.2-1b decode at KV 4096).
    // All layers share them, an order the residual stream imposes anyway (layer il + 1's
    // query comes from layer il's output), so they add no barrier.
    auto own_allocation = [&](const char* name, uint64_t elements) {
        const uint64_t bytes = align_up(4 * elements);
        regions_[name] = {memory.allocate(name, bytes, AllocationUsage::scratch), 0, bytes};
        return regions_[name];
    };
    const auto counters = own_allocation("fa_counters", flash_attn_vec_counter_elements(fa));
    memory.upload(counters.allocation, std::vector<uint8_t>(counters.bytes, 0));
    own_allocation("fa_tmp", flash_attn_vec_tmp_capacity_elements(fa));
    logits_alloc_ = memory.allocate("logits", align_up(4ull * c.n_vocab), AllocationUsage::output);
}

TensorView TransformerModel::act(const std::string& region, DType dtype, std::vector<int64_t> shape,
                                 uint64_t byte_offset) const {
    const auto it = regions_.find(region);
    if (it == regions_.end())
        throw std::logic_error(fmt::format("transformer builder: no region '{}'", region));
    TensorView v =
        memory_->view(it->second.allocation, dtype, shape, it->second.offset + byte_offset);
    if (byte_offset + v.size > it->second.bytes)
        throw std::logic_error(fmt::format(
            "transformer builder: view of {} bytes at {} leaves region '{}' of {} bytes", v.size,
            byte_offset, region, it->second.bytes));
    return v;
}

TensorView TransformerModel::logits() const {
    return memory_->view(logits_alloc_, DType::f32, {int64_t(config_.n_vocab)});
}

TensorView TransformerModel::k_cache(uint32_t layer) const {
    const ModelConfig& c = config_;
    return memory_->view(kv_alloc_, options_.kv_type,
                         {int64_t(c.head_dim), int64_t(c.n_head_kv), int64_t(options_.kv_capacity)},
                         kv_layer_bytes_ * 2 * layer);
}

TensorView TransformerModel::v_cache(uint32_t layer) const {
    const ModelConfig& c = config_;
    return memory_->view(kv_alloc_, options_.kv_type,
                         {int64_t(c.head_dim), int64_t(c.n_head_kv), int64_t(options_.kv_capacity)},
                         kv_layer_bytes_ * (2 * layer + 1));
}

const TransformerModel::WeightSlot& TransformerModel::slot(std::string_view name) const {
    const auto it = weights_.find(std::string(name));
    if (it == weights_.end())
        throw std::out_of_range(fmt::format("model '{}' has no weight '{}'", config_.name, name));
    return it->second;
}

uint64_t TransformerModel::binding_limit() const {
    uint64_t limit = memory_->device().facts().max_storage_buffer_range;
    if (limit == 0) limit = UINT64_MAX;
    if (options_.max_binding_bytes > 0) limit = std::min(limit, options_.max_binding_bytes);
    return limit;
}

bool TransformerModel::fits_one_binding(uint64_t bytes) const {
    return bytes <= binding_limit();
}

TensorView TransformerModel::weight(std::string_view name) const {
    const WeightSlot& w = slot(name);
    return memory_->view(w.allocation, w.spec.dtype, w.spec.shape, w.offset);
}

TensorView TransformerModel::weight_rows(std::string_view name, int64_t first, int64_t rows) const {
    const WeightSlot& w = slot(name);
    const uint64_t row_bytes = dtype_bytes_for(w.spec.dtype, uint64_t(w.spec.shape.at(0)));
    return memory_->view(w.allocation, w.spec.dtype, {w.spec.shape.at(0), rows},
                         w.offset + uint64_t(first) * row_bytes);
}

}  // namespace graphlens

namespace graphlens {

void TransformerModel::upload_weights(const ModelWeights& weights) {
    for (const auto& spec : weights.specs()) {
        const WeightSlot& w = slot(spec.name);
        if (spec.dtype != w.spec.dtype || spec.bytes() != w.spec.bytes())
            throw std::invalid_argument(fmt::format(
                "weight '{}' is {} ({} bytes) but the model was laid out for {} ({} bytes)",
                spec.name, dtype_name(spec.dtype), spec.bytes(), dtype_name(w.spec.dtype),
                w.spec.bytes()));
        memory_->upload(w.allocation, weights.bytes(spec.name), w.offset);
    }
    if (embedding_on_host_) {
        const auto bytes = weights.bytes("token_embd.weight");
        host_token_embd_.assign(bytes.begin(), bytes.end());
    }
}

void TransformerModel::upload_inputs(std::span<const int32_t> tokens, uint32_t kv_length) {
    const ModelConfig& c = config_;
    const auto T = static_cast<uint32_t>(tokens.size());
    if (T == 0 || T > options_.max_tokens)
        throw std::invalid_argument(
            fmt::format("{} tokens: the model was laid out for 1..{}", T, options_.max_tokens));
    std::vector<int32_t> pos(T);
    for (uint32_t t = 0; t < T; ++t) {
        if (tokens[t] < 0 || uint32_t(tokens[t]) >= c.n_vocab)
            throw std::out_of_range(
                fmt::format("token {} outside the vocabulary of {}", tokens[t], c.n_vocab));
        pos[t] = static_cast<int32_t>(kv_length + t);
    }
    memory_->upload(tokens_.allocation,
                    {reinterpret_cast<const uint8_t*>(tokens.data()), tokens.size() * 4});
    memory_->upload(positions_.allocation,
                    {reinterpret_cast<const uint8_t*>(pos.data()), pos.size() * 4});
    if (embedding_on_host_) {
        if (host_token_embd_.empty())
            throw std::logic_error("upload_inputs: the host embedding needs upload_weights first");
        const DType dt = slot("token_embd.weight").spec.dtype;
        const uint64_t row_bytes = dtype_bytes_for(dt, c.n_embd);
        std::vector<float> rows;
        for (const int32_t token : tokens) {
            const auto row = ggml::dequantize(
                dt, std::span(host_token_embd_).subspan(row_bytes * uint64_t(token), row_bytes),
                c.n_embd);
            rows.insert(rows.end(), row.begin(), row.end());
        }
        memory_->upload(inp_embd_.allocation,
                        {reinterpret_cast<const uint8_t*>(rows.data()), rows.size() * 4});
    }
    if (c.is_moe()) {
        // Tables in the [n_embd, T, k] layout of the weighted expert outputs (record_moe).
        const uint32_t k = c.n_expert_used, n = c.n_embd;
        std::vector<int32_t> scale_index(size_t(n) * T * k), perm_index(size_t(n) * T * k);
        for (uint32_t s = 0; s < k; ++s)
            for (uint32_t t = 0; t < T; ++t)
                for (uint32_t e = 0; e < n; ++e) {
                    const size_t i = e + size_t(n) * (t + size_t(T) * s);
                    scale_index[i] = static_cast<int32_t>(s + k * t);
                    perm_index[i] = static_cast<int32_t>(e + size_t(n) * (s + size_t(k) * t));
                }
        const auto& si = regions_.at("moe_scale_index");
        const auto& pi = regions_.at("moe_perm_index");
        memory_->upload(
            si.allocation,
            {reinterpret_cast<const uint8_t*>(scale_index.data()), scale_index.size() * 4},
            si.offset);
        memory_->upload(
            pi.allocation,
            {reinterpret_cast<const uint8_t*>(perm_index.data()), perm_index.size() * 4},
            pi.offset);
    }
}

void TransformerModel::matmul(GraphSession& s, const TensorView& w, const TensorView& x,
                              const TensorView& out, std::string label,
                              const char* split_region) const {
    const bool quantized = dtype_is_quantized(w.dtype);
    const int64_t n = out.shape[0], cols = out.elements() / std::max<int64_t>(n, 1);
    const uint32_t splits =
        split_region ? matmul_k_splits(w.dtype, uint32_t(n), uint32_t(x.shape[0]), uint32_t(cols))
                     : 1;
    if (splits == 1) {
        if (quantized)
            ops::quantized_matmul_ggml(s, x, w, out, std::move(label));
        else
            ops::matmul(s, w, x, out, std::move(label));
        return;
    }
    const std::string region = split_region;
    const TensorView parts = act(region, DType::f32, {n, cols * splits});
    if (quantized)
        ops::quantized_matmul_ggml_split_k(s, x, w, parts, splits, label);
    else
        ops::matmul_split_k(s, w, x, parts, splits, label);
    TensorView sum = act(region, DType::f32, {n, cols});
    for (uint32_t z = 1; z < splits; ++z) {
        const TensorView to =
            z + 1 == splits ? out : act(fmt::format("{}.sum{}", region, z), DType::f32, {n, cols});
        ops::add(s, sum, act(region, DType::f32, {n, cols}, 4ull * n * cols * z), to,
                 fmt::format("{}.sum{}", label, z));
        sum = to;
    }
}

bool mat_vecs_read_q8_x(std::initializer_list<DType> weights, int64_t k) {
    return k > 0 && k % 32 == 0 && std::all_of(weights.begin(), weights.end(), [](DType t) {
               return t == DType::q4_0 || t == DType::q8_0;
           });
}

bool ffn_down_reads_q8_x(const ModelConfig& c, DType down, int64_t min_embd) {
    return !c.is_moe() && int64_t(c.n_embd) >= min_embd && mat_vecs_read_q8_x({down}, c.n_ff);
}

bool TransformerModel::quantises_activations() const {
    return options_.q8_activations && memory_->device().facts().integer_dot_product;
}

TensorView TransformerModel::x_for(GraphSession& s, std::initializer_list<std::string_view> weights,
                                   const TensorView& x, uint32_t n_tokens,
                                   const std::string& q8_region, std::string label) const {
    if (n_tokens != 1 || !quantises_activations() || weights.size() == 0) return x;
    for (std::string_view w : weights)
        if (!mat_vecs_read_q8_x({slot(w).spec.dtype}, x.shape[0])) return x;
    const TensorView q = act(q8_region, DType::q8x, {x.shape[0], x.elements() / x.shape[0]});
    ops::quantize_q8(s, x, q, std::move(label));
    return q;
}

void TransformerModel::norm(GraphSession& s, const TensorView& x, const TensorView& w,
                            const TensorView& tmp, const TensorView& out, std::string label) const {
    // Unfused, as ggml records it: the fusion pass turns this into rms_norm_mul.
    ops::rms_norm_no_scale_f32(s, x, tmp, config_.rms_eps, label);
    ops::mul(s, tmp, w, out, label + ".mul");
}

void TransformerModel::record_step(GraphSession& s, uint32_t T, uint32_t L,
                                   const std::function<void(uint32_t)>& on_layer) const {
    const ModelConfig& c = config_;
    if (T == 0 || T > options_.max_tokens)
        throw std::invalid_argument(
            fmt::format("{}: a step of {} tokens; the model was laid out for 1..{}", c.name, T,
                        options_.max_tokens));
    if (uint64_t(L) + T > options_.kv_capacity)
        throw std::invalid_argument(
            fmt::format("{}: KV length {} + {} tokens exceeds the cache capacity {}", c.name, L, T,
                        options_.kv_capacity));
    const int64_t embd = c.n_embd;
    int r = 0;
    std::optional<TensorView> input;  // the first layer's input when not a residual row
    if (embedding_on_host_) {
        input = memory_->view(inp_embd_.allocation, DType::f32, {embd, T});
    } else {
        const TensorView ids = memory_->view(tokens_.allocation, DType::i32, {int64_t(T)});
        ops::get_rows(s, weight("token_embd.weight"), ids, act("residual0", DType::f32, {embd, T}),
                      "token_embd");
    }
    if (c.scale_embeddings) {
        ops::scale(s, input ? *input : act("residual0", DType::f32, {embd, T}),
                   act("residual1", DType::f32, {embd, T}), std::sqrt(static_cast<float>(c.n_embd)),
                   "embd_scale");
        r = 1;
        input.reset();
    }
    for (uint32_t il = 0; il < c.n_layer; ++il) {
        record_layer(s, il, T, L, r, il == 0 && input ? &*input : nullptr);
        if (on_layer) on_layer(il + 1);
    }
    // Only the last token's logits are computed, as an engine does.
    const uint64_t last = 4ull * c.n_embd * (T - 1);
    const std::string res = r == 0 ? "residual0" : "residual1";
    norm(s, act(res, DType::f32, {embd, 1}, last), weight("output_norm.weight"),
         act("norm_raw", DType::f32, {embd, 1}), act("norm", DType::f32, {embd, 1}), "output_norm");
    const std::string out_name = c.tied_embeddings ? "token_embd.weight" : "output.weight";
    const TensorView out = c.final_logit_softcap > 0
                               ? act("logits_raw", DType::f32, {int64_t(c.n_vocab), 1})
                               : memory_->view(logits_alloc_, DType::f32, {int64_t(c.n_vocab), 1});
    // The lm_head in row chunks when its table is larger than one binding may be (llama's
    // 128k-token vocabulary on lavapipe's 128 MiB maxStorageBufferRange); chunks of a
    // multiple of the offset alignment in rows keep every view offset aligned.
    const WeightSpec& ow = slot(out_name).spec;
    const int64_t vocab = c.n_vocab;
    int64_t chunk = vocab;
    if (!fits_one_binding(ow.bytes())) {
        const uint64_t row_bytes = dtype_bytes_for(ow.dtype, uint64_t(ow.shape[0]));
        const auto align =
            int64_t(std::max<uint64_t>(memory_->device().facts().storage_offset_alignment, 1));
        chunk = int64_t(binding_limit() / row_bytes) / align * align;
        if (chunk == 0)
            throw std::invalid_argument(
                fmt::format("{}: one row of {} exceeds the device's "
                            "maxStorageBufferRange",
                            c.name, out_name));
    }
    // A decode step's lm_head reads its x as q8x too (the largest mat-vec of a small model).
    const TensorView head_x =
        x_for(s, {out_name}, act("norm", DType::f32, {embd, 1}), T, "norm_q8", "output_norm.q8");
    for (int64_t first = 0, part = 0; first < vocab; first += chunk, ++part) {
        const int64_t rows = std::min(chunk, vocab - first);
        const TensorView out_rows =
            memory_->view(out.allocation, DType::f32, {rows, 1}, out.offset + uint64_t(first) * 4);
        matmul(s, chunk == vocab ? weight(out_name) : weight_rows(out_name, first, rows), head_x,
               out_rows, chunk == vocab ? "output" : fmt::format("output.{}", part));
    }
    if (c.final_logit_softcap > 0)
        ops::softcap(s, out, logits(), c.final_logit_softcap, "output_softcap");
}

void TransformerModel::record_layer(GraphSession& s, uint32_t il, uint32_t T, uint32_t L, int& r,
                                    const TensorView* input) const {
    const ModelConfig& c = config_;
    const std::string b = fmt::format("blk.{}.", il);
    const int64_t embd = c.n_embd, qd = c.q_dim(), kvd = c.kv_dim(), hd = c.head_dim;
    const int64_t nt = T;
    auto W = [&](const std::string& name) { return weight(b + name); };
    auto residual = [&](int i) {
        return act(i == 0 ? "residual0" : "residual1", DType::f32, {embd, nt});
    };
    auto f32 = [&](const std::string& region, std::vector<int64_t> shape) {
        return act(region, DType::f32, std::move(shape));
    };

    auto reshape = [&](TensorView t, std::vector<int64_t> shape) {
        return memory_->view(t.allocation, t.dtype, shape, t.offset);
    };

    // --- attention
    const TensorView x = input ? *input : residual(r);
    const TensorView h = f32("norm", {embd, nt});
    norm(s, x, W("attn_norm.weight"), f32("norm_raw", {embd, nt}), h, b + "attn_norm");
    TensorView q = f32("q", {qd, nt}), k = f32("k", {kvd, nt}), v = f32("v", {kvd, nt});
    // A decode step reads the projections' x as q8x (integer dot products).
    const TensorView hx = x_for(s, {b + "attn_q.weight", b + "attn_k.weight", b + "attn_v.weight"},
                                h, T, "norm_q8", b + "attn_norm.q8");
    // The q projection is not split: the sum of its partials would be one more level before its
    // rope, with which it cannot fuse (1b prefill, H100: no gain, 2026-11-24).
    matmul(s, W("attn_q.weight"), hx, q, b + "attn_q");
    matmul(s, W("attn_k.weight"), hx, k, b + "attn_k");
    matmul(s, W("attn_v.weight"), hx, v, b + "attn_v");
    if (c.qkv_bias) {
        const TensorView qb = f32("q_bias", {qd, nt}), kb = f32("k_bias", {kvd, nt}),
                         vb = f32("v_bias", {kvd, nt});
        ops::add(s, q, W("attn_q.bias"), qb, b + "attn_q.bias");
        ops::add(s, k, W("attn_k.bias"), kb, b + "attn_k.bias");
        ops::add(s, v, W("attn_v.bias"), vb, b + "attn_v.bias");
        q = qb, k = kb, v = vb;
    }
    if (c.qk_norm) {
        // Per head: rows of head_dim.
        const TensorView qn = f32("q_norm", {hd, int64_t(c.n_head) * nt});
        const TensorView kn = f32("k_norm", {hd, int64_t(c.n_head_kv) * nt});
        norm(s, reshape(q, {hd, int64_t(c.n_head) * nt}), W("attn_q_norm.weight"),
             f32("q_norm_raw", {hd, int64_t(c.n_head) * nt}), qn, b + "attn_q_norm");
        norm(s, reshape(k, {hd, int64_t(c.n_head_kv) * nt}), W("attn_k_norm.weight"),
             f32("k_norm_raw", {hd, int64_t(c.n_head_kv) * nt}), kn, b + "attn_k_norm");
        q = qn, k = kn;
    }
    RopeParams rp;
    rp.head_dim = c.head_dim;
    rp.seq_len = T;
    rp.freq_base = c.layer_rope_base(il);
    const TensorView pos = memory_->view(positions_.allocation, DType::i32, {nt});
    const TensorView q_rope = f32("q_rope", {hd, c.n_head, nt});
    const TensorView k_rope = f32("k_rope", {hd, c.n_head_kv, nt});
    for (auto [in, out, heads, what] : {std::tuple{q, q_rope, c.n_head, "rope_q"},
                                        std::tuple{k, k_rope, c.n_head_kv, "rope_k"}}) {
        rp.n_heads = heads;
        const TensorView in3 = reshape(in, {hd, heads, nt});
        std::optional<TensorView> factors;
        if (c.rope_freq_factors) factors = weight("rope_freqs.weight");
        if (c.rope_style == RopeStyle::neox)
            ops::rope_neox_f32(s, in3, pos, out, rp, factors, b + what);
        else
            ops::rope(s, in3, pos, out, rp, factors, b + what);
    }
    // Append this step's keys and values to the cache at positions L .. L + T - 1.
    const uint64_t token_bytes = dtype_bytes_for(options_.kv_type, uint64_t(kvd));
    const TensorView kc = k_cache(il), vc = v_cache(il);
    ops::copy(s, k_rope,
              memory_->view(kv_alloc_, options_.kv_type, {hd, c.n_head_kv, nt},
                            kc.offset + token_bytes * L),
              b + "k_cache");
    ops::copy(s, reshape(v, {hd, c.n_head_kv, nt}),
              memory_->view(kv_alloc_, options_.kv_type, {hd, c.n_head_kv, nt},
                            vc.offset + token_bytes * L),
              b + "v_cache");
    const TensorView attn = f32("attn", {hd, c.n_head, nt});
    record_attention(s, il, T, L, q_rope, attn);
    TensorView o = f32("attn_out", {embd, nt});
    matmul(s, W("attn_output.weight"), reshape(attn, {qd, nt}), o, b + "attn_output", "o_parts");
    if (c.post_norms) {
        const TensorView po = f32("post_attn", {embd, nt});
        norm(s, o, W("post_attention_norm.weight"), f32("post_attn_raw", {embd, nt}), po,
             b + "post_attention_norm");
        o = po;
    }
    ops::add(s, o, x, residual(1 - r), b + "attn_residual");
    r = 1 - r;

    // --- feed-forward
    const TensorView x2 = residual(r);
    const TensorView fn = f32("ffn_norm", {embd, nt});
    norm(s, x2, W("ffn_norm.weight"), f32("ffn_norm_raw", {embd, nt}), fn, b + "ffn_norm");
    TensorView fo = f32("ffn_out", {embd, nt});
    if (c.is_moe())
        record_moe(s, il, T, fn, fo);
    else
        record_ffn(s, il, T, fn, fo);
    if (c.post_norms) {
        const TensorView pf = f32("post_ffw", {embd, nt});
        norm(s, fo, W("post_ffw_norm.weight"), f32("post_ffw_raw", {embd, nt}), pf,
             b + "post_ffw_norm");
        fo = pf;
    }
    ops::add(s, fo, x2, residual(1 - r), b + "ffn_residual");
    r = 1 - r;
}

void TransformerModel::record_attention(GraphSession& s, uint32_t il, uint32_t T, uint32_t L,
                                        const TensorView& q, const TensorView& out) const {
    const ModelConfig& c = config_;
    const std::string label = fmt::format("blk.{}.attn", il);
    const int64_t hd = c.head_dim;
    const uint32_t kv_len = L + T;
    const uint32_t window = c.layer_uses_sliding_window(il) ? c.sliding_window : 0;
    const float scale = c.effective_attention_scale();
    auto cache = [&](const TensorView& whole, uint32_t len) {
        return memory_->view(kv_alloc_, options_.kv_type, {hd, c.n_head_kv, int64_t(len)},
                             whole.offset);
    };
    // Prefill: one sdpa over all queries (causal, window and soft-cap as the layer has them,
    // the cache's type); decode: flash_attn_vec below.
    if (T > 1) {
        SdpaParams p;
        p.head_dim = c.head_dim;
        p.n_heads = c.n_head;
        p.n_kv_heads = c.n_head_kv;
        p.seq_q = T;
        p.seq_kv = kv_len;
        p.scale = scale;
        p.causal = true;
        p.softcap = c.attn_logit_softcap;
        p.window = window;
        ops::sdpa(s, q, cache(k_cache(il), kv_len), cache(v_cache(il), kv_len), out, p, label);
        return;
    }
    FlashAttnVecParams p;
    p.head_dim = c.head_dim;
    p.n_heads = c.n_head;
    p.n_kv_heads = c.n_head_kv;
    p.kv_len = kv_len;
    p.scale = scale;
    p.softcap = c.attn_logit_softcap;
    p.window = window;
    const TensorView qt = memory_->view(q.allocation, DType::f32, {hd, c.n_head}, q.offset);
    const TensorView ot = memory_->view(out.allocation, DType::f32, {hd, c.n_head}, out.offset);
    const TensorView tmp = act("fa_tmp", DType::f32, {int64_t(flash_attn_vec_tmp_elements(p))});
    const TensorView counters =
        act("fa_counters", DType::u32, {int64_t(flash_attn_vec_counter_elements(p))});
    ops::flash_attn_vec(s, qt, cache(k_cache(il), kv_len), cache(v_cache(il), kv_len), ot, tmp,
                        counters, p, label);
}

void TransformerModel::record_ffn(GraphSession& s, uint32_t il, uint32_t T, const TensorView& in,
                                  const TensorView& out) const {
    const ModelConfig& c = config_;
    const std::string b = fmt::format("blk.{}.", il);
    const int64_t ff = c.n_ff, nt = T;
    const TensorView gate = act("gate", DType::f32, {ff, nt}), up = act("up", DType::f32, {ff, nt});
    const TensorView a_raw = act("act_raw", DType::f32, {ff, nt}),
                     a = act("act", DType::f32, {ff, nt});
    const TensorView x = x_for(s, {b + "ffn_gate.weight", b + "ffn_up.weight"}, in, T,
                               "ffn_norm_q8", b + "ffn_norm.q8");
    matmul(s, weight(b + "ffn_gate.weight"), x, gate, b + "ffn_gate");
    matmul(s, weight(b + "ffn_up.weight"), x, up, b + "ffn_up");
    // Unfused activation·mul, as ggml records it (the fusion pass makes silu_mul/gelu_mul).
    if (c.activation == Activation::gelu)
        ops::gelu(s, gate, a_raw, b + "ffn_act");
    else
        ops::silu(s, gate, a_raw, b + "ffn_act");
    ops::mul(s, a_raw, up, a, b + "ffn_mul");
    // The down projection reads 8-bit x too; the fusion pass folds this quantize into the
    // gated mat-vec (its _yq8 twin), so it costs no level of its own.
    const bool q8_down = ffn_down_reads_q8_x(c, slot(b + "ffn_down.weight").spec.dtype,
                                             options_.q8_ffn_output_min_embd);
    const TensorView ax =
        q8_down ? x_for(s, {b + "ffn_down.weight"}, a, T, "act_q8", b + "ffn_mul.q8") : a;
    matmul(s, weight(b + "ffn_down.weight"), ax, out, b + "ffn_down", "down_parts");
}

void TransformerModel::record_moe(GraphSession& s, uint32_t il, uint32_t T, const TensorView& in,
                                  const TensorView& out) const {
    const ModelConfig& c = config_;
    const std::string b = fmt::format("blk.{}.", il);
    const int64_t embd = c.n_embd, ff = c.n_ff_expert, k = c.n_expert_used, nt = T;
    if (k < 2 || k > 8)
        throw std::invalid_argument(
            fmt::format("{}: {} experts per token; the weighted sum supports 2..8", c.name, k));
    const TensorView logits = act("router", DType::f32, {int64_t(c.n_expert), nt});
    matmul(s, weight(b + "ffn_gate_inp.weight"), in, logits, b + "ffn_gate_inp");
    const TensorView ids = act("expert_ids", DType::i32, {k, nt});
    const TensorView w = act("expert_weights", DType::f32, {k, nt});
    ops::topk(s, logits, ids, w, c.n_expert_used, true, b + "ffn_moe_topk");
    MatmulIdParams mp;
    mp.n_experts = c.n_expert;
    mp.n_ids = c.n_expert_used;
    mp.n_tokens = T;
    const TensorView x1 = memory_->view(in.allocation, DType::f32, {embd, 1, nt}, in.offset);
    const TensorView gate = act("gate", DType::f32, {ff, k, nt}),
                     up = act("up", DType::f32, {ff, k, nt});
    ops::quantized_matmul_id_ggml(s, x1, weight(b + "ffn_gate_exps.weight"), ids, gate, mp,
                                  b + "ffn_gate_exps");
    ops::quantized_matmul_id_ggml(s, x1, weight(b + "ffn_up_exps.weight"), ids, up, mp,
                                  b + "ffn_up_exps");
    const TensorView a_raw = act("act_raw", DType::f32, {ff, k, nt}),
                     a = act("act", DType::f32, {ff, k, nt});
    ops::silu(s, gate, a_raw, b + "ffn_moe_act");
    ops::mul(s, a_raw, up, a, b + "ffn_moe_mul");
    const TensorView down = act("down", DType::f32, {embd, k, nt});
    ops::quantized_matmul_id_ggml(s, a, weight(b + "ffn_down_exps.weight"), ids, down, mp,
                                  b + "ffn_down_exps");

    // Weighted sum over the k experts of each token. The kernel library has no broadcast
    // along an inner dimension, so gathers do it: each expert weight is repeated over its
    // n_embd outputs (get_rows of 1-element rows from an index table), the outputs are
    // permuted to [n_embd, T, k] when T > 1 so each expert slot is one contiguous block,
    // then mul and one multi_add over the k blocks.
    const int64_t n = embd * k * nt;
    auto gather = [&](const TensorView& table, const std::string& index_region,
                      const std::string& out_region, const std::string& label) {
        // get_rows handles at most 65535 ids per dispatch; chunks stay 256-byte aligned.
        constexpr int64_t kChunk = 65535 / 64 * 64;
        const TensorView t1 =
            memory_->view(table.allocation, DType::f32, {1, table.elements()}, table.offset);
        for (int64_t first = 0, part = 0; first < n; first += kChunk, ++part) {
            const int64_t len = std::min(kChunk, n - first);
            ops::get_rows(s, t1, act(index_region, DType::i32, {len}, uint64_t(first) * 4),
                          act(out_region, DType::f32, {1, len}, uint64_t(first) * 4),
                          n > kChunk ? fmt::format("{}.{}", label, part) : label);
        }
    };
    gather(w, "moe_scale_index", "expert_scale", b + "ffn_moe_weights");
    TensorView src = down;
    if (T > 1) {
        gather(down, "moe_perm_index", "down_perm", b + "ffn_moe_permute");
        src = act("down_perm", DType::f32, {embd, nt, k});
    }
    const TensorView weighted = act("down_weighted", DType::f32, {embd, nt, k});
    ops::mul(s, memory_->view(src.allocation, DType::f32, {embd, nt, k}, src.offset),
             act("expert_scale", DType::f32, {embd, nt, k}), weighted, b + "ffn_moe_weighted");
    std::vector<TensorView> slots;
    for (int64_t slot = 0; slot < k; ++slot)
        slots.push_back(
            act("down_weighted", DType::f32, {embd, nt}, uint64_t(slot) * 4 * embd * nt));
    ops::multi_add(s, slots, out, b + "ffn_moe_sum");
}

ComputeGraph capture_transformer(DeviceMemory& memory, const CaptureRequest& request,
                                 const ProgressCallback& progress) {
    const ModelConfig& c = request.config;
    const uint32_t T = request.phase == Phase::decode ? 1 : request.tokens;
    if (T == 0) throw std::invalid_argument("capture: prefill needs at least one token");
    TransformerOptions options;
    options.max_tokens = T;
    options.kv_capacity = request.kv_length + T;
    options.kv_type = request.kv_type;
    options.q8_activations = request.q8_activations;
    TransformerModel model(memory, c, options);
    GraphExecutor executor(memory.device(), memory);
    GraphSession session = executor.begin_recorded();
    model.record_step(session, T, request.kv_length, [&](uint32_t done) {
        if (progress) progress(done, c.n_layer, "layers recorded");
    });
    ComputeGraph graph = session.finish_recording();
    graph.metadata["model"] = c.name;
    graph.metadata["architecture"] = std::string(architecture_name(c.architecture));
    graph.metadata["phase"] = std::string(phase_name(request.phase));
    graph.metadata["tokens"] = std::to_string(T);
    graph.metadata["ctx"] = std::to_string(request.kv_length);
    graph.metadata["kv_capacity"] = std::to_string(options.kv_capacity);
    graph.metadata["weight_type"] = std::string(dtype_name(c.weight_type));
    graph.metadata["kv_type"] = std::string(dtype_name(request.kv_type));
    graph.metadata["weight_bytes"] = std::to_string(model_weight_bytes(c));
    // Whether the step quantised any mat-vec's x (decode, Q4_0 / Q8_0 weights, integer dots).
    const bool x_q8 = std::any_of(graph.nodes.begin(), graph.nodes.end(),
                                  [](const Node& n) { return n.op == OpKind::quantize_q8; });
    graph.metadata["x_q8"] = x_q8 ? "yes" : "no";
    graph.metadata["layers"] = std::to_string(c.n_layer);
    // What valid inputs look like, for runners that fill input allocations themselves.
    graph.metadata["input.inp_tokens"] = fmt::format("i32 token ids in [0, {})", c.n_vocab);
    graph.metadata["input.inp_pos"] =
        fmt::format("i32 positions {} .. {}", request.kv_length, request.kv_length + T - 1);
    if (c.is_moe())
        graph.metadata["input.moe_index"] =
            "i32 gather tables of the expert weighted sum (TransformerModel::upload_inputs)";
    return graph;
}

}  // namespace graphlens
