// The fusions that keep an intermediate, convert one or span gaps: add→rms_norm→mul (the
// residual sum stays written for its later readers), gemma's rms_norm→mul→add→rms_norm→mul,
// rope→copy (rope writing its keys straight into an f16 or f32 KV-cache slot) and the
// interleaved q/k norm→mul→rope[→copy] chains. Each graph is recorded
// unfused, fused with the kernel library's recipes, run on the GPU and compared with the
// double-precision references; the kept sum and the cache slot are compared with the unfused
// run as well.
#include <algorithm>

#include "graphlens/graph/fusion.h"
#include "graphlens/ops/fusion_recipes.h"
#include "graphlens/ops/ops.h"
#include "graphlens/ops/reference.h"
#include "graphlens/vulkan/graph_executor.h"
#include "ops_test_support.h"

namespace graphlens::test {
namespace {

namespace ref = graphlens::reference;

std::vector<float> narrow(const std::vector<double>& v) {
    return {v.begin(), v.end()};
}

class FusedKeptOutputTest : public OpsTest {
  protected:
    /// Runs `record` unfused (direct mode), keeps `outputs` in `unfused` and poisons them,
    /// then runs it fused; returns the patterns applied.
    std::vector<std::string> run_unfused_then_fused(
        const std::function<void(GraphSession&)>& record, const std::vector<TensorView>& outputs) {
        run(record);
        unfused.clear();
        for (const auto& o : outputs) {
            unfused.push_back(memory->download(o));
            memory->fill(o.allocation, 0xFF);
        }
        return run_fused(record);
    }
    /// Records `record`, fuses it with the kernel library's recipes and runs the fused graph;
    /// returns the patterns applied.
    std::vector<std::string> run_fused(const std::function<void(GraphSession&)>& record) {
        auto s = executor->begin_recorded();
        record(s);
        const ComputeGraph captured = s.finish_recording();
        const auto recipes = ops::fusion_recipes();
        const FusionResult fused = fuse(captured, recipes);
        EXPECT_TRUE(fused.graph.validate().empty());
        std::vector<std::string> applied;
        for (const auto& d : fused.diagnostics)
            if (d.applied) applied.push_back(d.pattern);
        ExecuteOptions options;
        options.barriers = BarrierSource::recompute;
        executor->execute(fused.graph, options);
        return applied;
    }
    std::vector<std::vector<uint8_t>> unfused;
    static constexpr float eps = 1e-5f;
};

class AddRmsNormMulTest : public FusedKeptOutputTest,
                          public ::testing::WithParamInterface<int64_t> {};

TEST_P(AddRmsNormMulTest, TheSumStaysWrittenForALaterReader) {
    const int64_t dim = GetParam(), rows = 3, n = dim * rows;
    const auto x = random(n), r = random(n), w = random(dim), w1 = random(dim), m = random(n);
    auto tx = input(x, {dim, rows}, "x"), tr = input(r, {dim, rows}, "resid");
    auto tw = input(w, {dim}, "w"), tw1 = input(w1, {dim}, "w1"), tm = input(m, {dim, rows}, "m");
    auto sum = tensor(DType::f32, {dim, rows}, "sum"), t0 = tensor(DType::f32, {dim, rows}, "t0");
    auto normed = tensor(DType::f32, {dim, rows}, "normed");
    auto sum2 = tensor(DType::f32, {dim, rows}, "sum2"), t1 = tensor(DType::f32, {dim, rows}, "t1");
    auto normed2 = tensor(DType::f32, {dim, rows}, "normed2");
    auto later = tensor(DType::f32, {dim, rows}, "later");
    auto record = [&](GraphSession& s) {
        ops::add(s, tx, tr, sum, "blk.0.attn_residual");
        ops::rms_norm_no_scale_f32(s, sum, t0, eps, "blk.0.ffn_norm");
        ops::mul(s, t0, tw, normed, "blk.0.ffn_norm.mul");     // the weight as one broadcast row
        ops::add(s, normed, sum, sum2, "blk.0.ffn_residual");  // reads the sum again
        ops::rms_norm(s, sum2, tw1, t1, eps, "output_norm");   // a weighted norm
        ops::mul(s, tm, t1, normed2, "output_norm.mul");       // full shape, intermediate second
        ops::add(s, sum2, normed2, later, "later");
    };
    const auto applied = run_unfused_then_fused(record, {sum, sum2});
    EXPECT_EQ(applied, (std::vector<std::string>{"add→rms_norm_no_scale→mul", "add→rms_norm→mul"}));
    // The kept sums are the add's values bit for bit.
    EXPECT_EQ(memory->download(sum), unfused[0]);
    EXPECT_EQ(memory->download(sum2), unfused[1]);
    const auto got_sum = read(sum), got_sum2 = read(sum2);
    expect_close(sum, ref::add(x, r), kTolF32, "sum");
    expect_close(normed, ref::rms_norm(got_sum, w, uint32_t(dim), eps), kTolF32, "normed");
    expect_close(sum2, ref::add(read(normed), got_sum), kTolF32, "sum2");
    expect_close(normed2, ref::mul(narrow(ref::rms_norm(got_sum2, w1, uint32_t(dim), eps)), m),
                 kTolF32, "normed2");
    expect_close(later, ref::add(got_sum2, read(normed2)), kTolF32, "later");
}

// 67: rows shorter than the workgroup; 4801: past the kernel's register cache, where the
// row's sum is computed a second time.
INSTANTIATE_TEST_SUITE_P(RowLengths, AddRmsNormMulTest, ::testing::Values(67, 4801));

class NormAddNormTest : public FusedKeptOutputTest,
                        public ::testing::WithParamInterface<int64_t> {};

TEST_P(NormAddNormTest, GemmasPostNormResidualAndNextNormAreOneDispatch) {
    const int64_t dim = GetParam(), rows = 2, n = dim * rows;
    const auto x = random(n), r = random(n), pw = random(dim), w = random(dim);
    auto tx = input(x, {dim, rows}, "ffn_out"), tr = input(r, {dim, rows}, "resid");
    auto tpw = input(pw, {dim}, "post_w"), tw = input(w, {dim}, "w");
    auto t0 = tensor(DType::f32, {dim, rows}, "t0"), t1 = tensor(DType::f32, {dim, rows}, "t1");
    auto sum = tensor(DType::f32, {dim, rows}, "sum"), t2 = tensor(DType::f32, {dim, rows}, "t2");
    auto normed = tensor(DType::f32, {dim, rows}, "normed");
    auto later = tensor(DType::f32, {dim, rows}, "later");
    auto record = [&](GraphSession& s) {
        ops::rms_norm_no_scale_f32(s, tx, t0, 1e-6f, "blk.0.post_ffw_norm");
        ops::mul(s, t0, tpw, t1, "blk.0.post_ffw_norm.mul");
        ops::add(s, t1, tr, sum, "blk.0.ffn_residual");
        ops::rms_norm_no_scale_f32(s, sum, t2, eps, "blk.1.attn_norm");
        ops::mul(s, t2, tw, normed, "blk.1.attn_norm.mul");
        ops::add(s, normed, sum, later, "blk.1.attn_residual");  // reads the sum again
    };
    const auto applied = run_unfused_then_fused(record, {sum});
    EXPECT_EQ(applied,
              (std::vector<std::string>{"rms_norm_no_scale→mul→add→rms_norm_no_scale→mul"}));
    const auto post = narrow(ref::rms_norm(x, pw, uint32_t(dim), 1e-6f));
    expect_close(sum, ref::add(post, r), kTolF32, "sum");
    const auto got_sum = read(sum);
    expect_close(normed, ref::rms_norm(got_sum, w, uint32_t(dim), eps), kTolF32, "normed");
    expect_close(later, ref::add(read(normed), got_sum), kTolF32, "later");
}

INSTANTIATE_TEST_SUITE_P(RowLengths, NormAddNormTest, ::testing::Values(67, 4801));

TEST_F(FusedKeptOutputTest, BuildersDeclineSumsTheyCannotKeep) {
    const int64_t dim = 32, rows = 2, n = dim * rows;
    auto tx = input(random(n), {dim, rows}, "x"), tr = input(random(n), {dim, rows}, "r");
    auto row = input(random(dim), {dim}, "row");
    auto t0 = tensor(DType::f32, {dim, rows}, "t0"), t1 = tensor(DType::f32, {dim, rows}, "t1");
    auto out = tensor(DType::f32, {dim, rows}, "out");
    auto s = executor->begin_recorded();
    ops::add(s, tx, tr, tx, "in_place");  // the sum overwrites an operand
    ops::rms_norm_no_scale_f32(s, tx, t0, eps, "in_place.norm");
    ops::mul(s, t0, row, out, "in_place.mul");
    ops::add(s, tr, row, t1, "broadcast");  // a row broadcast over the rows
    ops::rms_norm_no_scale_f32(s, t1, t0, eps, "broadcast.norm");
    ops::mul(s, t0, row, out, "broadcast.mul");
    const FusionResult fused = fuse(s.finish_recording(), ops::fusion_recipes());
    std::vector<std::string> reasons;
    for (const auto& d : fused.diagnostics)
        if (!d.applied && d.pattern == "add→rms_norm_no_scale→mul") reasons.push_back(d.reason);
    ASSERT_EQ(reasons.size(), 2u);
    EXPECT_NE(reasons[0].find("adds in place"), std::string::npos) << reasons[0];
    EXPECT_NE(reasons[1].find("broadcasts"), std::string::npos) << reasons[1];
}

/// rope → copy into a cache slot at an offset of a larger cache, f16 or f32.
class RopeCopyTest : public FusedKeptOutputTest, public ::testing::WithParamInterface<DType> {};

TEST_P(RopeCopyTest, RopeWritesTheCacheSlotItself) {
    const DType cache_type = GetParam();
    RopeParams p;
    p.head_dim = 16;
    p.n_heads = 3;
    p.seq_len = 2;
    p.freq_base = 10000.0f;
    const int64_t n = int64_t(p.head_dim) * p.n_heads * p.seq_len, slots = 5;
    const auto x = random(n);
    const auto pos = random_ints(p.seq_len, 0, 60);
    const auto ff = random(p.head_dim / 2);
    auto tx = input(x, {p.head_dim, p.n_heads, p.seq_len}, "k"), tpos = input_i32(pos, "pos");
    auto tff = input(ff, {int64_t(p.head_dim / 2)}, "ff");
    auto rotated = tensor(DType::f32, {p.head_dim, p.n_heads, p.seq_len}, "k_rope");
    auto rotated_neox = tensor(DType::f32, {p.head_dim, p.n_heads, p.seq_len}, "k_rope_neox");
    // Two caches of `slots` sequences of n values; this step writes slot 2 of each.
    const auto before = as_stored(cache_type, random(n * slots));
    auto cache = input_as(cache_type, before, {n * slots}, "cache");
    auto neox_cache = input_as(cache_type, before, {n * slots}, "neox_cache");
    const uint64_t slot_offset = dtype_bytes_for(cache_type, uint64_t(n) * 2);
    auto slot = [&](const TensorView& c) {
        return memory->view(c.allocation, cache_type, {p.head_dim, p.n_heads, p.seq_len},
                            slot_offset);
    };
    auto record = [&](GraphSession& s) {
        ops::rope(s, tx, tpos, rotated, p, tff, "blk.0.rope_k");
        ops::copy(s, rotated, slot(cache), "blk.0.k_cache");
        ops::rope_neox_f32(s, tx, tpos, rotated_neox, p, std::nullopt, "blk.1.rope_k");
        ops::copy(s, rotated_neox, slot(neox_cache), "blk.1.k_cache");
    };
    run(record);
    const auto unfused_cache = memory->download(cache);
    const auto unfused_neox = memory->download(neox_cache);
    memory->upload(cache, ggml::quantize(cache_type, before));
    memory->upload(neox_cache, ggml::quantize(cache_type, before));
    const auto applied = run_fused(record);
    EXPECT_EQ(applied, (std::vector<std::string>{"rope→copy", "rope_neox→copy"}));
    // The rotation rounds exactly as the copy did, and nothing outside the slot is touched.
    EXPECT_EQ(memory->download(cache), unfused_cache);
    EXPECT_EQ(memory->download(neox_cache), unfused_neox);
    const double tol = cache_type == DType::f16 ? 1e-3 : kTolF32;
    expect_close(slot(cache), ref::rope(x, pos, ff, p, false), tol, "rope into the cache");
    expect_close(slot(neox_cache), ref::rope(x, pos, {}, p, true), tol, "neox into the cache");
}

INSTANTIATE_TEST_SUITE_P(CacheTypes, RopeCopyTest, ::testing::Values(DType::f16, DType::f32),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

/// qwen3's q/k norms in its recording order: q_norm q_mul k_norm k_mul rope_q rope_k
/// k_cache; the q chain (norm→mul→rope) and the k chain (norm→mul→rope→copy into the cache)
/// interleave, so they fuse across their gaps.
class NormRopeTest : public FusedKeptOutputTest, public ::testing::WithParamInterface<DType> {};

TEST_P(NormRopeTest, InterleavedQkNormRopeChainsFuseAcrossTheirGaps) {
    const DType cache_type = GetParam();
    RopeParams p;
    p.head_dim = 32;
    p.seq_len = 2;
    p.freq_base = 10000.0f;
    p.rope_dim = 24;  // partial rotation: the last 8 values of each head pass through
    const int64_t hd = p.head_dim, T = p.seq_len, q_heads = 4, k_heads = 2;
    const auto q = random(hd * q_heads * T), k = random(hd * k_heads * T);
    const auto qw = random(hd), kw = random(hd), ff = random(p.rope_dim / 2);
    const auto pos = random_ints(T, 0, 60);
    auto tq = input(q, {hd, q_heads * T}, "q"), tk = input(k, {hd, k_heads * T}, "k");
    auto tqw = input(qw, {hd}, "q_norm.weight"), tkw = input(kw, {hd}, "k_norm.weight");
    auto tff = input(ff, {int64_t(p.rope_dim / 2)}, "ff"), tpos = input_i32(pos, "pos");
    auto qn = tensor(DType::f32, {hd, q_heads * T}, "q_norm_raw");
    auto qm = tensor(DType::f32, {hd, q_heads * T}, "q_norm");
    auto kn = tensor(DType::f32, {hd, k_heads * T}, "k_norm_raw");
    auto km = tensor(DType::f32, {hd, k_heads * T}, "k_norm");
    auto q_rope = tensor(DType::f32, {hd, q_heads, T}, "q_rope");
    auto k_rope = tensor(DType::f32, {hd, k_heads, T}, "k_rope");
    // The cache holds 3 steps; this one writes step 1.
    const auto before = as_stored(cache_type, random(hd * k_heads * T * 3));
    auto cache = input_as(cache_type, before, {int64_t(before.size())}, "cache");
    const TensorView slot = memory->view(cache.allocation, cache_type, {hd, k_heads, T},
                                         dtype_bytes_for(cache_type, uint64_t(hd * k_heads * T)));
    auto reshape = [&](const TensorView& v, std::vector<int64_t> shape) {
        return memory->view(v.allocation, v.dtype, shape, v.offset);
    };
    auto record = [&](GraphSession& s) {
        ops::rms_norm_no_scale_f32(s, tq, qn, eps, "blk.0.attn_q_norm");
        ops::mul(s, qn, tqw, qm, "blk.0.attn_q_norm.mul");
        ops::rms_norm_no_scale_f32(s, tk, kn, eps, "blk.0.attn_k_norm");
        ops::mul(s, kn, tkw, km, "blk.0.attn_k_norm.mul");
        RopeParams pq = p, pk = p;
        pq.n_heads = uint32_t(q_heads);
        pk.n_heads = uint32_t(k_heads);
        ops::rope_neox_f32(s, reshape(qm, {hd, q_heads, T}), tpos, q_rope, pq, tff, "blk.0.rope_q");
        ops::rope(s, reshape(km, {hd, k_heads, T}), tpos, k_rope, pk, std::nullopt, "blk.0.rope_k");
        ops::copy(s, k_rope, slot, "blk.0.k_cache");
    };
    run(record);
    const auto unfused_q = memory->download(q_rope);
    const auto unfused_cache = memory->download(cache);
    memory->fill(q_rope.allocation, 0xFF);
    memory->upload(cache, ggml::quantize(cache_type, before));
    const auto applied = run_fused(record);
    EXPECT_EQ(applied, (std::vector<std::string>{"rms_norm_no_scale→mul→rope_neox",
                                                 "rms_norm_no_scale→mul→rope→copy"}));
    EXPECT_EQ(memory->download(q_rope), unfused_q);
    EXPECT_EQ(memory->download(cache), unfused_cache);  // nothing outside the slot either
    RopeParams pq = p, pk = p;
    pq.n_heads = uint32_t(q_heads);
    pk.n_heads = uint32_t(k_heads);
    const auto q_ref =
        ref::rope(narrow(ref::rms_norm(q, qw, uint32_t(hd), eps)), pos, ff, pq, true);
    const auto k_ref =
        ref::rope(narrow(ref::rms_norm(k, kw, uint32_t(hd), eps)), pos, {}, pk, false);
    expect_close(q_rope, q_ref, kTolF32, "q");
    expect_close(slot, k_ref, cache_type == DType::f16 ? 1e-3 : kTolF32, "k in the cache");
}

INSTANTIATE_TEST_SUITE_P(CacheTypes, NormRopeTest, ::testing::Values(DType::f16, DType::f32),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace graphlens::test
