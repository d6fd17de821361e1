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

// The regions of one scratch allocation, packed one after another in the order they are added;
// a phase restarted at offset 0 reuses the previous phase's bytes, and the allocation is as
// large as the longest phase.
class ScratchRegions {
  public:
    struct Region {
        uint64_t offset = 0, bytes = 0;
    };
    explicit ScratchRegions(uint32_t max_tokens) : max_tokens_(max_tokens) {}

    void add(const std::string& name, uint64_t bytes) {
        regions_.emplace_back(name, Region{end_, align_up(bytes)});
        end_ += align_up(bytes);
        size_ = std::max(size_, end_);
    }
    // Partials and running sums of a split-k product of n outputs a token over rows of k
    // (TransformerModel::matmul's split_region), where a step of up to max_tokens tokens might
    // split it: the fewest mat-mat columns (9) make the smallest tile grid, and f32's
    // 32-element unit divides every format's.
    void add_split(const std::string& name, uint64_t n, uint64_t k) {
        const uint64_t T = max_tokens_;
        if (T <= 8 || matmul_k_splits(DType::f32, uint32_t(n), uint32_t(k), 9) == 1) return;
        add(name, 4ull * T * n * 4);  // at most 4 ranges
        add(name + ".sum1", 4ull * T * n);
        add(name + ".sum2", 4ull * T * n);
    }
    void restart() { end_ = 0; }
    uint64_t size() const { return size_; }
    uint32_t max_tokens() const { return max_tokens_; }
    const std::vector<std::pair<std::string, Region>>& regions() const { return regions_; }

  private:
    uint32_t max_tokens_;
    uint64_t end_ = 0, size_ = 0;
    std::vector<std::pair<std::string, Region>> regions_;
};

// The attention phase's regions (record_attention_block), and the logits' before softcapping.
void add_attention_regions(ScratchRegions& scratch, const ModelConfig& c) {
    const uint64_t f = 4ull * scratch.max_tokens();  // f32 bytes per value per token
    scratch.add("norm_raw", f * c.n_embd);
    scratch.add("norm", f * c.n_embd);
    if (c.n_embd % 32 == 0)  // q8x x: one-token steps only (record_qkv)
        scratch.add("norm_q8", dtype_bytes_for(DType::q8x, c.n_embd));
    scratch.add("q", f * c.q_dim());
    scratch.add("k", f * c.kv_dim());
    scratch.add("v", f * c.kv_dim());
    if (c.qkv_bias) {
        scratch.add("q_bias", f * c.q_dim());
        scratch.add("k_bias", f * c.kv_dim());
        scratch.add("v_bias", f * c.kv_dim());
    }
    if (c.qk_norm) {
        scratch.add("q_norm_raw", f * c.q_dim());
        scratch.add("q_norm", f * c.q_dim());
        scratch.add("k_norm_raw", f * c.kv_dim());
        scratch.add("k_norm", f * c.kv_dim());
    }
    scratch.add("q_rope", f * c.q_dim());
    scratch.add("k_rope", f * c.kv_dim());
    scratch.add("attn", f * c.q_dim());
    scratch.add("attn_out", f * c.n_embd);
    scratch.add_split("o_parts", c.n_embd, c.q_dim());
    if (c.post_norms) {
        scratch.add("post_attn_raw", f * c.n_embd);
        scratch.add("post_attn", f * c.n_embd);
    }
    if (c.final_logit_softcap > 0) scratch.add("logits_raw", 4ull * c.n_vocab);
}

