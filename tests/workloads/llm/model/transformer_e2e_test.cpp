// End-to-end truth of the model layer: a tiny model with random weights is written to a GGUF,
// read back, recorded through GraphSession, run on the GPU (lavapipe in CI), and its logits
// compared with the CPU reference forward pass of the same file.
//
// Tolerance: relative L2 error of the logits <= 1e-5 (measured: 2e-7 to 4e-7). Weights are
// identical on both sides (the reference dequantizes the same blocks), so the only differences are
// float32 accumulation order on the GPU against double on the CPU, over two layers. On a device
// whose mat-mats run on tensor cores (f16 inputs), a step of more than 8 tokens (the tiled
// mat-mat) and every later step, which reads the keys and values it wrote, get the tensor-core
// tolerance instead (measured on an H100: 5e-4 to 6e-4 for a 40-token MoE prefill).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "graphlens/exec/runner.h"
#include "graphlens/model/cpu_reference_model.h"
#include "graphlens/model/gguf_file.h"
#include "graphlens/model/model_weights.h"
#include "graphlens/model/transformer_builder.h"
#include "graphlens/ops/fusion_recipes.h"
#include "graphlens/ops/ggml_blocks.h"
#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/graph_session.h"
#include "vulkan/gpu_fixture.h"

namespace graphlens {
namespace {

constexpr double kLogitTolerance = 1e-5;
constexpr double kLogitToleranceTensorCores = 5e-3;
constexpr uint32_t kMatvecMaxTokens =
    8;  // workloads/llm/ops/src/matmul.cpp: more take the tiled mat-mat

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

/// A tiny model that went through a GGUF file: written with random weights, memory-mapped
/// and loaded back, as a user's file would be.
/// The Runner's options with the workload's fusion table (the fused modes' kernels).
RunnerOptions runner_options() {
    RunnerOptions o;
    o.fusion_recipes = ops::fusion_recipes();
    return o;
}

struct TinyModelFile {
    std::filesystem::path path;
    std::unique_ptr<GgufFile> file;
    std::unique_ptr<ModelWeights> weights;

