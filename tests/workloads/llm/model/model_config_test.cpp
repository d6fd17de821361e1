// Specification of model configurations: presets, GGUF metadata round trips, weight lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "graphlens/model/gguf_file.h"
#include "graphlens/model/gguf_writer.h"
#include "graphlens/model/model_config.h"
#include "graphlens/model/model_weights.h"

namespace graphlens {
namespace {

constexpr Architecture kAllArchitectures[] = {Architecture::llama,  Architecture::qwen2,
                                              Architecture::qwen3,  Architecture::qwen3moe,
                                              Architecture::gemma2, Architecture::gemma3};

void expect_same_config(const ModelConfig& a, const ModelConfig& b) {
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.architecture, b.architecture);
    EXPECT_EQ(a.n_vocab, b.n_vocab);
    EXPECT_EQ(a.n_ctx_train, b.n_ctx_train);
    EXPECT_EQ(a.n_embd, b.n_embd);
    EXPECT_EQ(a.n_layer, b.n_layer);
    EXPECT_EQ(a.n_head, b.n_head);
    EXPECT_EQ(a.n_head_kv, b.n_head_kv);
    EXPECT_EQ(a.head_dim, b.head_dim);
    EXPECT_EQ(a.n_ff, b.n_ff);
    EXPECT_EQ(a.rms_eps, b.rms_eps);
    EXPECT_EQ(a.rope_style, b.rope_style);
    EXPECT_EQ(a.rope_freq_base, b.rope_freq_base);
    EXPECT_EQ(a.rope_freq_base_swa, b.rope_freq_base_swa);
    EXPECT_EQ(a.rope_freq_factors, b.rope_freq_factors);
    EXPECT_EQ(a.rope_scaling_factor, b.rope_scaling_factor);
    EXPECT_EQ(a.rope_original_context, b.rope_original_context);
    EXPECT_EQ(a.attention_scale, b.attention_scale);
    EXPECT_EQ(a.qkv_bias, b.qkv_bias);
    EXPECT_EQ(a.qk_norm, b.qk_norm);
    EXPECT_EQ(a.post_norms, b.post_norms);
    EXPECT_EQ(a.scale_embeddings, b.scale_embeddings);
    EXPECT_EQ(a.activation, b.activation);
    EXPECT_EQ(a.attn_logit_softcap, b.attn_logit_softcap);
    EXPECT_EQ(a.final_logit_softcap, b.final_logit_softcap);
    EXPECT_EQ(a.sliding_window, b.sliding_window);
    EXPECT_EQ(a.sliding_window_pattern, b.sliding_window_pattern);
    EXPECT_EQ(a.tied_embeddings, b.tied_embeddings);
    EXPECT_EQ(a.n_expert, b.n_expert);
    EXPECT_EQ(a.n_expert_used, b.n_expert_used);
    EXPECT_EQ(a.n_ff_expert, b.n_ff_expert);
    EXPECT_EQ(a.weight_type, b.weight_type);
}

TEST(ModelConfigTest, RequiredPresetsExistWithTheirPublishedDimensions) {
    for (const char* name :
         {"llama-3.2-1b", "llama-3.1-8b", "qwen3-0.6b", "gemma-2-2b", "qwen3-30b-a3b"}) {
        const ModelPreset& p = model_preset(name);
        EXPECT_FALSE(p.source.empty()) << name;
        EXPECT_NO_THROW(p.config.validate()) << name;
    }
    const ModelConfig& l1b = model_preset("llama-3.2-1b").config;
    EXPECT_EQ(l1b.n_embd, 2048u);
    EXPECT_EQ(l1b.n_layer, 16u);
    EXPECT_EQ(l1b.kv_dim(), 512u);
    EXPECT_TRUE(l1b.tied_embeddings);
    // Q4_0 weights of Llama 3.2 1B: 0.70 GB, as llama.cpp's file (anchors.md).
    EXPECT_NEAR(static_cast<double>(model_weight_bytes(l1b)) / 1e9, 0.70, 0.02);
    EXPECT_NEAR(static_cast<double>(model_weight_bytes(model_preset("llama-3.1-8b").config)) / 1e9,
                4.52, 0.10);
    EXPECT_TRUE(model_preset("qwen3-30b-a3b").config.is_moe());
}

TEST(ModelConfigTest, Llama3RopeFactorsFollowTheScalingRule) {
    // Llama 3.2 1B: rope θ 500000, factor 32, original context 8192, head_dim 64. High
    // frequencies (wavelength < 8192 / 4) keep factor 1, low ones (> 8192) get 32, the band
    // between is smoothed monotonically.
    const ModelConfig& c = model_preset("llama-3.2-1b").config;
    const auto f = llama3_rope_freq_factors(c);
    ASSERT_EQ(f.size(), 32u);
    EXPECT_EQ(f.front(), 1.0f);
    EXPECT_EQ(f.back(), 32.0f);
    EXPECT_TRUE(std::is_sorted(f.begin(), f.end()));
    EXPECT_TRUE(std::any_of(f.begin(), f.end(), [](float x) { return x > 1 && x < 32; }));
    EXPECT_EQ(model_weights(c)[1].name, "rope_freqs.weight");
}

TEST(ModelConfigTest, UnknownPresetListsTheKnownOnes) {
    try {
        model_preset("llama-9");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("llama-3.2-1b"), std::string::npos) << e.what();
    }
}

