// The decode loop (greedy_decode.h) on a tiny model that went through a GGUF file: every
// execution mode generates the tokens serial generates, and the loop's tokens and last logits
// are those of the CPU reference fed the same tokens. The context (160 positions) is longer
// than one attention split (128 keys), so the plan's decode attention has a split that the
// loop's KV lengths (1..6) leave empty: the grid is the context's, the keys read the token's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "graphlens/decode/greedy_decode.h"
#include "graphlens/model/cpu_reference_model.h"
#include "graphlens/model/gguf_file.h"
#include "graphlens/model/model_weights.h"
#include "graphlens/ops/fusion_recipes.h"
#include "graphlens/ops/params.h"
#include "vulkan/gpu_fixture.h"

namespace graphlens {
namespace {

/// As the transformer end-to-end tests (tests/workloads/llm/model/transformer_e2e_test.cpp):
/// relative L2 error of the logits, f32 on the GPU against double on the CPU.
constexpr double kLogitTolerance = 1e-5;
constexpr uint32_t kContext = 160;

double relative_error(const std::vector<float>& got, const std::vector<float>& want) {
    if (got.size() != want.size()) return INFINITY;
    double err = 0, norm = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        if (!std::isfinite(got[i])) return INFINITY;
        err += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
        norm += double(want[i]) * want[i];
    }
    return std::sqrt(err / norm);
}

/// A tiny llama written to a GGUF with random weights and loaded back.
struct TinyModelFile {
    std::filesystem::path path;
    std::unique_ptr<GgufFile> file;
    std::unique_ptr<ModelWeights> weights;

    explicit TinyModelFile(DType weight_type) {
        const ModelConfig config = tiny_model_config(Architecture::llama, weight_type);
        path = std::filesystem::temp_directory_path() /
               ("graphlens_decode_" + config.name + "_" + std::to_string(::getpid()) + ".gguf");
        write_model_gguf(path, ModelWeights::random(config, 21));
        file = std::make_unique<GgufFile>(GgufFile::open(path));
        weights = std::make_unique<ModelWeights>(
            ModelWeights::from_gguf(*file, model_config_from_gguf(*file)));
    }
    ~TinyModelFile() {
        weights.reset();
        file.reset();
        std::filesystem::remove(path);
    }
};

class GreedyDecodeTest : public test::GpuTest {
  protected:
    GreedyDecodeOptions loop(ExecutionMode mode) const {
        GreedyDecodeOptions o;
        o.mode = mode;
        o.warmup = 2;
        o.tokens = 4;
        o.context = kContext;
        o.prompt_token = 7;
        o.planning.fusion_recipes = ops::fusion_recipes();
        return o;
    }
};

TEST_F(GreedyDecodeTest, TheContextHasASplitTheLoopLeavesEmpty) {
    FlashAttnVecParams p;
    p.head_dim = 16;
    p.n_heads = 4;
    p.n_kv_heads = 2;
    p.kv_len = kContext;
    EXPECT_EQ(flash_attn_vec_splits(p), 2u);
    p.kv_len = 8192;  // 64 splits x 2 KV heads: flash_attn_vec_gqa (attention.cpp)
    EXPECT_EQ(flash_attn_vec_splits(p), 64u);
}

TEST_F(GreedyDecodeTest, EveryModeGeneratesTheTokensOfSerial) {
    TinyModelFile tiny(DType::q8_0);
    const GreedyDecodeResult serial =
        greedy_decode(*memory, *tiny.weights, loop(ExecutionMode::serial));
    ASSERT_EQ(serial.tokens.size(), 6u);
    ASSERT_EQ(serial.steps.size(), 6u);
    for (ExecutionMode mode : all_execution_modes()) {
        const std::string name(execution_mode_name(mode));
        SCOPED_TRACE(name);
        const GreedyDecodeResult r = greedy_decode(*memory, *tiny.weights, loop(mode));
        EXPECT_EQ(r.tokens, serial.tokens);
        if (r.fusions_applied == 0)
            EXPECT_TRUE(test::bitwise_equal(r.last_logits, serial.last_logits));
        else
            EXPECT_LE(relative_error(r.last_logits, serial.last_logits), kLogitTolerance);
        // The plan is the same for every token: what one step records, every step records.
        for (const ExecutionTiming& t : r.steps) {
            EXPECT_EQ(t.dispatches, r.steps.front().dispatches);
            EXPECT_EQ(t.barriers, r.steps.front().barriers);
            EXPECT_GT(t.wall_ns, 0u);
        }
    }
}

// The CPU reference runs the prompt token and then the tokens the GPU chose: each GPU token is
// the reference's argmax (up to a near tie), and the last step's logits match. The loop decodes
// Q8_0 and Q4_0 weights in a context of 160, and Q8_0 in one of 8192 positions, whose 64 splits
// of the 2 KV heads select the grouped-query attention kernel (flash_attn_vec_gqa), of which
// the loop's KV lengths leave 63 splits empty.
TEST_F(GreedyDecodeTest, TokensAndLastLogitsAreTheCpuReferences) {
    for (auto [weights, context] :
         {std::pair{DType::q8_0, kContext}, {DType::q4_0, kContext}, {DType::q8_0, 8192u}}) {
        SCOPED_TRACE(std::string(dtype_name(weights)) + ", context " + std::to_string(context));
        TinyModelFile tiny(weights);
        GreedyDecodeOptions o = loop(ExecutionMode::levels_ahead);
        o.context = context;
        const GreedyDecodeResult r = greedy_decode(*memory, *tiny.weights, o);
        CpuReferenceModel reference(*tiny.weights, o.kv_type,
                                    o.q8_activations && device().facts().integer_dot_product);
        int32_t input = o.prompt_token;
        std::vector<float> logits;
        for (size_t i = 0; i < r.tokens.size(); ++i) {
            logits = reference.forward(std::span(&input, 1));
            const auto best = std::max_element(logits.begin(), logits.end());
            const float chosen = logits.at(size_t(r.tokens[i]));
            EXPECT_LE(*best - chosen, 1e-4f * std::max(1.0f, std::fabs(*best)))
                << "step " << i << ": GPU chose " << r.tokens[i] << ", the reference "
                << (best - logits.begin());
            input = r.tokens[i];
        }
        EXPECT_LE(relative_error(r.last_logits, logits), kLogitTolerance);
    }
}

TEST_F(GreedyDecodeTest, RefusesALoopThatDoesNotFit) {
    TinyModelFile tiny(DType::q8_0);
    GreedyDecodeOptions o = loop(ExecutionMode::serial);
    o.context = 5;  // 2 + 4 tokens
    EXPECT_THROW(greedy_decode(*memory, *tiny.weights, o), std::invalid_argument);
    o = loop(ExecutionMode::serial);
    o.prompt_token = 256;  // the tiny vocabulary is 256
    EXPECT_THROW(greedy_decode(*memory, *tiny.weights, o), std::invalid_argument);
}

}  // namespace
}  // namespace graphlens
