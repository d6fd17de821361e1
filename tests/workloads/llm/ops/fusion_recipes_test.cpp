// The fusion table of the kernel library: every pattern applies on a recorded graph, and the
// fused graph computes what the unfused one does.
#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "graphlens/graph/fusion.h"
#include "graphlens/ops/fusion_recipes.h"
#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/graph_executor.h"
#include "ops_test_support.h"

namespace graphlens::test {
namespace {

class FusionRecipesTest : public OpsTest {
  protected:
    static constexpr int64_t dim = 67, rows = 3, n = dim * rows;

    void SetUp() override {
        OpsTest::SetUp();
        x = input(random(n), {dim, rows}, "x");
        w = input(random(dim), {dim}, "w");
        resid = input(random(n), {dim, rows}, "resid");
        g = input(random(n), {dim, rows}, "g");
        for (int i = 0; i < 4; ++i) addend.push_back(input(random(n), {dim, rows}, "addend"));
        for (const char* name : {"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"})
            tmp.push_back(tensor(DType::f32, {dim, rows}, name));
        for (const char* name :
             {"norm_mul_add", "norm_mul", "wnorm_mul", "gelu_mul", "silu_mul", "sum"})
            outs.push_back(tensor(DType::f32, {dim, rows}, name));
    }

    // One instance of every pattern, each on its own intermediates.
    void record(GraphSession& s) {
        ops::rms_norm_no_scale_f32(s, x, tmp[0], 1e-5f, "blk.0.attn_norm");
        ops::mul(s, tmp[0], w, tmp[1], "blk.0.attn_norm.mul");
        ops::add(s, tmp[1], resid, outs[0], "blk.0.attn_norm.add");
        ops::rms_norm_no_scale_f32(s, resid, tmp[2], 1e-5f, "blk.0.ffn_norm");
        ops::mul(s, tmp[2], w, outs[1], "blk.0.ffn_norm.mul");
        ops::rms_norm(s, x, w, tmp[3], 1e-5f, "output_norm");
        ops::mul(s, g, tmp[3], outs[2], "output_norm.mul");  // intermediate as the first operand
        ops::gelu(s, x, tmp[4], "gelu");
        ops::mul(s, tmp[4], g, outs[3], "gelu.mul");
        ops::silu(s, resid, tmp[5], "silu");
        ops::mul(s, tmp[5], g, outs[4], "silu.mul");
        ops::add(s, addend[0], addend[1], tmp[6], "sum.0");
        ops::add(s, tmp[6], addend[2], tmp[7], "sum.1");
        ops::add(s, addend[3], tmp[7], outs[5], "sum.2");  // intermediate as the second operand
    }

    std::vector<std::vector<float>> read_outputs() {
        std::vector<std::vector<float>> r;
        for (const auto& o : outs) r.push_back(read(o));
        return r;
    }