TEST(ModelConfigTest, SlidingWindowPatterns) {
    const ModelConfig& g2 = model_preset("gemma-2-2b").config;
    EXPECT_TRUE(g2.layer_uses_sliding_window(0));
    EXPECT_FALSE(g2.layer_uses_sliding_window(1));
    const ModelConfig& g3 = model_preset("gemma-3-1b").config;
    for (uint32_t il = 0; il < 12; ++il)
        EXPECT_EQ(g3.layer_uses_sliding_window(il), il % 6 != 5) << il;
    EXPECT_EQ(g3.layer_rope_base(0), 10000.0f);
    EXPECT_EQ(g3.layer_rope_base(5), 1000000.0f);
    EXPECT_FALSE(model_preset("llama-3.2-1b").config.layer_uses_sliding_window(0));
}

TEST(ModelConfigTest, GgufMetadataRoundTripsEveryArchitecture) {
    for (Architecture arch : kAllArchitectures) {
        const ModelWeights weights = ModelWeights::random(tiny_model_config(arch), 1);
        GgufWriter w;
        write_model_metadata(w, weights.config());
        for (const auto& s : weights.specs()) {
            const auto b = weights.bytes(s.name);
            w.add_tensor(s.name, std::vector<uint64_t>(s.shape.begin(), s.shape.end()),
                         ggml_type_from_dtype(s.dtype), {b.begin(), b.end()});
        }
        const auto bytes = w.bytes();
        const GgufFile f = GgufFile::parse(bytes);
        SCOPED_TRACE(std::string(architecture_name(arch)));
        expect_same_config(model_config_from_gguf(f), weights.config());
        const ModelWeights loaded = ModelWeights::from_gguf(f, model_config_from_gguf(f));
        for (const auto& s : weights.specs()) {
            const auto a = weights.bytes(s.name), b = loaded.bytes(s.name);
            EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << s.name;
        }
    }
}

TEST(ModelConfigTest, PresetsRoundTripThroughMetadataOnlyFiles) {
    for (const ModelPreset& p : model_presets()) {
        GgufWriter w;
        write_model_metadata(w, p.config);
        w.omit_tensor_data(true);
        for (const auto& s : model_weights(p.config))
            w.add_tensor_shape(s.name, std::vector<uint64_t>(s.shape.begin(), s.shape.end()),
                               ggml_type_from_dtype(s.dtype));
        const auto bytes = w.bytes();
        const GgufFile f = GgufFile::parse(bytes);
        EXPECT_FALSE(f.has_tensor_data());
        SCOPED_TRACE(p.name);
        expect_same_config(model_config_from_gguf(f), p.config);
    }
}