// The feed-forward phase's regions (record_ffn_block: record_ffn or record_moe).
void add_ffn_regions(ScratchRegions& scratch, const ModelConfig& c) {
    const uint64_t f = 4ull * scratch.max_tokens();  // f32 bytes per value per token
    scratch.add("ffn_norm_raw", f * c.n_embd);
    scratch.add("ffn_norm", f * c.n_embd);
    if (c.n_embd % 32 == 0) scratch.add("ffn_norm_q8", dtype_bytes_for(DType::q8x, c.n_embd));
    if (c.is_moe()) {
        const uint64_t k = c.n_expert_used;
        scratch.add("router", f * c.n_expert);
        scratch.add("expert_ids", f * k);
        scratch.add("expert_weights", f * k);
        scratch.add("gate", f * k * c.n_ff_expert);
        scratch.add("up", f * k * c.n_ff_expert);
        scratch.add("act_raw", f * k * c.n_ff_expert);
        scratch.add("act", f * k * c.n_ff_expert);
        scratch.add("down", f * k * c.n_embd);
        scratch.add("expert_scale", f * k * c.n_embd);
        scratch.add("down_perm", f * k * c.n_embd);
        scratch.add("down_weighted", f * k * c.n_embd);
        scratch.add("ffn_out", f * c.n_embd);
    } else {
        scratch.add("gate", f * c.n_ff);
        scratch.add("up", f * c.n_ff);
        scratch.add("act_raw", f * c.n_ff);
        scratch.add("act", f * c.n_ff);
        if (c.n_ff % 32 == 0) scratch.add("act_q8", dtype_bytes_for(DType::q8x, c.n_ff));
        scratch.add("ffn_out", f * c.n_embd);
        scratch.add_split("down_parts", c.n_embd, c.n_ff);
    }
    if (c.post_norms) {
        scratch.add("post_ffw_raw", f * c.n_embd);
        scratch.add("post_ffw", f * c.n_embd);
    }
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
    ScratchRegions scratch(T);
    add_attention_regions(scratch, c);
    scratch.restart();  // the FFN phase reuses the attention phase's bytes
    add_ffn_regions(scratch, c);
    scratch_alloc_ = memory.allocate("act.scratch", scratch.size(), AllocationUsage::scratch);
    for (const auto& [name, r] : scratch.regions())
        regions_[name] = {scratch_alloc_, r.offset, r.bytes};
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
    const std::string b = fmt::format("blk.{}.", il);
    const TensorView x = input ? *input : residual_row(r, T);
    ops::add(s, record_attention_block(s, il, T, L, x), x, residual_row(1 - r, T),
             b + "attn_residual");
    r = 1 - r;
    const TensorView x2 = residual_row(r, T);
    ops::add(s, record_ffn_block(s, il, T, x2), x2, residual_row(1 - r, T), b + "ffn_residual");
    r = 1 - r;
}

TensorView TransformerModel::residual_row(int r, uint32_t T) const {
    return act(r == 0 ? "residual0" : "residual1", DType::f32, {int64_t(config_.n_embd), T});
}

TensorView TransformerModel::reshaped(const TensorView& t, std::vector<int64_t> shape) const {
    return memory_->view(t.allocation, t.dtype, std::move(shape), t.offset);
}

TensorView TransformerModel::record_norm(GraphSession& s, uint32_t il, uint32_t T,
                                         const TensorView& x, const std::string& region,
                                         const std::string& norm_name) const {
    const std::string b = fmt::format("blk.{}.", il);
    const std::vector<int64_t> shape{int64_t(config_.n_embd), int64_t(T)};
    const TensorView out = act(region, DType::f32, shape);
    norm(s, x, weight(b + norm_name + ".weight"), act(region + "_raw", DType::f32, shape), out,
         b + norm_name);
    return out;
}

TensorView TransformerModel::record_attention_block(GraphSession& s, uint32_t il, uint32_t T,
                                                    uint32_t L, const TensorView& x) const {
    const ModelConfig& c = config_;
    const std::string b = fmt::format("blk.{}.", il);
    const int64_t embd = c.n_embd, qd = c.q_dim(), hd = c.head_dim, nt = T;
    auto f32 = [&](const std::string& region, std::vector<int64_t> shape) {
        return act(region, DType::f32, std::move(shape));
    };
    const TensorView h = record_norm(s, il, T, x, "norm", "attn_norm");
    const QueryKeyValue qkv = record_qkv(s, il, T, h);
    const TensorView q_rope = f32("q_rope", {hd, c.n_head, nt});
    const TensorView k_rope = f32("k_rope", {hd, c.n_head_kv, nt});
    record_rope(s, il, T, qkv.q, q_rope, c.n_head, "rope_q");
    record_rope(s, il, T, qkv.k, k_rope, c.n_head_kv, "rope_k");
    record_kv_append(s, il, T, L, k_rope, qkv.v);
    const TensorView attn = f32("attn", {hd, c.n_head, nt});
    record_attention(s, il, T, L, q_rope, attn);
    TensorView o = f32("attn_out", {embd, nt});
    matmul(s, weight(b + "attn_output.weight"), reshaped(attn, {qd, nt}), o, b + "attn_output",
           "o_parts");
    if (c.post_norms) o = record_norm(s, il, T, o, "post_attn", "post_attention_norm");
    return o;
}

