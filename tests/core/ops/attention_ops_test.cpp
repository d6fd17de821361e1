// sdpa (prefill) and flash_attn_vec (decode) against the reference attention.
#include "graphlens/op_reference.h"
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
        run([&](GraphSession& s) { s.sdpa(tq, tk, tv, out, p); });
        expect_close(out, ref::sdpa(q, k, v, p), kTolF32, causal ? "causal" : "full");
    }
}

struct FlashCase {
    DType cache;
    uint32_t window;
    float softcap;
};

class FlashAttnVec : public OpsTest, public ::testing::WithParamInterface<FlashCase> {};

TEST_P(FlashAttnVec, MatchesReferenceOverSplits) {
    FlashAttnVecParams p;
    p.head_dim = 32;
    p.n_heads = 4;
    p.n_kv_heads = 2;
    p.kv_len = 37;  // of a cache of 48 tokens; splits of 8 leave a partial last split
    p.split_len = 8;
    p.window = GetParam().window;
    p.softcap = GetParam().softcap;
    const uint32_t capacity = 48;
    const DType t = GetParam().cache;
    const auto q = random(size_t(p.head_dim) * p.n_heads, 0.5f);
    const auto k = as_stored(t, random(size_t(p.head_dim) * p.n_kv_heads * capacity, 0.5f));
    const auto v = as_stored(t, random(size_t(p.head_dim) * p.n_kv_heads * capacity));
    auto tq = input(q, {p.head_dim, p.n_heads}, "q");
    auto tk = input_as(t, k, {p.head_dim, p.n_kv_heads, capacity}, "k_cache");
    auto tv = input_as(t, v, {p.head_dim, p.n_kv_heads, capacity}, "v_cache");
    auto tmp = tensor(DType::f32, {int64_t(flash_attn_vec_tmp_elements(p))}, "tmp");
    auto out = tensor(DType::f32, {p.head_dim, p.n_heads}, "out");
    run([&](GraphSession& s) { s.flash_attn_vec(tq, tk, tv, out, tmp, p); });
    expect_close(out, ref::flash_attn_vec(q, k, v, p), kTolF32);
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

}  // namespace
}  // namespace graphlens::test
