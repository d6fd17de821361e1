// The fusion table of the kernel library: every pattern applies on a recorded graph, and the
// fused graph computes what the unfused one does.
#include <algorithm>

#include "graphlens/fusion.h"
#include "graphlens/graph_executor.h"
#include "graphlens/op_fusion_recipes.h"
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
        s.rms_norm_no_scale_f32(x, tmp[0], 1e-5f, "blk.0.attn_norm");
        s.mul(tmp[0], w, tmp[1], "blk.0.attn_norm.mul");
        s.add(tmp[1], resid, outs[0], "blk.0.attn_norm.add");
        s.rms_norm_no_scale_f32(resid, tmp[2], 1e-5f, "blk.0.ffn_norm");
        s.mul(tmp[2], w, outs[1], "blk.0.ffn_norm.mul");
        s.rms_norm(x, w, tmp[3], 1e-5f, "output_norm");
        s.mul(g, tmp[3], outs[2], "output_norm.mul");  // intermediate as the first operand
        s.gelu(x, tmp[4], "gelu");
        s.mul(tmp[4], g, outs[3], "gelu.mul");
        s.silu(resid, tmp[5], "silu");
        s.mul(tmp[5], g, outs[4], "silu.mul");
        s.add(addend[0], addend[1], tmp[6], "sum.0");
        s.add(tmp[6], addend[2], tmp[7], "sum.1");
        s.add(addend[3], tmp[7], outs[5], "sum.2");  // intermediate as the second operand
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
    s.gelu(x, tmp[0], "gelu");
    s.mul(tmp[0], w, outs[0], "gelu.mul.broadcast");
    // An f16 norm: the fused norm kernels are f32 only.
    auto x16 = input_as(DType::f16, random(n), {dim, rows}, "x16");
    auto y16 = tensor(DType::f16, {dim, rows}, "y16");
    s.rms_norm(x16, w, y16, 1e-5f, "norm16");
    auto z16 = tensor(DType::f16, {dim, rows}, "z16");
    s.mul_f16(y16, y16, z16, "norm16.mul");
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
        s.quantized_matmul_ggml(xn, wq, q, "blk.0.attn_q");
        s.quantized_matmul_ggml(xn, wk, kk, "blk.0.attn_k");
        s.quantized_matmul_ggml(xn, wv, v, "blk.0.attn_v");
        s.rope(q, pos, q_rot, rq, std::nullopt, "blk.0.rope_q");
        s.rope(kk, pos, k_rot, rk, std::nullopt, "blk.0.rope_k");
        s.copy(k_rot, k_cache, "blk.0.k_cache");
        s.copy(v, v_cache, "blk.0.v_cache");
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

}  // namespace
}  // namespace graphlens::test