TransformerModel::QueryKeyValue TransformerModel::record_qkv(GraphSession& s, uint32_t il,
                                                             uint32_t T,
                                                             const TensorView& h) const {
    const ModelConfig& c = config_;
    const std::string b = fmt::format("blk.{}.", il);
    const int64_t qd = c.q_dim(), kvd = c.kv_dim(), hd = c.head_dim, nt = T;
    auto W = [&](const std::string& name) { return weight(b + name); };
    auto f32 = [&](const std::string& region, std::vector<int64_t> shape) {
        return act(region, DType::f32, std::move(shape));
    };
    QueryKeyValue qkv{f32("q", {qd, nt}), f32("k", {kvd, nt}), f32("v", {kvd, nt})};
    // A decode step reads the projections' x as q8x (integer dot products).
    const TensorView hx = x_for(s, {b + "attn_q.weight", b + "attn_k.weight", b + "attn_v.weight"},
                                h, T, "norm_q8", b + "attn_norm.q8");
    // The q projection is not split: the sum of its partials would be one more level before its
    // rope, with which it cannot fuse.
    matmul(s, W("attn_q.weight"), hx, qkv.q, b + "attn_q");
    matmul(s, W("attn_k.weight"), hx, qkv.k, b + "attn_k");
    matmul(s, W("attn_v.weight"), hx, qkv.v, b + "attn_v");
    if (c.qkv_bias) {
        const TensorView qb = f32("q_bias", {qd, nt}), kb = f32("k_bias", {kvd, nt}),
                         vb = f32("v_bias", {kvd, nt});
        ops::add(s, qkv.q, W("attn_q.bias"), qb, b + "attn_q.bias");
        ops::add(s, qkv.k, W("attn_k.bias"), kb, b + "attn_k.bias");
        ops::add(s, qkv.v, W("attn_v.bias"), vb, b + "attn_v.bias");
        qkv.q = qb, qkv.k = kb, qkv.v = vb;
    }
    if (c.qk_norm) {
        // Per head: rows of head_dim.
        const TensorView qn = f32("q_norm", {hd, int64_t(c.n_head) * nt});
        const TensorView kn = f32("k_norm", {hd, int64_t(c.n_head_kv) * nt});
        norm(s, reshaped(qkv.q, {hd, int64_t(c.n_head) * nt}), W("attn_q_norm.weight"),
             f32("q_norm_raw", {hd, int64_t(c.n_head) * nt}), qn, b + "attn_q_norm");
        norm(s, reshaped(qkv.k, {hd, int64_t(c.n_head_kv) * nt}), W("attn_k_norm.weight"),
             f32("k_norm_raw", {hd, int64_t(c.n_head_kv) * nt}), kn, b + "attn_k_norm");
        qkv.q = qn, qkv.k = kn;
    }
    return qkv;
}

void TransformerModel::record_rope(GraphSession& s, uint32_t il, uint32_t T, const TensorView& in,
                                   const TensorView& out, uint32_t heads, const char* what) const {
    const ModelConfig& c = config_;
    RopeParams rp;
    rp.head_dim = c.head_dim;
    rp.seq_len = T;
    rp.freq_base = c.layer_rope_base(il);
    rp.n_heads = heads;
    const TensorView pos = memory_->view(positions_.allocation, DType::i32, {int64_t(T)});
    const TensorView in3 = reshaped(in, {int64_t(c.head_dim), heads, T});
    std::optional<TensorView> factors;
    if (c.rope_freq_factors) factors = weight("rope_freqs.weight");
    const std::string label = fmt::format("blk.{}.{}", il, what);
    if (c.rope_style == RopeStyle::neox)
        ops::rope_neox_f32(s, in3, pos, out, rp, factors, label);
    else
        ops::rope(s, in3, pos, out, rp, factors, label);
}

void TransformerModel::record_kv_append(GraphSession& s, uint32_t il, uint32_t T, uint32_t L,
                                        const TensorView& k, const TensorView& v) const {
    const ModelConfig& c = config_;
    const std::string b = fmt::format("blk.{}.", il);
    const int64_t hd = c.head_dim, nt = T;
    // This step's keys and values go to the cache at positions L .. L + T - 1.
    const uint64_t token_bytes = dtype_bytes_for(options_.kv_type, uint64_t(c.kv_dim()));
    const TensorView kc = k_cache(il), vc = v_cache(il);
    ops::copy(s, k,
              memory_->view(kv_alloc_, options_.kv_type, {hd, c.n_head_kv, nt},
                            kc.offset + token_bytes * L),
              b + "k_cache");
    ops::copy(s, reshaped(v, {hd, c.n_head_kv, nt}),
              memory_->view(kv_alloc_, options_.kv_type, {hd, c.n_head_kv, nt},
                            vc.offset + token_bytes * L),
              b + "v_cache");
}

TensorView TransformerModel::record_ffn_block(GraphSession& s, uint32_t il, uint32_t T,
                                              const TensorView& x) const {
    const ModelConfig& c = config_;
    const std::string b = fmt::format("blk.{}.", il);
    const int64_t embd = c.n_embd, nt = T;
    auto f32 = [&](const std::string& region, std::vector<int64_t> shape) {
        return act(region, DType::f32, std::move(shape));
    };
    const TensorView fn = record_norm(s, il, T, x, "ffn_norm", "ffn_norm");
    TensorView fo = f32("ffn_out", {embd, nt});
    if (c.is_moe())
        record_moe(s, il, T, fn, fo);
    else
        record_ffn(s, il, T, fn, fo);
    if (c.post_norms) fo = record_norm(s, il, T, fo, "post_ffw", "post_ffw_norm");
    return fo;
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
