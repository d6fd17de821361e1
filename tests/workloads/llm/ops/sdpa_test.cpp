// The prefill attention kernel (sdpa.comp) against the reference: f32 and f16 caches, grouped
// query heads, head dims that are not multiples of its 64-wide chunks (up to 256), query counts
// that are not multiples of its 16-query blocks, keys over several 32-key tiles, cached keys
// before the queries, sliding window and soft-capping.
#include <algorithm>

#include "graphlens/ops/ops.h"
#include "graphlens/ops/reference.h"
#include "graphlens/vulkan/kernel_registry.h"
#include "ops_test_support.h"

namespace graphlens::test {
namespace {

namespace ref = graphlens::reference;

struct SdpaCase {
    const char* name;
    DType kv;
    uint32_t head_dim, n_heads, n_kv_heads, seq_q, seq_kv;
    bool causal;
    float softcap;
    uint32_t window;
};

class Sdpa : public OpsTest, public ::testing::WithParamInterface<SdpaCase> {};

TEST_P(Sdpa, MatchesReference) {
    const SdpaCase c = GetParam();
    SdpaParams p;
    p.head_dim = c.head_dim;
    p.n_heads = c.n_heads;
    p.n_kv_heads = c.n_kv_heads;
    p.seq_q = c.seq_q;
    p.seq_kv = c.seq_kv;
    p.causal = c.causal;
    p.softcap = c.softcap;
    p.window = c.window;
    const auto q = random(size_t(p.head_dim) * p.n_heads * p.seq_q, 0.5f);
    const auto k = as_stored(c.kv, random(size_t(p.head_dim) * p.n_kv_heads * p.seq_kv, 0.5f));
    const auto v = as_stored(c.kv, random(size_t(p.head_dim) * p.n_kv_heads * p.seq_kv));
    auto tq = input(q, {p.head_dim, p.n_heads, p.seq_q}, "q");
    auto tk = input_as(c.kv, k, {p.head_dim, p.n_kv_heads, p.seq_kv}, "k");
    auto tv = input_as(c.kv, v, {p.head_dim, p.n_kv_heads, p.seq_kv}, "v");
    auto out = tensor(DType::f32, {p.head_dim, p.n_heads, p.seq_q}, "out");

    auto recorded = executor->begin_recorded();
    ops::sdpa(recorded, tq, tk, tv, out, p);
    const ComputeGraph g = recorded.finish_recording();
    ASSERT_EQ(g.kernels.size(), 1u);
    // Head dims up to 64 take the variant with K and V tiles side by side for more than 8
    // queries; it runs on tensor cores (f16 inputs) where the device uses them.
    const bool hd64 = p.head_dim <= 64 && p.seq_q > 8;
    EXPECT_EQ(g.kernels.front().name,
              "sdpa_" + std::string(dtype_name(c.kv)) + (hd64 ? "_hd64" : ""));
    const bool tc = device().kernels().get(g.kernels.front().name).tensor_cores;
    EXPECT_EQ(tc, hd64 && device().uses_tensor_cores());

    run([&](GraphSession& s) { ops::sdpa(s, tq, tk, tv, out, p); });
    expect_close(out, ref::sdpa(q, k, v, p), tc ? kTolTensorCores : kTolF32);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Sdpa,
    ::testing::Values(
        // name, kv, head_dim, heads, kv heads, seq_q, seq_kv, causal, softcap, window
        SdpaCase{"f32_prefill", DType::f32, 64, 4, 2, 37, 37, true, 0, 0},
        SdpaCase{"f16_prefill", DType::f16, 64, 4, 2, 37, 37, true, 0, 0},
        SdpaCase{"f32_after_cached_keys", DType::f32, 24, 6, 2, 19, 83, true, 0, 0},
        SdpaCase{"f16_full", DType::f16, 20, 3, 1, 5, 141, false, 0, 0},
        SdpaCase{"f16_head_dim_136", DType::f16, 136, 2, 1, 17, 40, true, 0, 0},
        SdpaCase{"f32_head_dim_256_softcap_window", DType::f32, 256, 2, 1, 33, 45, true, 2.0f, 10},
        SdpaCase{"f16_window_shorter_than_a_tile", DType::f16, 32, 4, 4, 50, 70, true, 0, 7},
        SdpaCase{"f16_softcap", DType::f16, 48, 4, 2, 21, 21, true, 1.5f, 0},
        // several 64-key tiles, a partial query block and the tensor-core twin's padding
        SdpaCase{"f32_head_dim_64_long", DType::f32, 64, 4, 2, 150, 230, true, 0, 0},
        SdpaCase{"f16_head_dim_40_full", DType::f16, 40, 2, 1, 45, 130, false, 0, 0},
        SdpaCase{"f32_eight_queries_stay_exact", DType::f32, 64, 2, 2, 8, 40, true, 0, 0}),
    [](const auto& info) { return std::string(info.param.name); });

TEST_F(OpsTest, SdpaRejectsMixedCacheTypes) {
    SdpaParams p;
    p.head_dim = 8;
    p.n_heads = 1;
    p.n_kv_heads = 1;
    p.seq_q = 1;
    p.seq_kv = 1;
    auto q = tensor(DType::f32, {8}, "q");
    auto k = tensor(DType::f32, {8}, "k");
    auto v = tensor(DType::f16, {8}, "v");
    auto out = tensor(DType::f32, {8}, "out");
    auto s = executor->begin_recorded();
    EXPECT_THROW(ops::sdpa(s, q, k, v, out, p), std::invalid_argument);
}

}  // namespace
}  // namespace graphlens::test
