#pragma once
// Transformer model configurations: read from a GGUF's metadata (general.architecture and
// the "<arch>.*" keys llama.cpp writes) or taken from a built-in preset, plus the list of
// weight tensors (llama.cpp names, shapes and types) such a model has.
//
// Architectures: llama (Llama 2/3, Mistral), qwen2 (q/k/v bias), qwen3 (q/k norm),
// gemma2 (logit soft-capping, alternating sliding window, post-norms, GELU, embedding
// scaling), gemma3 (as gemma2 with q/k norm, 5:1 sliding window pattern, no soft-capping)
// and qwen3moe (mixture of experts: router, top-k, per-expert FFN via matmul_id).
// Preset dimensions and their sources are in docs/models.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphlens/graph/dtype.h"

namespace graphlens {

class GgufFile;

enum class Architecture : uint8_t { llama, qwen2, qwen3, qwen3moe, gemma2, gemma3 };

std::string_view architecture_name(Architecture a);  ///< general.architecture spelling
std::optional<Architecture> architecture_from_name(std::string_view name);

enum class RopeStyle : uint8_t {
    normal,  ///< rotates adjacent pairs (x[2i], x[2i+1]): llama
    neox,    ///< rotates halves (x[i], x[i + d/2]): qwen, gemma
};

enum class Activation : uint8_t { silu, gelu };

struct ModelConfig {
    std::string name;  ///< preset name or general.name
    Architecture architecture = Architecture::llama;

    uint32_t n_vocab = 0;
    uint32_t n_ctx_train = 0;  ///< context the model was trained for
    uint32_t n_embd = 0;       ///< hidden size
    uint32_t n_layer = 0;
    uint32_t n_head = 0;
    uint32_t n_head_kv = 0;
    uint32_t head_dim = 0;  ///< per head, keys, queries and values alike
    uint32_t n_ff = 0;      ///< dense FFN hidden size (0 for an all-MoE model)
    float rms_eps = 1e-5f;

    RopeStyle rope_style = RopeStyle::normal;
    float rope_freq_base = 10000.0f;
    /// gemma3: base of the sliding-window (local) layers; 0 = same as rope_freq_base.
    float rope_freq_base_swa = 0.0f;
    /// Llama 3.1+ long-context rope: per frequency a factor dividing it, stored in the
    /// rope_freqs.weight tensor [head_dim / 2]. Presets compute the factors from
    /// rope_scaling (factor, low/high frequency factors 1 and 4, original context).
    bool rope_freq_factors = false;
    float rope_scaling_factor = 0.0f;    ///< 0 = none
    uint32_t rope_original_context = 0;  ///< original_max_position_embeddings

    /// Scale of q·k; 1/sqrt(head_dim) unless the model says otherwise (gemma's
    /// query_pre_attn_scalar).
    float attention_scale = 0.0f;
    bool qkv_bias = false;          ///< qwen2
    bool qk_norm = false;           ///< qwen3, qwen3moe, gemma3: RMS norm of each q and k head
    bool post_norms = false;        ///< gemma2/3: norm after attention and after the FFN
    bool scale_embeddings = false;  ///< gemma: embeddings times sqrt(n_embd)
    Activation activation = Activation::silu;
    float attn_logit_softcap = 0.0f;   ///< 0 = none (gemma2: 50)
    float final_logit_softcap = 0.0f;  ///< 0 = none (gemma2: 30)
    uint32_t sliding_window = 0;       ///< 0 = full attention everywhere
    /// Every `sliding_window_pattern`-th layer (il % pattern == pattern - 1) is global, the
    /// others slide: gemma2 = 2, gemma3 = 6. 0 = every layer slides when sliding_window > 0.
    uint32_t sliding_window_pattern = 0;
    bool tied_embeddings = false;  ///< no output.weight: lm_head reuses token_embd

    // Mixture of experts (qwen3moe): n_expert > 0.
    uint32_t n_expert = 0;
    uint32_t n_expert_used = 0;
    uint32_t n_ff_expert = 0;

    /// Type of the 2-D weight matrices when weights are random (presets, metadata-only
    /// files). Norm weights and biases are always f32.
    DType weight_type = DType::q4_0;

    bool is_moe() const { return n_expert > 0; }
    uint32_t q_dim() const { return n_head * head_dim; }
    uint32_t kv_dim() const { return n_head_kv * head_dim; }
    float effective_attention_scale() const;
    /// True when layer `il` uses the sliding window.
    bool layer_uses_sliding_window(uint32_t il) const;
    float layer_rope_base(uint32_t il) const;

    /// Throws std::invalid_argument naming the first inconsistent field (zero sizes, heads
    /// not dividing, rows not multiples of the weight type's block, ...).
    void validate() const;
};

/// The configuration a GGUF's metadata describes. Throws GgufError naming the missing or
/// malformed key, std::invalid_argument for an unsupported architecture.
ModelConfig model_config_from_gguf(const GgufFile& file);

/// One weight tensor of a model, as llama.cpp names and shapes it.
struct WeightSpec {
    std::string name;            ///< e.g. "blk.3.attn_q.weight"
    std::vector<int64_t> shape;  ///< innermost first: {n_embd, q_dim} for attn_q
    DType dtype = DType::f32;
    uint64_t bytes() const;
    uint64_t elements() const;
};
/// Every weight tensor the model needs, in file order (token_embd, blk.0.*, ..., output).
std::vector<WeightSpec> model_weights(const ModelConfig& config);
/// The rope_freqs.weight values Llama 3's rope_scaling implies ("llama3" type, low frequency
/// factor 1, high 4), as llama.cpp's converter computes them; all ones without scaling.
std::vector<float> llama3_rope_freq_factors(const ModelConfig& config);
/// Sum of the weights' bytes.
uint64_t model_weight_bytes(const ModelConfig& config);

struct ModelPreset {
    std::string name;         ///< e.g. "llama-3.2-1b"
    std::string description;  ///< one line
    std::string source;       ///< where the dimensions come from (the model's config.json)
    ModelConfig config;
};
/// The built-in presets (see docs/models.md), in a stable order.
const std::vector<ModelPreset>& model_presets();
/// Throws std::invalid_argument listing the known names when `name` is unknown.
const ModelPreset& model_preset(std::string_view name);

/// GraphLens's own metadata keys for Llama 3's rope scaling parameters (the factors themselves
/// are the rope_freqs tensor, as llama.cpp reads them).
inline constexpr std::string_view kGraphLensRopeScalingFactor = "graphlens.rope_scaling.factor";
inline constexpr std::string_view kGraphLensRopeOriginalContext =
    "graphlens.rope_scaling.original_context_length";

/// A tiny model of an architecture for tests and the demo: 2 layers, n_embd 64, 4 heads,
/// 2 KV heads, vocab 256 (MoE: 4 experts, 2 used). `weight_type` as for presets.
ModelConfig tiny_model_config(Architecture architecture, DType weight_type = DType::q8_0);

}  // namespace graphlens
