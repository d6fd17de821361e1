#include "graphlens/model/model_weights.h"
#include "graphlens/model/placeholder_vocabulary.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "graphlens/model/gguf_file.h"
#include "graphlens/model/gguf_writer.h"
#include "graphlens/ops/ggml_blocks.h"

namespace graphlens {
namespace {

/// splitmix64: fast, good enough for test weights, and identical on every platform
/// (std::uniform_real_distribution is not).
class Random {
  public:
    explicit Random(uint64_t seed) : state_(seed) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform in [-1, 1).
    float symmetric() { return static_cast<float>(next() >> 40) / float(1 << 23) - 1.0f; }

  private:
    uint64_t state_;
};

uint64_t name_hash(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
    for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
    return h;
}

bool is_norm(const WeightSpec& w) {
    return w.name.find("norm.weight") != std::string::npos;
}
bool is_bias(const WeightSpec& w) {
    return w.name.ends_with(".bias");
}

std::vector<uint8_t> random_tensor(const WeightSpec& w, uint64_t seed) {
    Random rng(seed ^ name_hash(w.name));
    const uint64_t n = w.elements();
    // Norm weights near one; biases small; matrices with unit-order outputs.
    const float scale = is_bias(w) ? 0.1f : 1.0f / std::sqrt(static_cast<float>(w.shape[0]));
    if (w.dtype == DType::q4_0 || w.dtype == DType::q8_0) {
        const uint32_t block_bytes = dtype_block_bytes(w.dtype);
        std::vector<uint8_t> out(dtype_bytes_for(w.dtype, n));
        const float qmax = w.dtype == DType::q4_0 ? 8.0f : 127.0f;
        for (size_t b = 0; b < out.size(); b += block_bytes) {
            const float d = scale / qmax * (1.0f + 0.5f * rng.symmetric());
            const uint16_t h = ggml::float_to_half(d);
            std::memcpy(&out[b], &h, 2);
            for (uint32_t i = 2; i < block_bytes; ++i) {
                uint8_t q = static_cast<uint8_t>(rng.next());
                if (w.dtype == DType::q8_0 && q == 0x80) q = 0x81;  // keep int8 in [-127, 127]
                out[b + i] = q;
            }
        }
        return out;
    }
    std::vector<float> values(n);
    for (auto& v : values) v = is_norm(w) ? 1.0f + 0.1f * rng.symmetric() : scale * rng.symmetric();
    return ggml::quantize(w.dtype, values);
}

}  // namespace

ModelWeights ModelWeights::random(const ModelConfig& config, uint64_t seed) {
    ModelWeights m;
    m.config_ = config;
    m.specs_ = model_weights(config);
    for (size_t i = 0; i < m.specs_.size(); ++i) {
        if (m.specs_[i].name == "rope_freqs.weight") {
            // Not random: the factors the configuration's rope scaling implies.
            const auto f = llama3_rope_freq_factors(config);
            m.owned_.push_back(ggml::quantize(DType::f32, f));
        } else {
            m.owned_.push_back(random_tensor(m.specs_[i], seed));
        }
        m.data_.emplace_back(m.owned_.back());
        m.index_.emplace(m.specs_[i].name, i);
    }
    return m;
}

ModelWeights ModelWeights::from_gguf(const GgufFile& file, const ModelConfig& config) {
    if (!file.has_tensor_data())
        throw std::invalid_argument(file.source() + ": the file has no tensor data");
    ModelWeights m;
    m.config_ = config;
    m.specs_ = model_weights(config);
    for (size_t i = 0; i < m.specs_.size(); ++i) {
        WeightSpec& w = m.specs_[i];
        const GgufTensorInfo* t = file.find_tensor(w.name);
        if (!t)
            throw std::invalid_argument(
                fmt::format("{}: tensor '{}' is missing", file.source(), w.name));
        std::vector<uint64_t> want(w.shape.begin(), w.shape.end());
        if (t->dims != want)
            throw std::invalid_argument(fmt::format(
                "{}: tensor '{}' has shape [{}], the configuration needs [{}]", file.source(),
                w.name, fmt::join(t->dims, ", "), fmt::join(want, ", ")));
        const auto dtype = ggml_type_to_dtype(t->type);
        if (!dtype)
            throw std::invalid_argument(fmt::format(
                "{}: tensor '{}' has type {} which GraphLens cannot compute with", file.source(),
                w.name, ggml_type_name(static_cast<uint32_t>(t->type)).value_or("?")));
        w.dtype = *dtype;  // files mix types (e.g. q6_k output, f16 embeddings)
        m.data_.push_back(file.tensor_data(*t));
        m.index_.emplace(w.name, i);
    }
    return m;
}

size_t ModelWeights::index_of(std::string_view name) const {
    const auto it = index_.find(std::string(name));
    if (it == index_.end())
        throw std::out_of_range(fmt::format("model '{}' has no weight '{}'", config_.name, name));
    return it->second;
}

const WeightSpec& ModelWeights::spec(std::string_view name) const {
    return specs_[index_of(name)];
}

std::span<const uint8_t> ModelWeights::bytes(std::string_view name) const {
    return data_[index_of(name)];
}

std::vector<float> ModelWeights::values(std::string_view name) const {
    const size_t i = index_of(name);
    return ggml::dequantize(specs_[i].dtype, data_[i], specs_[i].elements());
}

void write_model_metadata(GgufWriter& w, const ModelConfig& c) {
    const std::string arch(architecture_name(c.architecture));
    const std::string p = arch + ".";
    w.set("general.architecture", GgufValue::string(arch));
    w.set("general.name", GgufValue::string(c.name));
    w.set(p + "vocab_size", GgufValue::u32(c.n_vocab));
    w.set(p + "context_length", GgufValue::u32(c.n_ctx_train));
    w.set(p + "embedding_length", GgufValue::u32(c.n_embd));
    w.set(p + "block_count", GgufValue::u32(c.n_layer));
    if (c.n_ff > 0) w.set(p + "feed_forward_length", GgufValue::u32(c.n_ff));
    w.set(p + "attention.head_count", GgufValue::u32(c.n_head));
    w.set(p + "attention.head_count_kv", GgufValue::u32(c.n_head_kv));
    w.set(p + "attention.key_length", GgufValue::u32(c.head_dim));
    w.set(p + "attention.value_length", GgufValue::u32(c.head_dim));
    w.set(p + "attention.layer_norm_rms_epsilon", GgufValue::f32(c.rms_eps));
    w.set(p + "rope.freq_base", GgufValue::f32(c.rope_freq_base));
    if (c.attn_logit_softcap > 0)
        w.set(p + "attn_logit_softcapping", GgufValue::f32(c.attn_logit_softcap));
    if (c.final_logit_softcap > 0)
        w.set(p + "final_logit_softcapping", GgufValue::f32(c.final_logit_softcap));
    if (c.sliding_window > 0)
        w.set(p + "attention.sliding_window", GgufValue::u32(c.sliding_window));
    // Facts llama.cpp mostly hard-codes per architecture; written so that tiny test models
    // may differ from the defaults and still round-trip.
    if (c.sliding_window_pattern > 0)
        w.set(p + "attention.sliding_window_pattern", GgufValue::u32(c.sliding_window_pattern));
    if (c.attention_scale > 0) w.set(p + "attention.scale", GgufValue::f32(c.attention_scale));
    if (c.rope_freq_base_swa > 0)
        w.set(p + "rope.freq_base_swa", GgufValue::f32(c.rope_freq_base_swa));
    // Llama 3's rope scaling is the rope_freqs tensor to llama.cpp, which knows no "llama3"
    // scaling type (it refuses the file) and would take a scaling factor for linear scaling:
    // the parameters go under GraphLens's own keys.
    if (c.rope_scaling_factor > 0) {
        w.set(std::string(kGraphLensRopeScalingFactor), GgufValue::f32(c.rope_scaling_factor));
        w.set(std::string(kGraphLensRopeOriginalContext), GgufValue::u32(c.rope_original_context));
    }
    if (c.is_moe()) {
        w.set(p + "expert_count", GgufValue::u32(c.n_expert));
        w.set(p + "expert_used_count", GgufValue::u32(c.n_expert_used));
        w.set(p + "expert_feed_forward_length", GgufValue::u32(c.n_ff_expert));
    }
}

void write_model_gguf(const std::filesystem::path& path, const ModelWeights& weights,
                      const ModelFileExtras& extras) {
    GgufWriter w;
    write_model_metadata(w, weights.config());
    if (extras.vocabulary) add_placeholder_vocabulary(w, weights.config().n_vocab);
    for (const auto& spec : weights.specs()) {
        const auto bytes = weights.bytes(spec.name);
        w.add_tensor(spec.name, std::vector<uint64_t>(spec.shape.begin(), spec.shape.end()),
                     ggml_type_from_dtype(spec.dtype),
                     std::vector<uint8_t>(bytes.begin(), bytes.end()));
    }
    w.write(path);
}

}  // namespace graphlens