    TinyModelFile(const ModelConfig& config, uint64_t seed) {
        path = std::filesystem::temp_directory_path() /
               ("graphlens_tiny_" + config.name + "_" + std::to_string(seed) + "_" +
                std::to_string(::getpid()) + ".gguf");  // ctest -j runs processes side by side
        write_model_gguf(path, ModelWeights::random(config, seed));
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

class TransformerEndToEndTest : public test::GpuTest {
  protected:
    /// The model's options for steps of up to `tokens` tokens with `kv_capacity` positions;
    /// the dense FFNs' output is quantised from q8_ffn_output_min_embd on.
    TransformerOptions options(uint32_t tokens, uint32_t kv_capacity,
                               DType kv_type = DType::f32) const {
        TransformerOptions o{tokens, kv_capacity, kv_type};
        o.q8_ffn_output_min_embd = q8_ffn_output_min_embd;
        return o;
    }
    CpuReferenceModel reference_of(const TransformerModel& model, const ModelWeights& weights,
                                   DType kv_type) const {
        return CpuReferenceModel(weights, kv_type, model.quantises_activations(),
                                 q8_ffn_output_min_embd);
    }

    std::vector<int32_t> random_tokens(uint32_t n, uint32_t vocab) {
        std::uniform_int_distribution<int32_t> dist(0, int32_t(vocab) - 1);
        std::vector<int32_t> t(n);
        for (auto& x : t) x = dist(rng);
        return t;
    }
    std::vector<float> random_values(size_t n) {
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        std::vector<float> v(n);
        for (auto& x : v) x = dist(rng);
        return v;
    }

    /// Fills the first `length` positions of every layer's cache with random keys and
    /// values, on the GPU and in the reference.
    void fill_cache(TransformerModel& model, CpuReferenceModel& reference, uint32_t length) {
        const ModelConfig& c = model.config();
        for (uint32_t il = 0; il < c.n_layer; ++il) {
            const auto keys = random_values(size_t(length) * c.kv_dim());
            const auto values = random_values(size_t(length) * c.kv_dim());
            reference.set_cache(il, length, keys, values);
            for (auto [cache, data] :
                 {std::pair{model.k_cache(il), &keys}, std::pair{model.v_cache(il), &values}}) {
                const auto bytes = ggml::quantize(cache.dtype, *data);
                memory->upload(cache.allocation, bytes, cache.offset);
            }
        }
    }

    /// Records one step, runs it as recorded and returns the logits.
    std::vector<float> run_step(TransformerModel& model, std::span<const int32_t> tokens,
                                uint32_t kv_length, ComputeGraph* graph_out = nullptr) {
        model.upload_inputs(tokens, kv_length);
        GraphSession session = executor->begin_recorded();
        model.record_step(session, static_cast<uint32_t>(tokens.size()), kv_length);
        ComputeGraph graph = session.finish_recording();
        EXPECT_TRUE(graph.validate().empty());
        memory->fill(model.logits().allocation, 0xFF);  // NaN: unwritten logits fail
        executor->execute(graph);
        if (graph_out) *graph_out = std::move(graph);
        return memory->download_as<float>(model.logits());
    }

    /// One decode at KV length `kv_length` (random cache) and its reference.
    void check_decode(const ModelConfig& config, uint32_t kv_length, DType kv_type) {
        SCOPED_TRACE(config.name + " decode at KV " + std::to_string(kv_length) + " " +
                     std::string(dtype_name(kv_type)) + " cache");
        TinyModelFile tiny(config, 11);
        TransformerModel model(*memory, tiny.weights->config(), options(1, kv_length + 1, kv_type));
        model.upload_weights(*tiny.weights);
        CpuReferenceModel reference = reference_of(model, *tiny.weights, kv_type);
        fill_cache(model, reference, kv_length);
        const auto tokens = random_tokens(1, config.n_vocab);
        const auto logits = run_step(model, tokens, kv_length);
        const auto want = reference.forward(tokens);
        EXPECT_LE(relative_error(logits, want), kLogitTolerance);
    }

    /// A prefill of `n` tokens after `kv_length` cached ones, then a decode that reads the
    /// keys and values the prefill wrote to the GPU cache.
    /// `tensor_core_tolerance`: the bound where the prefill's mat-mats and attention take f16
    /// inputs (more than 8 tokens on a tensor-core device).
    void check_prefill_then_decode(const ModelConfig& config, uint32_t n, uint32_t kv_length,
                                   double tensor_core_tolerance = kLogitToleranceTensorCores) {
        SCOPED_TRACE(config.name + " prefill of " + std::to_string(n) + " at KV " +
                     std::to_string(kv_length));
        TinyModelFile tiny(config, 12);
        TransformerModel model(*memory, tiny.weights->config(), {n, kv_length + n + 1});
        model.upload_weights(*tiny.weights);
        CpuReferenceModel reference(*tiny.weights, DType::f32, model.quantises_activations());
        if (kv_length > 0) fill_cache(model, reference, kv_length);
        const auto prompt = random_tokens(n, config.n_vocab);
        const double tol = device().uses_tensor_cores() && n > kMatvecMaxTokens
                               ? tensor_core_tolerance
                               : kLogitTolerance;
        EXPECT_LE(relative_error(run_step(model, prompt, kv_length), reference.forward(prompt)),
                  tol);
        const auto next = random_tokens(1, config.n_vocab);
        EXPECT_LE(relative_error(run_step(model, next, kv_length + n), reference.forward(next)),
                  tol);
    }

    /// A prefill then a decode, each recorded once and run in every execution mode
    /// (Runner::plan: the pass pipeline's graph and encoding of the mode): the logits equal
    /// serial's bitwise where no fusion changed the arithmetic, within kLogitTolerance
    /// otherwise, and serial's match the CPU reference.
    /// `fused_ops`: ops the fused plan must contain (the fusions this graph exercises);
    /// `decode_fused_ops` / `prefill_fused_ops`: the same for the decode step only (one
    /// token: split-k mat-vecs with fused epilogues) / the prefill step only.
    void check_every_mode(const ModelConfig& c, DType kv_type = DType::f32,
                          std::vector<OpKind> fused_ops = {},
                          std::vector<OpKind> decode_fused_ops = {},
                          std::vector<OpKind> prefill_fused_ops = {}) {
        SCOPED_TRACE(c.name);
        TinyModelFile tiny(c, 15);
        TransformerModel model(*memory, tiny.weights->config(), options(4, 5, kv_type));
        model.upload_weights(*tiny.weights);
        CpuReferenceModel reference = reference_of(model, *tiny.weights, kv_type);
        const auto prompt = random_tokens(4, c.n_vocab), next = random_tokens(1, c.n_vocab);
        for (std::span<const int32_t> tokens :
             {std::span<const int32_t>(prompt), std::span<const int32_t>(next)}) {
            const uint32_t kv_length = reference.kv_length();
            const auto want = reference.forward(tokens);
            model.upload_inputs(tokens, kv_length);
            GraphSession session = executor->begin_recorded();
            model.record_step(session, uint32_t(tokens.size()), kv_length);
            const ComputeGraph graph = session.finish_recording();
            std::vector<float> serial;
            // serial first: the reference of the others.
            for (ExecutionMode mode :
                 {ExecutionMode::serial, ExecutionMode::per_op_submit, ExecutionMode::elided,
                  ExecutionMode::fused, ExecutionMode::greedy, ExecutionMode::levels,
                  ExecutionMode::levels_split, ExecutionMode::levels_stream,
                  ExecutionMode::levels_parallel, ExecutionMode::levels_ahead}) {
                const std::string name(execution_mode_name(mode));
                ModePlan plan;
                try {
                    plan = Runner::plan(graph, mode, runner_options());
                } catch (const std::exception& e) {
                    ADD_FAILURE() << name << ": " << e.what();
                    continue;
                }
                if (mode == ExecutionMode::fused) {
                    EXPECT_GT(plan.fusions_applied, 0u)
                        << "the graph offers norm and activation fusions";
                    std::vector<OpKind> expected = fused_ops;
                    const auto& step_ops =
                        tokens.size() == 1 ? decode_fused_ops : prefill_fused_ops;
                    expected.insert(expected.end(), step_ops.begin(), step_ops.end());
                    for (OpKind op : expected)
                        EXPECT_TRUE(std::any_of(plan.graph.nodes.begin(), plan.graph.nodes.end(),
                                                [op](const Node& n) { return n.op == op; }))
                            << "no " << op_kind_name(op) << " in the fused plan";
                    // Every quantize_q8 folds into the kernel that makes its input.
                    for (const Node& n : plan.graph.nodes)
                        EXPECT_FALSE(n.is_dispatch() && n.op == OpKind::quantize_q8)
                            << n.label << " stays a dispatch of its own";
                }
                memory->fill(model.logits().allocation, 0xFF);
                executor->execute(plan.graph, plan.execute);
                const auto logits = memory->download_as<float>(model.logits());
                if (mode == ExecutionMode::serial) {
                    serial = logits;
                    EXPECT_LE(relative_error(logits, want), kLogitTolerance);
                } else if (plan.fusions_applied == 0) {
                    EXPECT_TRUE(test::bitwise_equal(logits, serial)) << name;
                } else {
                    EXPECT_LE(relative_error(logits, serial), kLogitTolerance) << name;
                }
            }
        }
    }

    std::mt19937 rng{20261122};
    int64_t q8_ffn_output_min_embd = kQ8FfnOutputMinEmbd;
};

TEST_F(TransformerEndToEndTest, LlamaDecodeAndPrefillMatchTheCpuReference) {
    const ModelConfig c = tiny_model_config(Architecture::llama, DType::q8_0);
    check_decode(c, 7, DType::f32);
    check_decode(c, 7, DType::f16);
    check_prefill_then_decode(c, 6, 0);
}

// A decode step whose FFN also quantises act(gate)·up for the down projection (what
// llama-3.1-8b's rows of 4096 do; the tiny model's rows are shorter, so the threshold is
// lowered): the fused plan's gated mat-vec writes the q8x blocks itself (_yq8), and the
// logits still match the CPU reference, which quantises at the same point.
TEST_F(TransformerEndToEndTest, DecodeWithQuantisedFfnOutputMatchesTheCpuReference) {
    if (!device().facts().integer_dot_product)
        GTEST_SKIP() << "the device has no shaderIntegerDotProduct";
    q8_ffn_output_min_embd = 0;
    for (DType weights : {DType::q8_0, DType::q4_0}) {
        const ModelConfig c = tiny_model_config(Architecture::llama, weights);
        check_decode(c, 6, DType::f16);
        check_every_mode(c, DType::f32, {}, {OpKind::matvec_glu});
    }
}

TEST_F(TransformerEndToEndTest, SplitKDownProjectionMatchesTheCpuReference) {
    // Rows of 4096 over a grid of one 128 x 128 tile: a prefill's ffn_down runs as 4 partial
    // products over k ranges and a chain of adds (matmul_k_splits); a decode keeps its mat-vec.
    ModelConfig c = tiny_model_config(Architecture::llama, DType::q4_0);
    c.n_ff = 4096;
    constexpr uint32_t kTokens = 16;
    ASSERT_EQ(matmul_k_splits(c.weight_type, uint32_t(c.n_embd), uint32_t(c.n_ff), kTokens), 4u);
    // f16 inputs over rows of 4096: 5.8e-3 on an H100 (2026-11-24), above the 5e-3 of the
    // shorter rows of the other tiny models.
    check_prefill_then_decode(c, kTokens, 0, 1e-2);

    TinyModelFile tiny(c, 13);
    TransformerModel model(*memory, tiny.weights->config(), {kTokens, kTokens});
    model.upload_weights(*tiny.weights);
    ComputeGraph graph;
    run_step(model, random_tokens(kTokens, c.n_vocab), 0, &graph);
    size_t partial_products = 0, sums = 0;
    for (const Node& n : graph.nodes) {
        if (n.label.ends_with("ffn_down")) partial_products += n.workgroups[2] == 4;
        sums += n.label.find("ffn_down.sum") != std::string::npos;
    }
    EXPECT_EQ(partial_products, c.n_layer);
    EXPECT_EQ(sums, 3 * c.n_layer);
}

TEST_F(TransformerEndToEndTest, Q4_0WeightsMatchTheCpuReference) {
    check_decode(tiny_model_config(Architecture::llama, DType::q4_0), 5, DType::f32);
}

TEST_F(TransformerEndToEndTest, Qwen2BiasesMatchTheCpuReference) {
    check_prefill_then_decode(tiny_model_config(Architecture::qwen2), 5, 3);
}

TEST_F(TransformerEndToEndTest, Qwen3QkNormMatchesTheCpuReference) {
    check_prefill_then_decode(tiny_model_config(Architecture::qwen3, DType::q4_0), 5, 0);
}

TEST_F(TransformerEndToEndTest, Gemma2SoftcapSlidingWindowAndPostNormsMatchTheCpuReference) {
    // Window 4 < KV length: sliding layers see only the last 4 positions.
    const ModelConfig c = tiny_model_config(Architecture::gemma2);
    check_decode(c, 9, DType::f32);
    check_prefill_then_decode(c, 6, 2);
}

TEST_F(TransformerEndToEndTest, Gemma3MatchesTheCpuReference) {
    check_prefill_then_decode(tiny_model_config(Architecture::gemma3), 6, 0);
}

TEST_F(TransformerEndToEndTest, Qwen3MoeMatchesTheCpuReference) {
    const ModelConfig c = tiny_model_config(Architecture::qwen3moe);
    check_decode(c, 4, DType::f32);
    check_prefill_then_decode(c, 5, 0);
}

TEST_F(TransformerEndToEndTest, MoeWeightedSumBeyondOneGatherDispatchMatchesTheCpuReference) {
    // n_embd 256 x 8 experts x 40 tokens = 81920 gathered values: more than one get_rows
    // dispatch (65535 ids) holds, so the expert weights and outputs gather in chunks.
    ModelConfig c = tiny_model_config(Architecture::qwen3moe);
    c.name = "moe-wide";
    c.n_embd = 256;
    c.head_dim = 64;
    c.n_expert = 8;
    c.n_expert_used = 8;
    check_prefill_then_decode(c, 40, 0);
}

TEST_F(TransformerEndToEndTest, HostEmbeddingAndChunkedLmHeadMatchTheCpuReference) {
    // A binding limit below the embedding table's size (as llama's 128k vocabulary against
    // lavapipe's 128 MiB maxStorageBufferRange): the lookup moves to the host and the
    // lm_head runs in row chunks; the logits must not change.
    const ModelConfig c = tiny_model_config(Architecture::gemma2);  // tied: lm_head = table
    TinyModelFile tiny(c, 14);
    TransformerOptions options;
    options.max_tokens = 3;
    options.kv_capacity = 3;
    options.max_binding_bytes = 10000;  // table: 256 rows x 68 bytes = 17408
    TransformerModel model(*memory, tiny.weights->config(), options);
    ASSERT_TRUE(model.embedding_on_host());
    model.upload_weights(*tiny.weights);
    CpuReferenceModel reference(*tiny.weights, DType::f32, model.quantises_activations());
    const auto tokens = random_tokens(3, c.n_vocab);
    ComputeGraph graph;
    EXPECT_LE(relative_error(run_step(model, tokens, 0, &graph), reference.forward(tokens)),
              kLogitTolerance);
    size_t lm_head_chunks = 0, gathers = 0;
    for (const Node& n : graph.nodes) {
        lm_head_chunks += n.label.rfind("output.", 0) == 0;
        gathers += n.op == OpKind::get_rows;
    }
    EXPECT_EQ(lm_head_chunks, 2u);
    EXPECT_EQ(gathers, 0u);
}

// Q8_0 weights. llama's adjacent-pair rope fuses into the decode step's q/k mat-vecs (the
// prefill's rope→copy stays its own dispatch); qwen2 and gemma2 rotate NeoX pairs, so their
// rope→copy fuses in both steps; qwen2's projections have biases, gemma2's v fuses its copy.
TEST_F(TransformerEndToEndTest, EveryExecutionModeGivesTheSameLogits) {
    // Decode: the residual add and the next norm fold into the attention output and down
    // mat-vecs (matvec_epilogue, _anq8); prefill keeps them as add_rms_norm_mul.
    check_every_mode(tiny_model_config(Architecture::llama), DType::f32, {},
                     {OpKind::matvec_epilogue}, {OpKind::rope_copy, OpKind::add_rms_norm_mul});
    check_every_mode(tiny_model_config(Architecture::qwen2), DType::f32, {OpKind::rope_copy},
                     {OpKind::matvec_epilogue}, {OpKind::add_rms_norm_mul});
    check_every_mode(tiny_model_config(Architecture::gemma2), DType::f32,
                     {OpKind::add_rms_norm_mul, OpKind::rope_copy}, {OpKind::matvec_epilogue});
}

// Quantized weights: in the decode step the q / k / v projections rotate (llama's
// adjacent-pair rope) and append to the KV cache in their epilogue (gemma's NeoX rope stays
// apart, its v still fuses), and the FFN's gate, up and silu|gelu→mul run as one mat-vec;
// the logits stay those of the unfused plan.
TEST_F(TransformerEndToEndTest, EveryExecutionModeGivesTheSameLogitsWithFusedProjections) {
    check_every_mode(tiny_model_config(Architecture::llama, DType::q4_0), DType::f16, {},
                     {OpKind::matvec_epilogue, OpKind::matvec_glu}, {OpKind::add_rms_norm_mul});
    check_every_mode(tiny_model_config(Architecture::gemma2, DType::q8_0), DType::f32,
                     {OpKind::add_rms_norm_mul}, {OpKind::matvec_epilogue, OpKind::matvec_glu});
}

// q/k norms give interleaved fusable chains (q_norm | q_mul k_norm | k_mul rope_q): the fuse
// pass fuses norm→mul→rope[→copy] across the gaps and re-plans the barriers around them.
TEST_F(TransformerEndToEndTest, EveryExecutionModeGivesTheSameLogitsWithQkNorm) {
    for (Architecture arch : {Architecture::qwen3, Architecture::gemma3, Architecture::qwen3moe})
        check_every_mode(tiny_model_config(arch), DType::f32, {OpKind::rms_norm_mul_rope});
}

// An f16 KV cache: rope writes its keys straight into the cache (rope→copy converting
// f32→f16; with q/k norms the k chain norm→mul→rope→copy); the residual adds fuse with the
// norms after them (add→rms_norm→mul keeps the sum), gemma's post-norms with the residual add
// and the next norm (5 members).
TEST_F(TransformerEndToEndTest, EveryExecutionModeGivesTheSameLogitsWithAnF16Cache) {
    check_every_mode(tiny_model_config(Architecture::llama), DType::f16, {},
                     {OpKind::matvec_epilogue}, {OpKind::rope_copy, OpKind::add_rms_norm_mul});
    check_every_mode(tiny_model_config(Architecture::gemma2), DType::f16,
                     {OpKind::add_rms_norm_mul, OpKind::rope_copy});
    check_every_mode(tiny_model_config(Architecture::qwen3), DType::f16,
                     {OpKind::rms_norm_mul_rope}, {OpKind::matvec_epilogue},
                     {OpKind::add_rms_norm_mul});
}

// A llama decode step with quantized weights: every residual add and the norm after it fold
// into the projection before them (the attention output and the down projection of each layer,
// _anq8), so no add→norm dispatch is left, and the levels plan gives the recorded logits bit
// for bit.
TEST_F(TransformerEndToEndTest, DecodeProjectionsTakeTheResidualAddAndTheNextNorm) {
    const ModelConfig c = tiny_model_config(Architecture::llama, DType::q4_0);
    TinyModelFile tiny(c, 17);
    TransformerModel model(*memory, tiny.weights->config(), {1, 4});
    model.upload_weights(*tiny.weights);
    ComputeGraph graph;
    const auto recorded = run_step(model, random_tokens(1, c.n_vocab), 2, &graph);
    const ModePlan plan = Runner::plan(graph, ExecutionMode::levels, runner_options());
    size_t folded = 0;
    for (const Node& n : plan.graph.nodes) {
        if (!n.is_dispatch()) continue;
        EXPECT_NE(n.op, OpKind::add_rms_norm_mul) << n.label;
        if (plan.graph.kernels[n.kernel].name.find("_anq8") != std::string::npos) ++folded;
    }
    EXPECT_EQ(folded, 2u * c.n_layer);
    memory->fill(model.logits().allocation, 0xFF);
    executor->execute(plan.graph, plan.execute);
    EXPECT_TRUE(test::bitwise_equal(memory->download_as<float>(model.logits()), recorded));
}

TEST_F(TransformerEndToEndTest, BarrierPoliciesGiveBitwiseEqualLogits) {
    // The same graph replayed with barriers recomputed from its ranges and with a barrier
    // after every dispatch: the arithmetic is unchanged, so the logits are bitwise equal.
    const ModelConfig c = tiny_model_config(Architecture::qwen3);
    TinyModelFile tiny(c, 13);
    TransformerModel model(*memory, tiny.weights->config(), {4, 4});
    model.upload_weights(*tiny.weights);
    const auto tokens = random_tokens(4, c.n_vocab);
    ComputeGraph graph;
    const auto recorded = run_step(model, tokens, 0, &graph);
    for (BarrierSource barriers : {BarrierSource::recompute, BarrierSource::every_dispatch}) {
        memory->fill(model.logits().allocation, 0xFF);
        ExecuteOptions options;
        options.barriers = barriers;
        executor->execute(graph, options);
        EXPECT_TRUE(test::bitwise_equal(memory->download_as<float>(model.logits()), recorded))
            << "barrier source " << int(barriers);
    }
}

}  // namespace
}  // namespace graphlens
