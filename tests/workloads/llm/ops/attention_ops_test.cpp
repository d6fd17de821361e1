// sdpa (prefill) and flash_attn_vec (decode) against the reference attention.
#include <algorithm>

#include "graphlens/ops/ops.h"
#include "graphlens/ops/reference.h"
#include "ops_test_support.h"

namespace graphlens::test {
namespace {

namespace ref = graphlens::reference;

TEST_F(OpsTest, SdpaCausalAndFullWithGroupedQueryHeads) {
    SdpaParams p;
    p.head_dim = 24;
    p.n_heads = 4;
    p.n_kv_heads = 2;
    p.seq_q = 5;
    p.seq_kv = 141;  // more keys than a workgroup tile, not a multiple of it
    const auto q = random(size_t(p.head_dim) * p.n_heads * p.seq_q, 0.5f);
    const auto k = random(size_t(p.head_dim) * p.n_kv_heads * p.seq_kv, 0.5f);
    const auto v = random(size_t(p.head_dim) * p.n_kv_heads * p.seq_kv);
    auto tq = input(q, {p.head_dim, p.n_heads, p.seq_q}, "q");
    auto tk = input(k, {p.head_dim, p.n_kv_heads, p.seq_kv}, "k");
    auto tv = input(v, {p.head_dim, p.n_kv_heads, p.seq_kv}, "v");
    for (bool causal : {true, false}) {
        p.causal = causal;
        auto out = tensor(DType::f32, {p.head_dim, p.n_heads, p.seq_q}, "out");
        run([&](GraphSession& s) { ops::sdpa(s, tq, tk, tv, out, p); });
        expect_close(out, ref::sdpa(q, k, v, p), kTolF32, causal ? "causal" : "full");
    }
}

TEST(FlashAttnVecSplitLen, KeepsAboutTwoWorkgroupsPerSmOfALargeGpu) {
    FlashAttnVecParams p;
    p.head_dim = 64;
    p.n_heads = 32;
    p.n_kv_heads = 8;
    auto at = [&](uint32_t kv_len) {
        p.kv_len = kv_len;
        return std::pair{flash_attn_vec_split_len(p), flash_attn_vec_splits(p)};
    };
    EXPECT_EQ(at(513), (std::pair{128u, 5u}));   // llama-3.2-1b decode at context 512
    EXPECT_EQ(at(1151), (std::pair{128u, 9u}));  // 8 whole splits x 32 heads = 256
    EXPECT_EQ(at(1152), (std::pair{256u, 5u}));  // 9 whole would be 288 workgroups
    EXPECT_EQ(at(4097), (std::pair{512u, 9u}));  // context 4096
    EXPECT_EQ(at(1), (std::pair{128u, 1u}));
    p.n_heads = 512;  // more heads than the target: one split
    EXPECT_EQ(at(100000), (std::pair{131072u, 1u}));
    p.n_heads = 32;
    p.split_len = 256;  // a length given is kept
    EXPECT_EQ(at(513), (std::pair{256u, 3u}));
}

TEST(FlashAttnVecSplitLen, TheCapacityScratchServesEveryShorterLength) {
    // The automatic length can give a shorter KV more splits than a longer one (1151 keys: 9
    // of 128; 1152: 5 of 256); a scratch sized for the cache's capacity must hold them all.
    for (uint32_t heads : {8u, 32u, 40u, 64u, 300u}) {
        FlashAttnVecParams cap;
        cap.head_dim = 64;
        cap.n_heads = heads;
        cap.n_kv_heads = heads;
        cap.kv_len = 9000;
        const uint64_t capacity = flash_attn_vec_tmp_capacity_elements(cap);
        for (uint32_t kv = 1; kv <= cap.kv_len; kv += 7) {
            FlashAttnVecParams p = cap;
            p.kv_len = kv;
            ASSERT_LE(flash_attn_vec_tmp_elements(p), capacity) << heads << " heads, KV " << kv;
        }
    }
}

class FlashAttnTest : public OpsTest {
  protected:
    /// flash_attn_vec's arrival counters: zeroed, as the op needs them before its first run.
    TensorView zeroed_counters(const FlashAttnVecParams& p) {
        const auto n = int64_t(flash_attn_vec_counter_elements(p));
        TensorView c = tensor(DType::u32, {n}, "counters");
        memory->upload(c, std::vector<uint32_t>(size_t(n), 0));
        return c;
    }
    /// Every run leaves the counters zero, ready for the next.
    void expect_counters_zero(const TensorView& counters) {
        const auto c = memory->download_as<uint32_t>(counters);
        EXPECT_EQ(c, std::vector<uint32_t>(c.size(), 0u));
    }
    /// A decode attention's operands: a query, K and V caches of `capacity` tokens stored as
    /// `cache` (the values as stored, for the reference), tmp, zeroed counters and out.
    struct Operands {
        std::vector<float> q, k, v;
        TensorView tq, tk, tv, tmp, counters, out;
    };
    Operands operands(const FlashAttnVecParams& p, DType cache, uint32_t capacity) {
        Operands o;
        o.q = random(size_t(p.head_dim) * p.n_heads, 0.5f);
        o.k = as_stored(cache, random(size_t(p.head_dim) * p.n_kv_heads * capacity, 0.5f));
        o.v = as_stored(cache, random(size_t(p.head_dim) * p.n_kv_heads * capacity));
        o.tq = input(o.q, {p.head_dim, p.n_heads}, "q");
        o.tk = input_as(cache, o.k, {p.head_dim, p.n_kv_heads, capacity}, "k_cache");
        o.tv = input_as(cache, o.v, {p.head_dim, p.n_kv_heads, capacity}, "v_cache");
        o.tmp = tensor(DType::f32, {int64_t(flash_attn_vec_tmp_elements(p))}, "tmp");
        o.counters = zeroed_counters(p);
        o.out = tensor(DType::f32, {p.head_dim, p.n_heads}, "out");
        return o;
    }
};

struct FlashCase {
    DType cache;
    uint32_t window;
    float softcap;
};

class FlashAttnVec : public FlashAttnTest, public ::testing::WithParamInterface<FlashCase> {};

TEST_P(FlashAttnVec, MatchesReferenceOverSplits) {
    FlashAttnVecParams p;
    p.head_dim = 32;
    p.n_heads = 4;
    p.n_kv_heads = 2;
    p.kv_len = 37;  // of a cache of 48 tokens; splits of 8 leave a partial last split
    p.split_len = 8;
    p.window = GetParam().window;
    p.softcap = GetParam().softcap;
    const Operands o = operands(p, GetParam().cache, 48);
    run([&](GraphSession& s) {
        ops::flash_attn_vec(s, o.tq, o.tk, o.tv, o.out, o.tmp, o.counters, p);
    });
    expect_close(o.out, ref::flash_attn_vec(o.q, o.k, o.v, p), kTolF32);
    expect_counters_zero(o.counters);
}

INSTANTIATE_TEST_SUITE_P(Caches, FlashAttnVec,
                         ::testing::Values(FlashCase{DType::f32, 0, 0.0f},
                                           FlashCase{DType::f16, 0, 0.0f},
                                           FlashCase{DType::f16, 10, 0.0f},
                                           FlashCase{DType::f32, 0, 2.0f}),
                         [](const auto& info) {
                             return std::string(dtype_name(info.param.cache)) + "_window" +
                                    std::to_string(info.param.window) + "_softcap" +
                                    std::to_string(int(info.param.softcap));
                         });

/// A decode attention's shape, as the parameterised tests list it.
struct AttnShape {
    uint32_t head_dim, n_heads, n_kv_heads, kv_len, split_len, window;
    float softcap = 0.0f;
    FlashAttnVecParams params() const {
        FlashAttnVecParams p;
        p.head_dim = head_dim;
        p.n_heads = n_heads;
        p.n_kv_heads = n_kv_heads;
        p.kv_len = kv_len;
        p.split_len = split_len;
        p.window = window;
        p.softcap = softcap;
        return p;
    }
};

struct GqaCase {
    const char* name;
    DType cache;
    AttnShape shape;
};

class FlashAttnVecGqa : public FlashAttnTest, public ::testing::WithParamInterface<GqaCase> {};

// Grids of >= 128 (split, KV head, head batch) workgroups take flash_attn_vec_gqa, which
// serves up to 4 query heads of a KV head per workgroup: partial batches, head dims that are
// not a power of two, splits longer than one 256-key chunk, window and softcap must all match.
TEST_P(FlashAttnVecGqa, ServesQueryHeadsOfAKvHeadTogetherOnLargeGrids) {
    const GqaCase c = GetParam();
    const FlashAttnVecParams p = c.shape.params();
    const Operands o = operands(p, c.cache, p.kv_len + 3);

    auto recorded = executor->begin_recorded();
    ops::flash_attn_vec(recorded, o.tq, o.tk, o.tv, o.out, o.tmp, o.counters, p);
    const ComputeGraph g = recorded.finish_recording();
    const auto split = std::find_if(g.nodes.begin(), g.nodes.end(), [](const Node& n) {
        return n.is_dispatch() && n.op == OpKind::flash_attn_vec;
    });
    ASSERT_NE(split, g.nodes.end());
    EXPECT_EQ(g.kernels[split->kernel].name,
              "flash_attn_vec_gqa_" + std::string(dtype_name(c.cache)));

    run([&](GraphSession& s) {
        ops::flash_attn_vec(s, o.tq, o.tk, o.tv, o.out, o.tmp, o.counters, p);
    });
    expect_close(o.out, ref::flash_attn_vec(o.q, o.k, o.v, p), kTolF32);
    expect_counters_zero(o.counters);
}

INSTANTIATE_TEST_SUITE_P(
    Grids, FlashAttnVecGqa,
    ::testing::Values(
        // 38 splits x 2 KV heads x 2 batches (4 + 2 heads), head dim 20
        GqaCase{"partial_batch_f16", DType::f16, {20, 12, 2, 300, 8, 0}},
        GqaCase{"partial_batch_window_f32", DType::f32, {20, 12, 2, 300, 8, 50}},
        // 2 splits of 300 keys (two chunks each) x 64 KV heads x 1 batch of 2 heads
        GqaCase{"two_chunks_softcap_f32", DType::f32, {8, 128, 64, 600, 300, 0, 2.0f}}),
    [](const auto& info) { return std::string(info.param.name); });

struct RerunCase {
    const char* name;
    const char* kernel;
    AttnShape shape;
};

class FlashAttnVecRerun : public FlashAttnTest, public ::testing::WithParamInterface<RerunCase> {};

// One dispatch: the last workgroup of each head (batch) to finish combines the splits, found
// by counting arrivals; it resets its counter, so running the same recorded graph again
// gives the same bits. With one split the only workgroup writes out without a counter.
TEST_P(FlashAttnVecRerun, SameRecordedGraphTwiceGivesTheSameBits) {
    const RerunCase c = GetParam();
    const FlashAttnVecParams p = c.shape.params();
    const Operands o = operands(p, DType::f32, p.kv_len + 5);

    auto recorded = executor->begin_recorded();
    ops::flash_attn_vec(recorded, o.tq, o.tk, o.tv, o.out, o.tmp, o.counters, p, "attn");
    const ComputeGraph g = recorded.finish_recording();
    ASSERT_EQ(g.dispatch_count(), 1u);
    const Node& n = *std::find_if(g.nodes.begin(), g.nodes.end(),
                                  [](const Node& x) { return x.is_dispatch(); });
    EXPECT_EQ(g.kernels[n.kernel].name, c.kernel);

    std::vector<std::vector<uint8_t>> runs;
    for (int r = 0; r < 3; ++r) {
        memory->fill(o.out.allocation, 0xFF);  // NaN: an unwritten head fails
        executor->execute(g);
        runs.push_back(memory->download(o.out));
        expect_counters_zero(o.counters);
        expect_close(o.out, ref::flash_attn_vec(o.q, o.k, o.v, p), kTolF32,
                     "run " + std::to_string(r));
    }
    EXPECT_EQ(runs[1], runs[0]);
    EXPECT_EQ(runs[2], runs[0]);
}

INSTANTIATE_TEST_SUITE_P(
    Grids, FlashAttnVecRerun,
    ::testing::Values(
        // 5 splits (the last partial) x 4 heads
        RerunCase{"splits", "flash_attn_vec_f32", {32, 4, 2, 37, 8, 0}},
        // 38 splits x 2 KV heads x 2 head batches (4 + 2 heads)
        RerunCase{"gqa_splits", "flash_attn_vec_gqa_f32", {20, 12, 2, 300, 8, 0}},
        // n_splits == 1: a split of two chunks, and one with a sliding window
        RerunCase{"one_split", "flash_attn_vec_f32", {32, 4, 2, 300, 512, 0}},
        RerunCase{"one_split_window", "flash_attn_vec_f32", {16, 4, 4, 37, 64, 10}}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace graphlens::test
