#include "graphlens/model/model_config.h"

#include "architecture_defaults.h"

#include <fmt/core.h>

#include <cmath>
#include <stdexcept>

#include "graphlens/model/gguf_file.h"

namespace graphlens {

namespace {
struct ArchitectureName {
    Architecture arch;
    std::string_view name;
};
constexpr ArchitectureName kArchitectures[] = {
    {Architecture::llama, "llama"},   {Architecture::qwen2, "qwen2"},
    {Architecture::qwen3, "qwen3"},   {Architecture::qwen3moe, "qwen3moe"},
    {Architecture::gemma2, "gemma2"}, {Architecture::gemma3, "gemma3"},
};
}  // namespace

std::string_view architecture_name(Architecture a) {
    for (const auto& n : kArchitectures)
        if (n.arch == a) return n.name;
    return "unknown";
}

std::optional<Architecture> architecture_from_name(std::string_view name) {
    for (const auto& n : kArchitectures)
        if (n.name == name) return n.arch;
    return std::nullopt;
}

float ModelConfig::effective_attention_scale() const {
    return attention_scale > 0 ? attention_scale : 1.0f / std::sqrt(static_cast<float>(head_dim));
}

bool ModelConfig::layer_uses_sliding_window(uint32_t il) const {
    if (sliding_window == 0) return false;
    if (sliding_window_pattern == 0) return true;
    return il % sliding_window_pattern != sliding_window_pattern - 1;
}

float ModelConfig::layer_rope_base(uint32_t il) const {
    if (rope_freq_base_swa > 0 && layer_uses_sliding_window(il)) return rope_freq_base_swa;
    return rope_freq_base;
}

void ModelConfig::validate() const {
    auto fail = [&](const std::string& what) {
        throw std::invalid_argument(
            fmt::format("model '{}' ({}): {}", name, architecture_name(architecture), what));
    };
    auto positive = [&](const char* field, uint64_t v) {
        if (v == 0) fail(fmt::format("{} must be > 0", field));
    };
    positive("n_vocab", n_vocab);
    positive("n_embd", n_embd);
    positive("n_layer", n_layer);
    positive("n_head", n_head);
    positive("n_head_kv", n_head_kv);
    positive("head_dim", head_dim);
    if (n_head % n_head_kv != 0)
        fail(fmt::format("n_head {} is not a multiple of n_head_kv {}", n_head, n_head_kv));
    if (head_dim % 2 != 0) fail(fmt::format("head_dim {} must be even for rope", head_dim));
    if (is_moe()) {
        positive("n_expert_used", n_expert_used);
        positive("n_ff_expert", n_ff_expert);
        if (n_expert_used > n_expert)
            fail(fmt::format("n_expert_used {} exceeds n_expert {}", n_expert_used, n_expert));
    } else {
        positive("n_ff", n_ff);
    }
    if (!(rms_eps > 0)) fail("rms_eps must be > 0");
    const uint32_t block = dtype_block_elements(weight_type);
    const std::pair<const char*, uint32_t> rows[] = {
        {"n_embd", n_embd},
        {"q_dim (n_head * head_dim)", q_dim()},
        {is_moe() ? "n_ff_expert" : "n_ff", is_moe() ? n_ff_expert : n_ff}};
    for (const auto& [field, v] : rows)
        if (v % block != 0)
            fail(fmt::format("{} = {} is not a multiple of the {} block size {}", field, v,
                             dtype_name(weight_type), block));
}

// ---------------------------------------------------------------------------------------
// GGUF

namespace {

/// Per-architecture facts llama.cpp hard-codes rather than stores in the file.
void apply_architecture_defaults(ModelConfig& c) {
    switch (c.architecture) {
        case Architecture::llama:
            c.rope_style = RopeStyle::normal;
            break;
        case Architecture::qwen2:
            c.rope_style = RopeStyle::neox;
            c.qkv_bias = true;
            break;
        case Architecture::qwen3:
        case Architecture::qwen3moe:
            c.rope_style = RopeStyle::neox;
            c.qk_norm = true;
            break;
        case Architecture::gemma2:
            c.rope_style = RopeStyle::neox;
            c.post_norms = true;
            c.scale_embeddings = true;
            c.activation = Activation::gelu;
            c.sliding_window_pattern = 2;
            c.tied_embeddings = true;
            break;
        case Architecture::gemma3:
            c.rope_style = RopeStyle::neox;
            c.post_norms = true;
            c.scale_embeddings = true;
            c.activation = Activation::gelu;
            c.qk_norm = true;
            c.sliding_window_pattern = 6;
            c.rope_freq_base_swa = 10000.0f;
            c.tied_embeddings = true;
            break;
    }
}

uint32_t required_u32(const GgufFile& f, const std::string& key) {
    const GgufValue& v = f.at(key);
    if (v.type() == GgufType::array)
        throw GgufError(f.source(), fmt::format("metadata '{}'.value", key), f.value_offset(key),
                        "per-layer values (an array) are not supported");
    return f.get_u32(key, 0);
}

std::string architecture_name(const GgufFile& f) {
    const std::string name = f.at("general.architecture").type() == GgufType::string
                                 ? f.get_string("general.architecture", "")
                                 : "";
    if (name.empty())
        throw GgufError(f.source(), "metadata 'general.architecture'.value",
                        f.value_offset("general.architecture"), "must be a non-empty string");
    return name;
}

Architecture supported_architecture(const GgufFile& f, const std::string& name) {
    const auto arch = architecture_from_name(name);
    if (!arch) {
        std::string known;
        for (const auto& n : kArchitectures) known += fmt::format(" {}", n.name);
        throw std::invalid_argument(fmt::format(
            "{}: architecture '{}' is not supported (supported:{})", f.source(), name, known));
    }
    return *arch;
}

// Width, depth, heads and head size (`p`: the architecture's key prefix, "llama.").
void read_attention_shape(const GgufFile& f, const std::string& p, ModelConfig& c) {
    c.n_embd = required_u32(f, p + "embedding_length");
    c.n_layer = required_u32(f, p + "block_count");
    c.n_head = required_u32(f, p + "attention.head_count");
    c.n_head_kv = f.find(p + "attention.head_count_kv")
                      ? required_u32(f, p + "attention.head_count_kv")
                      : c.n_head;
    c.n_ctx_train = f.get_u32(p + "context_length", 0);
    if (c.n_head == 0)
        throw GgufError(f.source(), fmt::format("metadata '{}attention.head_count'.value", p),
                        f.value_offset(p + "attention.head_count"), "must be > 0");
    c.head_dim = f.get_u32(p + "attention.key_length", c.n_embd / c.n_head);
    const uint32_t value_length = f.get_u32(p + "attention.value_length", c.head_dim);
    if (value_length != c.head_dim)
        throw GgufError(f.source(), fmt::format("metadata '{}attention.value_length'.value", p),
                        f.value_offset(p + "attention.value_length"),
                        fmt::format("value head size {} differs from key head size {}: not "
                                    "supported",
                                    value_length, c.head_dim));
}

// Epsilon, rope bases, soft-capping, sliding window, attention scale: the architecture's
// defaults unless the file has the key.
void read_scalar_hyperparameters(const GgufFile& f, const std::string& p, ModelConfig& c) {
    c.rms_eps = f.get_f32(p + "attention.layer_norm_rms_epsilon", c.rms_eps);
    c.rope_freq_base = f.get_f32(p + "rope.freq_base", c.rope_freq_base);
    c.attn_logit_softcap = f.get_f32(p + "attn_logit_softcapping", 0.0f);
    c.final_logit_softcap = f.get_f32(p + "final_logit_softcapping", 0.0f);
    c.sliding_window = f.get_u32(p + "attention.sliding_window", 0);
    c.sliding_window_pattern =
        f.get_u32(p + "attention.sliding_window_pattern", c.sliding_window_pattern);
    c.attention_scale = f.get_f32(p + "attention.scale", c.attention_scale);
    c.rope_freq_base_swa = f.get_f32(p + "rope.freq_base_swa", c.rope_freq_base_swa);
}

// The dense feed-forward's width, or a mixture of experts' counts and expert width.
void read_feed_forward_shape(const GgufFile& f, const std::string& p, ModelConfig& c) {
    if (c.architecture == Architecture::qwen3moe) {
        c.n_expert = required_u32(f, p + "expert_count");
        c.n_expert_used = required_u32(f, p + "expert_used_count");
        c.n_ff_expert = required_u32(f, p + "expert_feed_forward_length");
        c.n_ff = f.get_u32(p + "feed_forward_length", 0);
    } else {
        c.n_ff = required_u32(f, p + "feed_forward_length");
    }
}

// The explicit key, else the tokenizer's token list, else the embedding's rows.
uint32_t vocabulary_size(const GgufFile& f, const std::string& p) {
    if (f.find(p + "vocab_size")) return required_u32(f, p + "vocab_size");
    if (const GgufValue* tokens = f.find("tokenizer.ggml.tokens");
        tokens && tokens->type() == GgufType::array)
        return static_cast<uint32_t>(tokens->as_array().elements.size());
    if (const GgufTensorInfo* embd = f.find_tensor("token_embd.weight");
        embd && embd->dims.size() == 2)
        return static_cast<uint32_t>(embd->dims[1]);
    throw GgufError(f.source(), fmt::format("metadata '{}vocab_size'", p), GgufError::kNoOffset,
                    "vocabulary size unknown: no vocab_size key, tokenizer.ggml.tokens or "
                    "token_embd.weight");
}

// Llama 3's rope scaling: llama.cpp reads its factors from the rope_freqs tensor; the
// parameters that made them are GraphLens's own keys (write_model_metadata), or the
// architecture's keys in files of other writers.
void read_rope_scaling(const GgufFile& f, const std::string& p, ModelConfig& c) {
    c.rope_scaling_factor =
        f.get_f32(kGraphLensRopeScalingFactor, f.get_f32(p + "rope.scaling.factor", 0.0f));
    c.rope_original_context = f.get_u32(kGraphLensRopeOriginalContext,
                                        f.get_u32(p + "rope.scaling.original_context_length", 0));
    c.rope_freq_factors = c.rope_scaling_factor > 0;
}

// What a file with tensors says through them: rope factors, tied embeddings, and the matrix
// type that random weights of a metadata-only file take.
void read_tensor_facts(const GgufFile& f, ModelConfig& c) {
    c.rope_freq_factors = f.find_tensor("rope_freqs.weight") != nullptr;
    c.tied_embeddings = f.find_tensor("output.weight") == nullptr;
    if (const GgufTensorInfo* q = f.find_tensor("blk.0.attn_q.weight"))
        if (const auto dt = ggml_type_to_dtype(q->type)) c.weight_type = *dt;
}

}  // namespace

ModelConfig model_config_from_gguf(const GgufFile& f) {
    const std::string arch_name = architecture_name(f);
    ModelConfig c;
    c.architecture = supported_architecture(f, arch_name);
    apply_architecture_defaults(c);
    c.name = f.get_string("general.name", arch_name);
    const std::string p = arch_name + ".";
    read_attention_shape(f, p, c);
    read_scalar_hyperparameters(f, p, c);
    read_feed_forward_shape(f, p, c);
    c.n_vocab = vocabulary_size(f, p);
    read_rope_scaling(f, p, c);
    if (!f.tensors().empty()) read_tensor_facts(f, c);
    try {
        c.validate();
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("{}: {}", f.source(), e.what()));
    }
    return c;
}