    TensorView x, w, resid, g;
    std::vector<TensorView> addend, tmp, outs;
};

TEST_F(FusionRecipesTest, EveryPatternFusesAndComputesTheSameOutputs) {
    run([&](GraphSession& s) { record(s); });
    const auto unfused = read_outputs();
    for (const auto& o : outs) memory->fill(o.allocation, 0xFF);

    auto s = executor->begin_recorded();
    record(s);
    const ComputeGraph captured = s.finish_recording();
    const auto recipes = ops::fusion_recipes();
    const FusionResult fused = fuse(captured, recipes);
    std::vector<std::string> applied;
    for (const auto& d : fused.diagnostics) {
        EXPECT_TRUE(d.applied) << d.pattern << ": " << d.reason;
        if (d.applied) applied.push_back(d.pattern);
    }
    EXPECT_EQ(applied,
              (std::vector<std::string>{"rms_norm_no_scale→mul→add", "rms_norm_no_scale→mul",
                                        "rms_norm→mul", "gelu→mul", "silu→mul", "add→add→add"}));
    EXPECT_EQ(fused.graph.dispatch_count(), 6u);
    EXPECT_TRUE(fused.graph.validate().empty());

    ExecuteOptions options;
    options.barriers = BarrierSource::recompute;
    executor->execute(fused.graph, options);
    const auto got = read_outputs();
    for (size_t i = 0; i < outs.size(); ++i) {
        std::vector<double> expected(unfused[i].begin(), unfused[i].end());
        EXPECT_LE(relative_error(got[i], expected), kTolF32)
            << memory->info(outs[i].allocation).name;
    }
}

TEST_F(FusionRecipesTest, BuildersDeclineWhatTheFusedKernelsCannotExpress) {
    auto s = executor->begin_recorded();
    // A gate broadcast over rows: gelu_mul needs it whole.
    ops::gelu(s, x, tmp[0], "gelu");
    ops::mul(s, tmp[0], w, outs[0], "gelu.mul.broadcast");
    // An f16 norm: the fused norm kernels are f32 only.
    auto x16 = input_as(DType::f16, random(n), {dim, rows}, "x16");
    auto y16 = tensor(DType::f16, {dim, rows}, "y16");
    ops::rms_norm(s, x16, w, y16, 1e-5f, "norm16");
    auto z16 = tensor(DType::f16, {dim, rows}, "z16");
    ops::mul_f16(s, y16, y16, z16, "norm16.mul");
    const FusionResult fused = fuse(s.finish_recording(), ops::fusion_recipes());
    EXPECT_EQ(fused.applied, 0u);
    ASSERT_FALSE(fused.diagnostics.empty());
    EXPECT_NE(fused.diagnostics[0].reason.find("broadcasts the gate"), std::string::npos)
        << fused.diagnostics[0].reason;
}

// A decode step's q, k and v projections with their rope and f16 KV-cache appends: the k and
// v projections stand between q and its rope, so the chains have gaps. Each projection
// absorbs what follows it (q: rope, k: rope + copy, v: copy) and the three fused dispatches
// write what the seven did.
TEST_F(FusionRecipesTest, QkvProjectionsRotateAndFillTheCacheThemselves) {
    constexpr uint32_t k = 128, head_dim = 8, q_heads = 4, kv_heads = 2;
    constexpr uint32_t nq = head_dim * q_heads, nkv = head_dim * kv_heads;
    RopeParams rq{head_dim, q_heads, 1, head_dim, 10000.0f, 1.0f};
    RopeParams rk{head_dim, kv_heads, 1, head_dim, 10000.0f, 1.0f};
    const auto xn = input(random(k), {k}, "attn_norm.out");
    const auto pos = input_i32({9}, "positions");
    const auto wq = input_as(DType::q4_0, random(size_t(k) * nq), {k, nq}, "wq");
    const auto wk = input_as(DType::q4_0, random(size_t(k) * nkv), {k, nkv}, "wk");
    const auto wv = input_as(DType::q4_0, random(size_t(k) * nkv), {k, nkv}, "wv");
    const auto q = tensor(DType::f32, {nq}, "q"), kk = tensor(DType::f32, {nkv}, "k");
    const auto v = tensor(DType::f32, {nkv}, "v"), k_rot = tensor(DType::f32, {nkv}, "k_rot");
    const auto q_rot = tensor(DType::f32, {nq}, "q_rot");
    const auto k_cache = tensor(DType::f16, {nkv}, "k_cache");
    const auto v_cache = tensor(DType::f16, {nkv}, "v_cache");
    auto record = [&](GraphSession& s) {
        ops::quantized_matmul_ggml(s, xn, wq, q, "blk.0.attn_q");
        ops::quantized_matmul_ggml(s, xn, wk, kk, "blk.0.attn_k");
        ops::quantized_matmul_ggml(s, xn, wv, v, "blk.0.attn_v");
        ops::rope(s, q, pos, q_rot, rq, std::nullopt, "blk.0.rope_q");
        ops::rope(s, kk, pos, k_rot, rk, std::nullopt, "blk.0.rope_k");
        ops::copy(s, k_rot, k_cache, "blk.0.k_cache");
        ops::copy(s, v, v_cache, "blk.0.v_cache");
    };
    const std::vector<TensorView> results{q_rot, k_cache, v_cache};
    run([&](GraphSession& s) { record(s); });
    std::vector<std::vector<float>> unfused;
    for (const auto& r : results) unfused.push_back(read(r));
    for (const auto& r : results) memory->fill(r.allocation, 0xFF);

    auto s = executor->begin_recorded();
    record(s);
    const FusionResult fused = fuse(s.finish_recording(), ops::fusion_recipes());
    std::vector<std::string> applied;
    for (const auto& d : fused.diagnostics) {
        EXPECT_TRUE(d.applied) << d.pattern << ": " << d.reason;
        applied.push_back(d.pattern);
    }
    EXPECT_EQ(applied, (std::vector<std::string>{"quantized_matmul_ggml→rope",
                                                 "quantized_matmul_ggml→rope→copy",
                                                 "quantized_matmul_ggml→copy"}));
    EXPECT_EQ(fused.graph.dispatch_count(), 3u);
    EXPECT_EQ(fused.graph.barrier_count(), 0u);  // all three read only the normed x

    ExecuteOptions options;
    options.barriers = BarrierSource::recompute;
    executor->execute(fused.graph, options);
    for (size_t i = 0; i < results.size(); ++i) {
        std::vector<double> expected(unfused[i].begin(), unfused[i].end());
        EXPECT_LE(relative_error(read(results[i]), expected), kTolF32)
            << memory->info(results[i].allocation).name;
    }
}

// A decode FFN: gate and up projections of one normed x, then act(gate) * up. The gate chain
// gate → act → mul takes in the up projection (the mul's other operand) as a sibling: one
// split-k mat-vec sums both weights' rows and writes act(gate) * up, for both weight formats
// of the split-k kernels and both activations, with a row count that is no multiple of the
// kernels' rows per workgroup.
struct GluCase {
    DType weights;
    bool gelu;
    bool up_first;     ///< the up projection recorded before the gate projection
    bool q8x = false;  ///< x given as q8x: the _xq8 picks and their gated twins
};

class FusedGluTest : public FusionRecipesTest, public ::testing::WithParamInterface<GluCase> {
  protected:
    static constexpr uint32_t k = 160, rows = 37;

