#include <fmt/core.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "architecture_defaults.h"
#include "graphlens/model/model_config.h"
#include "model_presets_json.h"

namespace graphlens {

namespace {

// The keys of a preset (presets.json) that set a field of ModelConfig by its own name.
struct U32Field {
    std::string_view key;
    uint32_t ModelConfig::*field;
};
constexpr U32Field kU32Fields[] = {
    {"n_vocab", &ModelConfig::n_vocab},
    {"n_ctx_train", &ModelConfig::n_ctx_train},
    {"n_embd", &ModelConfig::n_embd},
    {"n_layer", &ModelConfig::n_layer},
    {"n_head", &ModelConfig::n_head},
    {"n_head_kv", &ModelConfig::n_head_kv},
    {"head_dim", &ModelConfig::head_dim},
    {"n_ff", &ModelConfig::n_ff},
    {"sliding_window", &ModelConfig::sliding_window},
    {"sliding_window_pattern", &ModelConfig::sliding_window_pattern},
    {"n_expert", &ModelConfig::n_expert},
    {"n_expert_used", &ModelConfig::n_expert_used},
    {"n_ff_expert", &ModelConfig::n_ff_expert},
};
struct FloatField {
    std::string_view key;
    float ModelConfig::*field;
};
constexpr FloatField kFloatFields[] = {
    {"rms_eps", &ModelConfig::rms_eps},
    {"rope_freq_base", &ModelConfig::rope_freq_base},
    {"rope_freq_base_swa", &ModelConfig::rope_freq_base_swa},
    {"attn_logit_softcap", &ModelConfig::attn_logit_softcap},
    {"final_logit_softcap", &ModelConfig::final_logit_softcap},
};
struct BoolField {
    std::string_view key;
    bool ModelConfig::*field;
};
constexpr BoolField kBoolFields[] = {
    {"tied_embeddings", &ModelConfig::tied_embeddings},
    {"qkv_bias", &ModelConfig::qkv_bias},
    {"qk_norm", &ModelConfig::qk_norm},
};

/// Sets the field named `key` from `value`; false when no field has that name.
bool set_field(ModelConfig& c, std::string_view key, const nlohmann::json& value) {
    for (const U32Field& f : kU32Fields)
        if (f.key == key) return c.*f.field = value.get<uint32_t>(), true;
    for (const FloatField& f : kFloatFields)
        if (f.key == key) return c.*f.field = value.get<float>(), true;
    for (const BoolField& f : kBoolFields)
        if (f.key == key) return c.*f.field = value.get<bool>(), true;
    if (key == "query_pre_attn_scalar") {  // gemma: q·k scaled by 1/sqrt of it, not of head_dim
        c.attention_scale = 1.0f / std::sqrt(value.get<float>());
        return true;
    }
    if (key == "rope_scaling") {  // Llama 3's long-context rope: factors per frequency
        if (value.at("type").get<std::string>() != "llama3")
            throw std::invalid_argument("only rope_scaling type llama3 is known");
        c.rope_freq_factors = true;
        c.rope_scaling_factor = value.at("factor").get<float>();
        c.rope_original_context = value.at("original_context").get<uint32_t>();
        return true;
    }
    return false;
}

ModelPreset preset_from_json(const nlohmann::json& row) {
    const auto name = row.at("name").get<std::string>();
    const auto arch_name = row.at("architecture").get<std::string>();
    const auto arch = architecture_from_name(arch_name);
    if (!arch) throw std::invalid_argument(fmt::format("unknown architecture '{}'", arch_name));
    ModelPreset p{name, row.at("description").get<std::string>(),
                  row.at("source").get<std::string>(), architecture_base_config(name, *arch)};
    for (const auto& [key, value] : row.items()) {
        if (key == "name" || key == "architecture" || key == "description" || key == "source")
            continue;
        if (!set_field(p.config, key, value))
            throw std::invalid_argument(fmt::format("unknown key '{}'", key));
    }
    p.config.validate();
    return p;
}

/// A mistake in presets.json is a build's bug: it names the preset and fails at first use
/// (the model tests list every preset).
std::vector<ModelPreset> load_presets() {
    std::vector<ModelPreset> presets;
    const nlohmann::json rows = nlohmann::json::parse(model_presets_json());
    for (size_t i = 0; i < rows.size(); ++i) {
        try {
            presets.push_back(preset_from_json(rows[i]));
        } catch (const std::exception& e) {
            throw std::logic_error(fmt::format("presets.json, preset {} ({}): {}", i,
                                               rows[i].value("name", "?"), e.what()));
        }
    }
    return presets;
}

}  // namespace

const std::vector<ModelPreset>& model_presets() {
    static const std::vector<ModelPreset> presets = load_presets();
    return presets;
}

const ModelPreset& model_preset(std::string_view name) {
    std::string known;
    for (const auto& p : model_presets()) {
        if (p.name == name) return p;
        known += (known.empty() ? "" : ", ") + p.name;
    }
    throw std::invalid_argument(
        fmt::format("unknown preset '{}' (known presets: {})", name, known));
}

}  // namespace graphlens