// ---------------------------------------------------------------------------------------
// Weights

uint64_t WeightSpec::elements() const {
    uint64_t n = 1;
    for (int64_t d : shape) n *= static_cast<uint64_t>(d);
    return n;
}

uint64_t WeightSpec::bytes() const {
    return dtype_bytes_for(dtype, elements());
}

std::vector<WeightSpec> model_weights(const ModelConfig& c) {
    c.validate();
    const int64_t embd = c.n_embd, q = c.q_dim(), kv = c.kv_dim(), hd = c.head_dim;
    const DType w = c.weight_type;
    std::vector<WeightSpec> out;
    out.push_back({"token_embd.weight", {embd, c.n_vocab}, w});
    if (c.rope_freq_factors) out.push_back({"rope_freqs.weight", {hd / 2}, DType::f32});
    for (uint32_t il = 0; il < c.n_layer; ++il) {
        const std::string b = fmt::format("blk.{}.", il);
        out.push_back({b + "attn_norm.weight", {embd}, DType::f32});
        out.push_back({b + "attn_q.weight", {embd, q}, w});
        out.push_back({b + "attn_k.weight", {embd, kv}, w});
        out.push_back({b + "attn_v.weight", {embd, kv}, w});
        if (c.qkv_bias) {
            out.push_back({b + "attn_q.bias", {q}, DType::f32});
            out.push_back({b + "attn_k.bias", {kv}, DType::f32});
            out.push_back({b + "attn_v.bias", {kv}, DType::f32});
        }
        if (c.qk_norm) {
            out.push_back({b + "attn_q_norm.weight", {hd}, DType::f32});
            out.push_back({b + "attn_k_norm.weight", {hd}, DType::f32});
        }
        out.push_back({b + "attn_output.weight", {q, embd}, w});
        if (c.post_norms) out.push_back({b + "post_attention_norm.weight", {embd}, DType::f32});
        out.push_back({b + "ffn_norm.weight", {embd}, DType::f32});
        if (c.is_moe()) {
            const int64_t ff = c.n_ff_expert, ne = c.n_expert;
            // llama.cpp keeps the router in f32 when quantizing.
            out.push_back({b + "ffn_gate_inp.weight", {embd, ne}, DType::f32});
            out.push_back({b + "ffn_gate_exps.weight", {embd, ff, ne}, w});
            out.push_back({b + "ffn_up_exps.weight", {embd, ff, ne}, w});
            out.push_back({b + "ffn_down_exps.weight", {ff, embd, ne}, w});
        } else {
            const int64_t ff = c.n_ff;
            out.push_back({b + "ffn_gate.weight", {embd, ff}, w});
            out.push_back({b + "ffn_up.weight", {embd, ff}, w});
            out.push_back({b + "ffn_down.weight", {ff, embd}, w});
        }
        if (c.post_norms) out.push_back({b + "post_ffw_norm.weight", {embd}, DType::f32});
    }
    out.push_back({"output_norm.weight", {embd}, DType::f32});
    if (!c.tied_embeddings) out.push_back({"output.weight", {embd, c.n_vocab}, w});
    return out;
}