    void SetUp() override {
        FusionRecipesTest::SetUp();
        xn = GetParam().q8x ? input_as(DType::q8x, random(k), {k}, "ffn_norm.out_q8")
                            : input(random(k), {k}, "ffn_norm.out");
        w_gate = input_as(GetParam().weights, random(size_t(k) * rows), {k, rows}, "w_gate");
        w_up = input_as(GetParam().weights, random(size_t(k) * rows), {k, rows}, "w_up");
        gate = tensor(DType::f32, {rows}, "gate");
        up = tensor(DType::f32, {rows}, "up");
        act = tensor(DType::f32, {rows}, "act");
        out = tensor(DType::f32, {rows}, "ffn_out");
    }

    void record(GraphSession& s) {
        if (GetParam().up_first) ops::quantized_matmul_ggml(s, xn, w_up, up, "blk.0.ffn_up");
        ops::quantized_matmul_ggml(s, xn, w_gate, gate, "blk.0.ffn_gate");
        if (!GetParam().up_first) ops::quantized_matmul_ggml(s, xn, w_up, up, "blk.0.ffn_up");
        if (GetParam().gelu)
            ops::gelu(s, gate, act, "blk.0.ffn_act");
        else
            ops::silu(s, gate, act, "blk.0.ffn_act");
        ops::mul(s, act, up, out, "blk.0.ffn_mul");
    }