TEST(ModelConfigTest, MissingOrWrongMetadataNamesTheKey) {
    GgufWriter w;
    write_model_metadata(w, tiny_model_config(Architecture::llama));
    w.set("llama.block_count", GgufValue::string("two"));
    auto bytes = w.bytes();
    try {
        model_config_from_gguf(GgufFile::parse(bytes, "m.gguf"));
        FAIL();
    } catch (const GgufError& e) {
        EXPECT_EQ(e.field(), "metadata 'llama.block_count'.value");
    }
    GgufWriter w2;
    w2.set("general.architecture", GgufValue::string("rwkv6"));
    bytes = w2.bytes();
    EXPECT_THROW(model_config_from_gguf(GgufFile::parse(bytes)), std::invalid_argument);
    GgufWriter w3;
    w3.set("general.architecture", GgufValue::string("llama"));
    bytes = w3.bytes();
    try {
        model_config_from_gguf(GgufFile::parse(bytes));
        FAIL();
    } catch (const GgufError& e) {
        EXPECT_EQ(e.field(), "metadata 'llama.embedding_length'");
    }
}

TEST(ModelConfigTest, WeightListFollowsTheArchitecture) {
    auto names = [](const ModelConfig& c) {
        std::vector<std::string> n;
        for (const auto& w : model_weights(c)) n.push_back(w.name);
        return n;
    };
    auto has = [](const std::vector<std::string>& v, const std::string& s) {
        return std::find(v.begin(), v.end(), s) != v.end();
    };
    const auto llama = names(tiny_model_config(Architecture::llama));
    EXPECT_TRUE(has(llama, "output.weight"));
    EXPECT_FALSE(has(llama, "blk.0.attn_q_norm.weight"));
    const auto qwen3 = names(tiny_model_config(Architecture::qwen3));
    EXPECT_TRUE(has(qwen3, "blk.1.attn_q_norm.weight"));
    EXPECT_TRUE(has(names(tiny_model_config(Architecture::qwen2)), "blk.0.attn_k.bias"));
    const auto gemma = names(tiny_model_config(Architecture::gemma2));
    EXPECT_TRUE(has(gemma, "blk.0.post_ffw_norm.weight"));
    EXPECT_FALSE(has(gemma, "output.weight"));
    const auto moe = names(tiny_model_config(Architecture::qwen3moe));
    EXPECT_TRUE(has(moe, "blk.0.ffn_down_exps.weight"));
    EXPECT_FALSE(has(moe, "blk.0.ffn_down.weight"));
}

TEST(ModelConfigTest, ValidateRejectsRowsThatDoNotFitTheBlockType) {
    ModelConfig c = tiny_model_config(Architecture::llama, DType::q4_0);
    c.weight_type = DType::q4_k;  // 64 is not a multiple of 256
    EXPECT_THROW(c.validate(), std::invalid_argument);
    c = tiny_model_config(Architecture::llama);
    c.n_head_kv = 3;
    EXPECT_THROW(c.validate(), std::invalid_argument);
}

TEST(ModelWeightsTest, RandomWeightsAreDeterministicAndFinite) {
    const ModelConfig c = tiny_model_config(Architecture::gemma3, DType::q4_0);
    const ModelWeights a = ModelWeights::random(c, 5), b = ModelWeights::random(c, 5),
                       other = ModelWeights::random(c, 6);
    for (const auto& s : a.specs()) {
        const auto x = a.bytes(s.name), y = b.bytes(s.name), z = other.bytes(s.name);
        EXPECT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end())) << s.name;
        EXPECT_FALSE(std::equal(x.begin(), x.end(), z.begin(), z.end())) << s.name;
        for (float v : a.values(s.name)) ASSERT_TRUE(std::isfinite(v)) << s.name;
    }
    // Norms sit near one.
    for (float v : a.values("blk.0.attn_norm.weight")) EXPECT_NEAR(v, 1.0f, 0.11f);
}

}  // namespace
}  // namespace graphlens