std::vector<float> llama3_rope_freq_factors(const ModelConfig& c) {
    std::vector<float> factors(c.head_dim / 2, 1.0f);
    if (c.rope_scaling_factor <= 0 || c.rope_original_context == 0) return factors;
    constexpr double kLowFreqFactor = 1.0, kHighFreqFactor = 4.0;
    constexpr double kPi = 3.14159265358979323846;
    const double old_ctx = c.rope_original_context;
    const double low_wavelen = old_ctx / kLowFreqFactor, high_wavelen = old_ctx / kHighFreqFactor;
    for (size_t i = 0; i < factors.size(); ++i) {
        const double freq = std::pow(double(c.rope_freq_base), -2.0 * double(i) / c.head_dim);
        const double wavelen = 2 * kPi / freq;
        if (wavelen < high_wavelen) continue;  // high frequencies unchanged
        if (wavelen > low_wavelen) {
            factors[i] = c.rope_scaling_factor;
            continue;
        }
        const double smooth =
            (old_ctx / wavelen - kLowFreqFactor) / (kHighFreqFactor - kLowFreqFactor);
        factors[i] = float(1.0 / ((1.0 - smooth) / c.rope_scaling_factor + smooth));
    }
    return factors;
}

uint64_t model_weight_bytes(const ModelConfig& config) {
    uint64_t total = 0;
    for (const auto& w : model_weights(config)) total += w.bytes();
    return total;
}