    TensorView xn, w_gate, w_up, gate, up, act, out;
};

TEST_P(FusedGluTest, GateUpAndActivationBecomeOneMatvec) {
    if (GetParam().q8x && !device().facts().integer_dot_product)
        GTEST_SKIP() << "the device has no shaderIntegerDotProduct";
    run([&](GraphSession& s) { record(s); });
    const auto unfused = read(out);
    memory->fill(out.allocation, 0xFF);

    auto s = executor->begin_recorded();
    record(s);
    const FusionResult fused = fuse(s.finish_recording(), ops::fusion_recipes());
    ASSERT_EQ(fused.applied, 1u);
    ASSERT_EQ(fused.diagnostics.size(), 1u);
    EXPECT_EQ(fused.diagnostics[0].nodes.size(), 4u);  // gate, act, mul and the sibling up
    EXPECT_EQ(fused.graph.dispatch_count(), 1u);
    EXPECT_EQ(fused.graph.barrier_count(), 0u);
    const Node& node = fused.graph.nodes.at(0);
    EXPECT_EQ(node.op, OpKind::matvec_glu);
    const std::string suffix =
        std::string(GetParam().gelu ? "_glu_gelu" : "_glu_silu") + (GetParam().q8x ? "_xq8" : "");
    EXPECT_TRUE(fused.graph.kernels[node.kernel].name.ends_with(suffix))
        << fused.graph.kernels[node.kernel].name;
    EXPECT_TRUE(fused.graph.validate().empty());

    ExecuteOptions options;
    options.barriers = BarrierSource::recompute;
    executor->execute(fused.graph, options);
    std::vector<double> expected(unfused.begin(), unfused.end());
    EXPECT_LE(relative_error(read(out), expected), kTolF32);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, FusedGluTest,
    ::testing::Values(GluCase{DType::q4_0, false, false}, GluCase{DType::q4_0, true, false},
                      GluCase{DType::q8_0, false, true}, GluCase{DType::q8_0, true, false},
                      GluCase{DType::q4_0, false, false, true},
                      GluCase{DType::q8_0, true, true, true}),
    [](const auto& info) {
        const GluCase& c = info.param;
        return std::string(dtype_name(c.weights)) + (c.gelu ? "_gelu" : "_silu") +
               (c.up_first ? "_up_first" : "_gate_first") + (c.q8x ? "_q8x" : "");
    });

// A decode layer's output (or down) projection, its residual add and the next norm with its
// 8-bit x: one mat-vec whose last workgroup adds, normalises and quantises, bit for bit what
// the mat-vec and add_rms_norm_mul_f32_q8 write (the sum kept for the next residual add). Rows
// of 8192 and 14336 take the mat-vec's main loop, where the compiler once contracted the
// fused variant's sums differently (its arithmetic is `precise` now).
struct AddNormCase {
    DType weights;
    uint32_t rows;  ///< the residual stream's length: 96 (24 workgroups) or 4096 (1024)
    bool q8x;       ///< x given as q8x (the _xq8 twin)
    uint32_t k = 160;
};

class MatvecAddNormTest : public FusionRecipesTest,
                          public ::testing::WithParamInterface<AddNormCase> {
  protected:
    void SetUp() override {
        FusionRecipesTest::SetUp();
        const uint32_t n = GetParam().rows, k = GetParam().k;
        xo = GetParam().q8x ? input_as(DType::q8x, random(k), {k}, "attn_out_q8")
                            : input(random(k), {k}, "attn_out");
        wo = input_as(GetParam().weights, random(size_t(k) * n), {k, n}, "w_o");
        res = input(random(n), {n}, "residual");
        norm_w = input(random(n), {n}, "ffn_norm.weight");
        proj = tensor(DType::f32, {n}, "attn_output");
        sum = tensor(DType::f32, {n}, "attn_residual");
        normed = tensor(DType::f32, {n}, "ffn_norm");
        mulled = tensor(DType::f32, {n}, "ffn_norm.mul");
        q8 = tensor(DType::q8x, {n}, "ffn_norm.q8");
    }

    void record(GraphSession& s) {
        ops::quantized_matmul_ggml(s, xo, wo, proj, "blk.0.attn_output");
        ops::add(s, res, proj, sum, "blk.0.attn_residual");
        ops::rms_norm_no_scale_f32(s, sum, normed, 1e-5f, "blk.0.ffn_norm");
        ops::mul(s, normed, norm_w, mulled, "blk.0.ffn_norm.mul");
        ops::quantize_q8(s, mulled, q8, "blk.0.ffn_norm.q8");
    }

    TensorView xo, wo, res, norm_w, proj, sum, normed, mulled, q8;
};

TEST_P(MatvecAddNormTest, TheLastWorkgroupWritesTheSumAndTheNextNormsBlocks) {
    if (GetParam().q8x && !device().facts().integer_dot_product)
        GTEST_SKIP() << "the device has no shaderIntegerDotProduct";
    run([&](GraphSession& s) { record(s); });
    const auto unfused_sum = read(sum);
    const auto unfused_q8 = memory->download_as<uint32_t>(q8);

    auto s = executor->begin_recorded();
    record(s);
    const FusionResult fused = fuse(s.finish_recording(), ops::fusion_recipes());
    ASSERT_EQ(fused.applied, 1u);
    EXPECT_EQ(fused.diagnostics.at(0).pattern,
              "quantized_matmul_ggml→add→rms_norm_no_scale→mul→quantize_q8");
    ASSERT_EQ(fused.graph.dispatch_count(), 1u);
    const Node& node = fused.graph.nodes.at(0);
    EXPECT_EQ(node.op, OpKind::matvec_epilogue);
    const std::string& kernel = fused.graph.kernels[node.kernel].name;
    EXPECT_TRUE(kernel.ends_with(GetParam().q8x ? "_anq8_xq8" : "_anq8")) << kernel;
    // Its last workgroup's add + norm is a stage of its own, ordered by the arrival counter.
    EXPECT_EQ(fused.graph.kernels[node.kernel].stages.size(), 2u);
    EXPECT_TRUE(fused.graph.validate().empty());

    ExecuteOptions options;
    options.barriers = BarrierSource::recompute;
    for (int round = 0; round < 2; ++round) {  // the arrival counter is left at zero
        memory->fill(sum.allocation, 0xFF);
        memory->fill(q8.allocation, 0xFF);
        executor->execute(fused.graph, options);
        EXPECT_TRUE(bitwise_equal(read(sum), unfused_sum)) << "round " << round;
        EXPECT_EQ(memory->download_as<uint32_t>(q8), unfused_q8) << "round " << round;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Formats, MatvecAddNormTest,
    ::testing::Values(AddNormCase{DType::q4_0, 96, false}, AddNormCase{DType::q4_0, 4096, false},
                      AddNormCase{DType::q4_0, 2048, true}, AddNormCase{DType::q8_0, 96, false},
                      AddNormCase{DType::q8_0, 96, true},
                      AddNormCase{DType::q4_0, 4096, true, 14336},
                      AddNormCase{DType::q4_0, 2048, false, 8192}),
    [](const auto& info) {
        const AddNormCase& c = info.param;
        return fmt::format("{}_{}x{}{}", dtype_name(c.weights), c.rows, c.k, c.q8x ? "_q8x" : "");
    });

// Rows past what the fused mat-vec normalises (4096) or more than one column keep the add and
// the norm fused on their own; the builder says why.
TEST_F(FusionRecipesTest, MatvecAddNormDeclinesLongRows) {
    constexpr uint32_t k = 64, n = 4096 + 32;
    const auto xo = tensor(DType::f32, {k}, "x");
    const auto wo = tensor(DType::q4_0, {k, n}, "w");
    const auto res = tensor(DType::f32, {n}, "res"), nw = tensor(DType::f32, {n}, "nw");
    const auto proj = tensor(DType::f32, {n}, "proj"), sum = tensor(DType::f32, {n}, "sum");
    const auto t0 = tensor(DType::f32, {n}, "t0"), t1 = tensor(DType::f32, {n}, "t1");
    const auto q = tensor(DType::q8x, {n}, "q");
    auto s = executor->begin_recorded();
    ops::quantized_matmul_ggml(s, xo, wo, proj, "blk.0.attn_output");
    ops::add(s, res, proj, sum, "blk.0.attn_residual");
    ops::rms_norm_no_scale_f32(s, sum, t0, 1e-5f, "blk.0.ffn_norm");
    ops::mul(s, t0, nw, t1, "blk.0.ffn_norm.mul");
    ops::quantize_q8(s, t1, q, "blk.0.ffn_norm.q8");
    const FusionResult fused = fuse(s.finish_recording(), ops::fusion_recipes());
    bool declined = false;
    for (const auto& d : fused.diagnostics) {
        if (d.pattern != "quantized_matmul_ggml→add→rms_norm_no_scale→mul→quantize_q8") continue;
        EXPECT_FALSE(d.applied);
        EXPECT_NE(d.reason.find("up to 4096"), std::string::npos) << d.reason;
        declined = true;
    }
    EXPECT_TRUE(declined);
    EXPECT_EQ(fused.graph.dispatch_count(), 3u);  // the mat-vec, add→norm→mul, the quantize
}

// Which gated twin a fused FFN runs follows the gate's kernel and, for the 64-thread pick
// (8192 to 16383 rows), the row length: from k = 4096 on the twin with 2 chunks in flight per
// row (kGluTwins). Recorded only: the kernels' arithmetic is GluSplitKMatvec's.
TEST_F(FusionRecipesTest, GluTwinFollowsThePickAndTheRowLength) {
    struct Case {
        uint32_t rows, k;
        const char* kernel;
    };
    for (const Case& c : {Case{37, 4096, "matvec1_q4_0_128x2_c16_glu_silu"},
                          Case{8193, 2048, "matvec1_q4_0_64x2_c16_glu_silu"},
                          Case{8193, 4096, "matvec1_q4_0_64x2_c16_u2_glu_silu"},
                          Case{16384, 4096, "matvec1_q4_0_32x4_c16_u2_glu_silu"}}) {
        const auto xn = tensor(DType::f32, {c.k}, "ffn_norm.out");
        const auto wg = tensor(DType::q4_0, {c.k, c.rows}, "w_gate");
        const auto wu = tensor(DType::q4_0, {c.k, c.rows}, "w_up");
        const auto gate = tensor(DType::f32, {c.rows}, "gate");
        const auto up = tensor(DType::f32, {c.rows}, "up");
        const auto act = tensor(DType::f32, {c.rows}, "act");
        const auto out = tensor(DType::f32, {c.rows}, "ffn_out");
        auto s = executor->begin_recorded();
        ops::quantized_matmul_ggml(s, xn, wg, gate, "blk.0.ffn_gate");
        ops::quantized_matmul_ggml(s, xn, wu, up, "blk.0.ffn_up");
        ops::silu(s, gate, act, "blk.0.ffn_act");
        ops::mul(s, act, up, out, "blk.0.ffn_mul");
        const FusionResult fused = fuse(s.finish_recording(), ops::fusion_recipes());
        const std::string what = fmt::format("{} rows of {}", c.rows, c.k);
        ASSERT_EQ(fused.applied, 1u) << what;
        EXPECT_EQ(fused.graph.kernels[fused.graph.nodes.at(0).kernel].name, c.kernel) << what;
    }
}

// The up projection's output read by another dispatch too: the fused kernel would not write
// it, so the sibling may not join, and the near miss names the other reader.
TEST_F(FusionRecipesTest, GluSiblingWithAnotherReaderIsANearMiss) {
    constexpr uint32_t k = 64, rows = 8;
    const auto xn = input(random(k), {k}, "ffn_norm.out");
    const auto wg = input_as(DType::q4_0, random(size_t(k) * rows), {k, rows}, "w_gate");
    const auto wu = input_as(DType::q4_0, random(size_t(k) * rows), {k, rows}, "w_up");
    const auto gate = tensor(DType::f32, {rows}, "gate"), up = tensor(DType::f32, {rows}, "up");
    const auto act = tensor(DType::f32, {rows}, "act"), y = tensor(DType::f32, {rows}, "y");
    const auto probe = tensor(DType::f32, {rows}, "probe");
    auto s = executor->begin_recorded();
    ops::quantized_matmul_ggml(s, xn, wg, gate, "blk.0.ffn_gate");
    ops::quantized_matmul_ggml(s, xn, wu, up, "blk.0.ffn_up");
    ops::silu(s, gate, act, "blk.0.ffn_act");
    ops::mul(s, act, up, y, "blk.0.ffn_mul");
    ops::copy(s, up, probe, "probe");
    const FusionResult fused = fuse(s.finish_recording(), ops::fusion_recipes());
    ASSERT_FALSE(fused.diagnostics.empty());
    const FusionDiagnostic& d = fused.diagnostics[0];
    EXPECT_FALSE(d.applied);
    EXPECT_EQ(d.pattern, "quantized_matmul_ggml→silu→mul (+ quantized_matmul_ggml)");
    EXPECT_NE(d.reason.find("output of blk.0.ffn_up also read by"), std::string::npos) << d.reason;
    EXPECT_NE(d.reason.find("(probe)"), std::string::npos) << d.reason;
}

// The up projection recorded first, then its input overwritten before the gate projection
// reads it: the fused dispatch would run up after the overwrite, so the sibling may not join.
TEST_F(FusionRecipesTest, GluSiblingThatWouldMovePastAConflictIsANearMiss) {
    constexpr uint32_t k = 64, rows = 8;
    const auto xn = input(random(k), {k}, "ffn_norm.out");
    const auto x2 = input(random(k), {k}, "x2");
    const auto wg = input_as(DType::q4_0, random(size_t(k) * rows), {k, rows}, "w_gate");
    const auto wu = input_as(DType::q4_0, random(size_t(k) * rows), {k, rows}, "w_up");
    const auto gate = tensor(DType::f32, {rows}, "gate"), up = tensor(DType::f32, {rows}, "up");
    const auto act = tensor(DType::f32, {rows}, "act"), y = tensor(DType::f32, {rows}, "y");
    auto s = executor->begin_recorded();
    ops::quantized_matmul_ggml(s, xn, wu, up, "blk.0.ffn_up");
    ops::copy(s, x2, xn, "overwrite");
    ops::quantized_matmul_ggml(s, xn, wg, gate, "blk.0.ffn_gate");
    ops::silu(s, gate, act, "blk.0.ffn_act");
    ops::mul(s, act, up, y, "blk.0.ffn_mul");
    const FusionResult fused = fuse(s.finish_recording(), ops::fusion_recipes());
    const auto glu = std::find_if(fused.diagnostics.begin(), fused.diagnostics.end(),
                                  [](const FusionDiagnostic& d) {
                                      return d.pattern.starts_with("quantized_matmul_ggml→silu");
                                  });
    ASSERT_NE(glu, fused.diagnostics.end());
    EXPECT_FALSE(glu->applied);
    EXPECT_NE(glu->reason.find("(overwrite) conflicts with node 0 (blk.0.ffn_up) (WAR hazard)"),
              std::string::npos)
        << glu->reason;
}

// A decode layer's norms followed by quantize_q8 (the 8-bit x of the next mat-vecs): each chain
// becomes its fused norm's _q8 variant, which writes the blocks quantize_q8 wrote, bit for bit
// (the same f32 operations), and the residual sum it keeps.
TEST_F(FusionRecipesTest, NormsFollowedByQuantizeQ8WriteTheBlocksThemselves) {
    constexpr int64_t d = 96;  // whole blocks of 32
    const auto xr = input(random(d), {d}, "x"), wr = input(random(d), {d}, "w");
    const auto br = input(random(d), {d}, "resid");
    std::vector<TensorView> t;
    for (int i = 0; i < 9; ++i) t.push_back(tensor(DType::f32, {d}, fmt::format("t{}", i)));
    std::vector<TensorView> q;
    for (const char* name : {"q_norm_mul", "q_wnorm_mul", "q_add_norm_mul", "q_post_norm"})
        q.push_back(tensor(DType::q8x, {d}, name));
    const auto sum = tensor(DType::f32, {d}, "sum"), sum2 = tensor(DType::f32, {d}, "sum2");
    auto record = [&](GraphSession& s) {
        ops::rms_norm_no_scale_f32(s, xr, t[0], 1e-5f, "blk.0.attn_norm");
        ops::mul(s, t[0], wr, t[1], "blk.0.attn_norm.mul");
        ops::quantize_q8(s, t[1], q[0], "blk.0.attn_norm.q8");
        ops::rms_norm(s, xr, wr, t[2], 1e-5f, "output_norm");
        ops::mul(s, t[2], wr, t[3], "output_norm.mul");
        ops::quantize_q8(s, t[3], q[1], "output_norm.q8");
        ops::add(s, xr, br, sum, "blk.0.attn_residual");
        ops::rms_norm_no_scale_f32(s, sum, t[4], 1e-5f, "blk.0.ffn_norm");
        ops::mul(s, t[4], wr, t[5], "blk.0.ffn_norm.mul");
        ops::quantize_q8(s, t[5], q[2], "blk.0.ffn_norm.q8");
        ops::rms_norm_no_scale_f32(s, br, t[6], 1e-5f, "blk.0.post_ffw_norm");  // gemma's post-norm
        ops::mul(s, t[6], wr, t[7], "blk.0.post_ffw_norm.mul");
        ops::add(s, t[7], xr, sum2, "blk.0.ffn_residual");
        ops::rms_norm_no_scale_f32(s, sum2, t[8], 1e-5f, "blk.1.attn_norm");
        ops::mul(s, t[8], wr, t[0], "blk.1.attn_norm.mul");
        ops::quantize_q8(s, t[0], q[3], "blk.1.attn_norm.q8");
    };
    auto words = [&] {
        std::vector<std::vector<uint32_t>> w;
        for (const auto& v : q) w.push_back(memory->download_as<uint32_t>(v));
        return w;
    };
    run(record);
    const auto unfused = words();
    const auto unfused_sums = std::pair{read(sum), read(sum2)};
    for (const auto& v : q) memory->fill(v.allocation, 0xFF);
    for (const auto& v : {sum, sum2}) memory->fill(v.allocation, 0xFF);

    auto s = executor->begin_recorded();
    record(s);
    const FusionResult fused = fuse(s.finish_recording(), ops::fusion_recipes());
    std::vector<std::string> applied;
    for (const auto& diag : fused.diagnostics)
        if (diag.applied) applied.push_back(diag.pattern);
    EXPECT_EQ(applied, (std::vector<std::string>{
                           "rms_norm_no_scale→mul→quantize_q8", "rms_norm→mul→quantize_q8",
                           "add→rms_norm_no_scale→mul→quantize_q8",
                           "rms_norm_no_scale→mul→add→rms_norm_no_scale→mul→quantize_q8"}));
    ASSERT_EQ(fused.graph.dispatch_count(), 4u);
    std::vector<std::string> kernels;
    for (const Node& n : fused.graph.nodes)
        if (n.is_dispatch()) kernels.push_back(fused.graph.kernels[n.kernel].name);
    EXPECT_EQ(kernels, (std::vector<std::string>{"rms_norm_mul_f32_q8", "rms_norm_w_mul_f32_q8",
                                                 "add_rms_norm_mul_f32_q8",
                                                 "rms_norm_mul_add_rms_norm_mul_f32_q8"}));
    EXPECT_TRUE(fused.graph.validate().empty());
    ExecuteOptions options;
    options.barriers = BarrierSource::recompute;
    executor->execute(fused.graph, options);
    EXPECT_EQ(words(), unfused);
    EXPECT_TRUE(bitwise_equal(read(sum), unfused_sums.first));
    EXPECT_TRUE(bitwise_equal(read(sum2), unfused_sums.second));
}

// Rows longer than the fused norms hold in shared memory: the norm and the mul still fuse, the
// quantize_q8 stays a dispatch of its own, and the q8 recipe's builder says why.
TEST_F(FusionRecipesTest, QuantizeQ8AfterALongRowStaysADispatch) {
    constexpr int64_t d = 4096 + 32;
    const auto xr = tensor(DType::f32, {d}, "x"), wr = tensor(DType::f32, {d}, "w");
    const auto t0 = tensor(DType::f32, {d}, "t0"), t1 = tensor(DType::f32, {d}, "t1");
    const auto q = tensor(DType::q8x, {d}, "q");
    auto s = executor->begin_recorded();
    ops::rms_norm_no_scale_f32(s, xr, t0, 1e-5f, "blk.0.attn_norm");
    ops::mul(s, t0, wr, t1, "blk.0.attn_norm.mul");
    ops::quantize_q8(s, t1, q, "blk.0.attn_norm.q8");
    const ComputeGraph captured = s.finish_recording();
    const auto recipes = ops::fusion_recipes();
    const FusionResult fused = fuse(captured, recipes);
    ASSERT_EQ(fused.applied, 1u);
    EXPECT_EQ(fused.diagnostics.at(0).pattern, "rms_norm_no_scale→mul");
    EXPECT_EQ(fused.graph.dispatch_count(), 2u);
    const auto q8 = std::find_if(recipes.begin(), recipes.end(), [](const FusionRecipe& r) {
        return r.pattern == "rms_norm_no_scale→mul→quantize_q8";
    });
    ASSERT_NE(q8, recipes.end());
    std::vector<size_t> chain;  // the dispatches (barriers stand between them)
    for (size_t i = 0; i < captured.nodes.size(); ++i)
        if (captured.nodes[i].is_dispatch()) chain.push_back(i);
    ASSERT_EQ(chain.size(), 3u);
    const FusionBuildResult built = q8->build(captured, chain);
    EXPECT_FALSE(built.fused);
    EXPECT_NE(built.reason.find("up to 4096"), std::string::npos) << built.reason;
}

}  // namespace
}  // namespace graphlens::test
