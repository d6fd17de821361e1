// Specification of a captured transformer step: labels, op kinds, metadata and memory layout
// (the things the passes, the capture file and the GUI rely on).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "vulkan/gpu_fixture.h"
#include "graphlens/graph/hazard_index.h"
#include "graphlens/model/transformer_builder.h"

namespace graphlens {
namespace {

class CaptureTest : public test::GpuTest {
  protected:
    ComputeGraph capture(const ModelConfig& c, Phase phase, uint32_t tokens, uint32_t ctx,
                         bool q8_activations = true) {
        CaptureRequest r;
        r.config = c;
        r.q8_activations = q8_activations;
        r.phase = phase;
        r.tokens = tokens;
        r.kv_length = ctx;
        std::vector<size_t> progress;
        ComputeGraph g =
            capture_transformer(*memory, r, [&](size_t done, size_t total, std::string_view) {
                EXPECT_EQ(total, c.n_layer);
                progress.push_back(done);
            });
        EXPECT_EQ(progress.size(), c.n_layer);
        EXPECT_EQ(progress.back(), c.n_layer);
        return g;
    }
    static std::vector<std::string> labels_with_prefix(const ComputeGraph& g,
                                                       const std::string& prefix) {
        std::vector<std::string> out;
        for (const Node& n : g.nodes)
            if (n.is_dispatch() && n.label.rfind(prefix, 0) == 0)
                out.push_back(n.label.substr(prefix.size()));
        return out;
    }
    static size_t count_op(const ComputeGraph& g, OpKind op) {
        return size_t(std::count_if(g.nodes.begin(), g.nodes.end(),
                                    [&](const Node& n) { return n.is_dispatch() && n.op == op; }));
    }
};

TEST_F(CaptureTest, DecodeHasTheLayersOfAnEngineInOrder) {
    // f32 x everywhere: the layer as ggml records it.
    const ModelConfig c = tiny_model_config(Architecture::llama);
    const ComputeGraph g = capture(c, Phase::decode, 1, 8, false);
    EXPECT_TRUE(g.validate().empty());
    const std::vector<std::string> layer = {
        "attn_norm",   "attn_norm.mul", "attn_q",   "attn_k",       "attn_v",
        "rope_q",      "rope_k",        "k_cache",  "v_cache",      "attn",
        "attn_output", "attn_residual", "ffn_norm", "ffn_norm.mul", "ffn_gate",
        "ffn_up",      "ffn_act",       "ffn_mul",  "ffn_down",     "ffn_residual"};
    for (uint32_t il = 0; il < c.n_layer; ++il)
        EXPECT_EQ(labels_with_prefix(g, "blk." + std::to_string(il) + "."), layer) << il;
    std::vector<std::string> first, last;
    for (const Node& n : g.nodes)
        if (n.is_dispatch() && n.label.rfind("blk.", 0) != 0)
            (first.size() < 1 ? first : last).push_back(n.label);
    EXPECT_EQ(first, std::vector<std::string>{"token_embd"});
    EXPECT_EQ(last, (std::vector<std::string>{"output_norm", "output_norm.mul", "output"}));
    EXPECT_EQ(count_op(g, OpKind::flash_attn_vec), c.n_layer);
    EXPECT_EQ(count_op(g, OpKind::sdpa), 0u);
    EXPECT_EQ(count_op(g, OpKind::quantized_matmul_ggml), 7 * c.n_layer + 1);
    EXPECT_EQ(count_op(g, OpKind::quantize_q8), 0u);
    EXPECT_EQ(g.metadata.at("x_q8"), "no");
}

TEST_F(CaptureTest, DecodeQuantisesTheXOfItsQ8_0MatvecsWhereTheDeviceHasIntegerDots) {
    if (!device().facts().integer_dot_product)
        GTEST_SKIP() << "the device has no shaderIntegerDotProduct";
    // The norms before q/k/v, gate/up and the lm_head quantise their output (q8_0 weights).
    const ModelConfig c = tiny_model_config(Architecture::llama);
    const ComputeGraph g = capture(c, Phase::decode, 1, 8);
    EXPECT_TRUE(g.validate().empty());
    const std::vector<std::string> layer = {
        "attn_norm",     "attn_norm.mul", "attn_norm.q8", "attn_q",      "attn_k",   "attn_v",
        "rope_q",        "rope_k",        "k_cache",      "v_cache",     "attn",     "attn_output",
        "attn_residual", "ffn_norm",      "ffn_norm.mul", "ffn_norm.q8", "ffn_gate", "ffn_up",
        "ffn_act",       "ffn_mul",       "ffn_down",     "ffn_residual"};
    for (uint32_t il = 0; il < c.n_layer; ++il)
        EXPECT_EQ(labels_with_prefix(g, "blk." + std::to_string(il) + "."), layer) << il;
    EXPECT_EQ(count_op(g, OpKind::quantize_q8), 2 * c.n_layer + 1);
    for (const Node& n : g.nodes)
        if (n.is_dispatch() && n.op == OpKind::quantized_matmul_ggml) {
            const bool reads_q8 = n.label.ends_with("attn_q") || n.label.ends_with("attn_k") ||
                                  n.label.ends_with("attn_v") || n.label.ends_with("ffn_gate") ||
                                  n.label.ends_with("ffn_up") || n.label == "output";
            EXPECT_EQ(g.kernels[n.kernel].name.ends_with("_xq8"), reads_q8) << n.label;
        }
    EXPECT_EQ(g.metadata.at("x_q8"), "yes");
    // A prefill keeps f32 x (its mat-mats read f32 or f16 tiles).
    const ComputeGraph p = capture(c, Phase::prefill, 5, 3);
    EXPECT_EQ(count_op(p, OpKind::quantize_q8), 0u);
    EXPECT_EQ(p.metadata.at("x_q8"), "no");
}

TEST_F(CaptureTest, MetadataDescribesTheWorkload) {
    const ComputeGraph g = capture(tiny_model_config(Architecture::qwen3), Phase::prefill, 5, 3);
    EXPECT_EQ(g.metadata.at("model"), "tiny-qwen3");
    EXPECT_EQ(g.metadata.at("architecture"), "qwen3");
    EXPECT_EQ(g.metadata.at("phase"), "prefill");
    EXPECT_EQ(g.metadata.at("tokens"), "5");
    EXPECT_EQ(g.metadata.at("ctx"), "3");
    EXPECT_EQ(g.metadata.at("kv_capacity"), "8");
    EXPECT_EQ(g.metadata.at("weight_type"), "q8_0");
    EXPECT_EQ(count_op(g, OpKind::sdpa), 2u);
    EXPECT_EQ(count_op(g, OpKind::flash_attn_vec), 0u);
    EXPECT_EQ(labels_with_prefix(g, "blk.1.attn_q_norm").size(), 2u);  // norm and its mul
}

TEST_F(CaptureTest, MemoryIsLaidOutAsAnEngineWould) {
    const ModelConfig c = tiny_model_config(Architecture::llama);
    const ComputeGraph g = capture(c, Phase::decode, 1, 8);
    std::set<std::string> names;
    for (const auto& a : g.allocations) names.insert(a.name);
    for (const char* name :
         {"weights.token_embd", "weights.blk.0", "weights.blk.1", "weights.output", "kv_cache",
          "inp_tokens", "inp_pos", "act.residual", "act.scratch", "logits"})
        EXPECT_TRUE(names.count(name)) << name;
    // Every layer reuses the scratch: later layers overwrite what earlier ones read (WAR), so
    // the hazard analysis has cross-layer work to do besides each layer's own RAW chain.
    const HazardIndex hazards(g);
    const auto scratch =
        std::find_if(g.allocations.begin(), g.allocations.end(), [](const auto& a) {
            return a.name == "act.scratch";
        })->id;
    auto layer_of = [&](size_t node) {
        const std::string& l = g.nodes[node].label;
        return l.rfind("blk.", 0) == 0 ? std::stoi(l.substr(4)) : -1;
    };
    size_t cross_layer_war = 0, in_layer_raw = 0;
    for (const Hazard& h : hazards.hazards()) {
        if (h.overlap().allocation != scratch || layer_of(h.earlier) != 0) continue;
        cross_layer_war += layer_of(h.later) == 1 && h.kind == HazardKind::war;
        in_layer_raw += layer_of(h.later) == 0 && h.kind == HazardKind::raw;
    }
    EXPECT_GT(cross_layer_war, 0u);
    EXPECT_GT(in_layer_raw, 10u);
}

// Decode attention binds its partials and arrival counters read-write, so the hazard
// analysis reads every layer's attention as reading all of them. They must share no bytes with
// act.scratch, where the FFN's intermediates live: the FFN of a long-KV decode (a large
// fa_tmp) would otherwise look read by the next layer's attention, and not fuse.
TEST_F(CaptureTest, DecodeAttentionScratchSharesNoBytesWithTheFfn) {
    const ModelConfig c = tiny_model_config(Architecture::llama);
    const ComputeGraph g = capture(c, Phase::decode, 1, 200);  // fa_tmp larger than the FFN's
    const auto attn = std::find_if(g.nodes.begin(), g.nodes.end(), [](const Node& n) {
        return n.is_dispatch() && n.op == OpKind::flash_attn_vec;
    });
    ASSERT_NE(attn, g.nodes.end());
    std::set<std::string> read_write;
    for (const BoundView& b : attn->bindings) {
        const KernelBinding* kb = g.kernels[attn->kernel].find_binding(b.binding);
        ASSERT_NE(kb, nullptr);
        if (kb->access == BindingAccess::read_write)
            read_write.insert(g.allocations[b.view.allocation].name);
    }
    EXPECT_EQ(read_write, (std::set<std::string>{"fa_tmp", "fa_counters"}));
}

// Soft-capping and the sliding window are sdpa parameters: a gemma prefill attends with one
// dispatch per layer, as every other architecture does.
TEST_F(CaptureTest, GemmaPrefillAttendsWithOneSdpaPerLayer) {
    const ModelConfig c = tiny_model_config(Architecture::gemma2);
    const ComputeGraph g = capture(c, Phase::prefill, 6, 0);  // longer than the window (4)
    EXPECT_EQ(count_op(g, OpKind::sdpa), c.n_layer);
    EXPECT_EQ(count_op(g, OpKind::flash_attn_vec), 0u);
    EXPECT_EQ(count_op(g, OpKind::softcap), 1u);  // the final logits
    EXPECT_TRUE(labels_with_prefix(g, "blk.0.attn.").empty());
}

TEST_F(CaptureTest, MoeLayersRouteThroughTopkAndMatmulId) {
    const ModelConfig c = tiny_model_config(Architecture::qwen3moe);
    const ComputeGraph g = capture(c, Phase::decode, 1, 4);
    EXPECT_EQ(count_op(g, OpKind::topk), c.n_layer);
    EXPECT_EQ(count_op(g, OpKind::quantized_matmul_id_ggml), 3 * c.n_layer);
    EXPECT_EQ(count_op(g, OpKind::multi_add), c.n_layer);
}

TEST_F(CaptureTest, StepsThatDoNotFitAreRejected) {
    TransformerModel model(*memory, tiny_model_config(Architecture::llama), {2, 4});
    GraphSession s = executor->begin_recorded();
    EXPECT_THROW(model.record_step(s, 3, 0), std::invalid_argument);  // more than max_tokens
    EXPECT_THROW(model.record_step(s, 2, 3), std::invalid_argument);  // past the cache
}

}  // namespace
}  // namespace graphlens