ModelConfig architecture_base_config(std::string name, Architecture architecture) {
    ModelConfig c;
    c.name = std::move(name);
    c.architecture = architecture;
    apply_architecture_defaults(c);
    return c;
}

ModelConfig tiny_model_config(Architecture architecture, DType weight_type) {
    ModelConfig c = architecture_base_config(
        fmt::format("tiny-{}", architecture_name(architecture)), architecture);
    c.n_vocab = 256;
    c.n_ctx_train = 256;
    c.n_embd = 64;
    c.n_layer = 2;
    c.n_head = 4;
    c.n_head_kv = 2;
    c.head_dim = 16;
    c.n_ff = 128;
    c.rms_eps = 1e-5f;
    c.rope_freq_base = 10000.0f;
    c.weight_type = weight_type;
    switch (architecture) {
        case Architecture::llama:
            // Llama 3 rope scaling shrunk to the tiny context, so every branch of the
            // factor formula (kept, smoothed, scaled) occurs.
            c.rope_freq_factors = true;
            c.rope_scaling_factor = 8.0f;
            c.rope_original_context = 64;
            break;
        case Architecture::gemma2:
            c.attn_logit_softcap = 50.0f;
            c.final_logit_softcap = 30.0f;
            c.sliding_window = 4;  // small enough that short test contexts slide
            break;
        case Architecture::gemma3:
            c.sliding_window = 4;
            c.sliding_window_pattern = 2;  // both kinds of layer within 2 layers
            c.rope_freq_base = 1000000.0f;
            break;
        case Architecture::qwen3moe:
            c.n_ff = 0;
            c.n_expert = 4;
            c.n_expert_used = 2;
            c.n_ff_expert = 64;
            break;
        default:
            break;
    }
    c.validate();
    return c;
}

}  // namespace graphlens
