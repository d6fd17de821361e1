// Elementwise ops, norms, activations, softmax, rope and copies against their references.
#include <cmath>

#include "graphlens/ops/ops.h"
#include "graphlens/ops/reference.h"
#include "ops_test_support.h"

namespace graphlens::test {
namespace {

namespace ref = graphlens::reference;

std::vector<double> widen(const std::vector<float>& v) {
    return {v.begin(), v.end()};
}

TEST_F(OpsTest, AddAndMulF16BroadcastARow) {
    const int64_t cols = 37, rows = 5;
    const auto a = as_stored(DType::f16, random(cols * rows));
    const auto b = as_stored(DType::f16, random(cols));
    auto ta = input_as(DType::f16, a, {cols, rows}, "a");
    auto tb = input_as(DType::f16, b, {cols}, "b");
    auto sum = tensor(DType::f16, {cols, rows}, "sum");
    auto prod = tensor(DType::f16, {cols, rows}, "prod");
    run([&](GraphSession& s) {
        ops::add_f16(s, ta, tb, sum);
        ops::mul_f16(s, ta, tb, prod);
    });
    expect_close(sum, ref::add(a, b), kTolF16, "add_f16");
    expect_close(prod, ref::mul(a, b), kTolF16, "mul_f16");
}

TEST_F(OpsTest, MultiAddSumsTwoToNineInputs) {
    const int64_t n = 301;
    for (size_t count = 2; count <= 9; ++count) {
        std::vector<std::vector<float>> values;
        std::vector<TensorView> views;
        std::vector<std::span<const float>> spans;
        for (size_t i = 0; i < count; ++i) {
            values.push_back(random(n));
            views.push_back(input(values.back(), {n}, "x" + std::to_string(i)));
        }
        for (const auto& v : values) spans.emplace_back(v);
        auto out = tensor(DType::f32, {n}, "out");
        run([&](GraphSession& s) { ops::multi_add(s, views, out); });
        expect_close(out, ref::multi_add(spans), kTolF32, std::to_string(count) + " inputs");
    }
}

TEST_F(OpsTest, ScaleGeluSiluSoftcapAndGatedForms) {
    const int64_t n = 517;
    const auto x = random(n, 2.0f), g = random(n);
    auto tx = input(x, {n}, "x"), tg = input(g, {n}, "g");
    auto scaled = tensor(DType::f32, {n}, "scaled"), gelu = tensor(DType::f32, {n}, "gelu"),
         silu = tensor(DType::f32, {n}, "silu"), capped = tensor(DType::f32, {n}, "capped"),
         gelu_mul = tensor(DType::f32, {n}, "gelu_mul"),
         silu_mul = tensor(DType::f32, {n}, "silu_mul");
    run([&](GraphSession& s) {
        ops::scale(s, tx, scaled, -0.37f);
        ops::gelu(s, tx, gelu);
        ops::silu(s, tx, silu);
        ops::softcap(s, tx, capped, 1.5f);
        ops::gelu_mul(s, tx, tg, gelu_mul);
        ops::silu_mul(s, tx, tg, silu_mul);
    });
    expect_close(scaled, ref::scale(x, -0.37f), kTolF32, "scale");
    expect_close(gelu, ref::gelu(x), kTolF32, "gelu");
    expect_close(silu, ref::silu(x), kTolF32, "silu");
    expect_close(capped, ref::softcap(x, 1.5), kTolF32, "softcap");
    const auto gelu_ref = ref::gelu(x), silu_ref = ref::silu(x);
    std::vector<double> gm(n), sm(n);
    for (int64_t i = 0; i < n; ++i) gm[i] = gelu_ref[i] * g[i], sm[i] = silu_ref[i] * g[i];
    expect_close(gelu_mul, gm, kTolF32, "gelu_mul");
    expect_close(silu_mul, sm, kTolF32, "silu_mul");
}

TEST_F(OpsTest, RmsNormF32AndF16WithWeight) {
    // dim > 512 threads x 8 cached values (register cache and the tail loop), not a multiple
    const int64_t dim = 4801, rows = 3;
    const auto x = random(dim * rows), w = random(dim);
    auto tx = input(x, {dim, rows}, "x"), tw = input(w, {dim}, "w");
    auto out = tensor(DType::f32, {dim, rows}, "out");
    const auto x16 = as_stored(DType::f16, x);
    auto tx16 = input_as(DType::f16, x16, {dim, rows}, "x16");
    auto out16 = tensor(DType::f16, {dim, rows}, "out16");
    auto plain = tensor(DType::f32, {dim, rows}, "plain");
    run([&](GraphSession& s) {
        ops::rms_norm(s, tx, tw, out, 1e-5f);
        ops::rms_norm(s, tx16, tw, out16, 1e-5f);
        ops::rms_norm_no_scale_f32(s, tx, plain, 1e-6f);
    });
    expect_close(out, ref::rms_norm(x, w, dim, 1e-5), kTolF32, "f32");
    expect_close(out16, ref::rms_norm(x16, w, dim, 1e-5), kTolF16, "f16");
    expect_close(plain, ref::rms_norm(x, {}, dim, 1e-6), kTolF32, "no scale");
}

TEST_F(OpsTest, FusedRmsNormMulAndMulAdd) {
    const int64_t dim = 45, rows = 7;
    const auto x = random(dim * rows), w = random(dim), m = random(dim), a = random(dim * rows);
    auto tx = input(x, {dim, rows}, "x"), tw = input(w, {dim}, "w"), tm = input(m, {dim}, "m"),
         ta = input(a, {dim, rows}, "a");
    auto nm = tensor(DType::f32, {dim, rows}, "nm"), nma = tensor(DType::f32, {dim, rows}, "nma"),
         wnm = tensor(DType::f32, {dim, rows}, "wnm"),
         wnma = tensor(DType::f32, {dim, rows}, "wnma");
    run([&](GraphSession& s) {
        ops::rms_norm_mul(s, tx, std::nullopt, tm, nm, 1e-5f);
        ops::rms_norm_mul_add(s, tx, std::nullopt, tm, ta, nma, 1e-5f);
        ops::rms_norm_mul(s, tx, tw, ta, wnm, 1e-5f);  // full-shape multiplier
        ops::rms_norm_mul_add(s, tx, tw, tm, ta, wnma, 1e-5f);
    });
    const auto n0 = ref::rms_norm(x, {}, dim, 1e-5), nw = ref::rms_norm(x, w, dim, 1e-5);
    std::vector<double> e_nm(n0.size()), e_nma(n0.size()), e_wnm(n0.size()), e_wnma(n0.size());
    for (size_t i = 0; i < n0.size(); ++i) {
        e_nm[i] = n0[i] * m[i % dim];
        e_nma[i] = e_nm[i] + a[i];
        e_wnm[i] = nw[i] * a[i];
        e_wnma[i] = nw[i] * m[i % dim] + a[i];
    }
    expect_close(nm, e_nm, kTolF32, "rms_norm_mul");
    expect_close(nma, e_nma, kTolF32, "rms_norm_mul_add");
    expect_close(wnm, e_wnm, kTolF32, "weighted rms_norm_mul");
    expect_close(wnma, e_wnma, kTolF32, "weighted rms_norm_mul_add");
}

TEST_F(OpsTest, SoftmaxWithScaleAndMaskIncludingAFullyMaskedRow) {
    const int64_t cols = 133, rows = 4;
    const auto x = random(cols * rows, 3.0f);
    std::vector<float> mask(cols * 2, 0.0f);
    for (int64_t i = 0; i < cols; i += 3) mask[i] = -INFINITY;  // mask row 0: every third
    for (int64_t i = 0; i < cols; ++i) mask[cols + i] = i < 5 ? 0.5f : -INFINITY;
    mask[cols + 1] = -INFINITY;
    auto tx = input(x, {cols, rows}, "x"), tmask = input(mask, {cols, 2}, "mask");
    auto plain = tensor(DType::f32, {cols, rows}, "plain"),
         masked = tensor(DType::f32, {cols, rows}, "masked");
    std::vector<float> all_masked(cols, -INFINITY);
    auto tall = input(all_masked, {cols}, "all_masked");
    auto zero = tensor(DType::f32, {cols, rows}, "zero");
    run([&](GraphSession& s) {
        ops::softmax(s, tx, plain);
        ops::softmax(s, tx, masked, 0.7f, tmask);
        ops::softmax(s, tx, zero, 1.0f, tall);
    });
    expect_close(plain, ref::softmax(x, cols, 1.0, {}, 1), kTolF32, "plain");
    expect_close(masked, ref::softmax(x, cols, 0.7, mask, 2), kTolF32, "masked");
    for (float v : read(zero)) ASSERT_EQ(v, 0.0f);
}

TEST_F(OpsTest, RopeAdjacentAndNeoxWithFreqFactorsAndPartialRotation) {
    RopeParams p;
    p.head_dim = 24;
    p.n_heads = 3;
    p.seq_len = 5;
    p.freq_base = 10000.0f;
    p.freq_scale = 0.5f;
    const int64_t n = int64_t(p.head_dim) * p.n_heads * p.seq_len;
    const auto x = random(n);
    // Small positions: an f32 angle pos * freq carries an absolute error of ~pos * 2^-24, which
    // at pos in the thousands alone exceeds the f32 tolerance against the double reference.
    const auto pos = random_ints(p.seq_len, 0, 60);
    auto tx = input(x, {p.head_dim, p.n_heads, p.seq_len}, "x");
    auto tpos = input_i32(pos, "pos");
    RopeParams partial = p;
    partial.rope_dim = 16;
    const auto ff = random(partial.rope_dim / 2);
    auto tff = input(ff, {int64_t(partial.rope_dim / 2)}, "ff");
    auto full = tensor(DType::f32, {n}, "full"), neox = tensor(DType::f32, {n}, "neox"),
         part = tensor(DType::f32, {n}, "part"), neox_part = tensor(DType::f32, {n}, "neox_part");
    run([&](GraphSession& s) {
        ops::rope(s, tx, tpos, full, p);
        ops::rope_neox_f32(s, tx, tpos, neox, p);
        ops::rope(s, tx, tpos, part, partial, tff);
        ops::rope_neox_f32(s, tx, tpos, neox_part, partial, tff);
    });
    expect_close(full, ref::rope(x, pos, {}, p, false), kTolF32, "rope");
    expect_close(neox, ref::rope(x, pos, {}, p, true), kTolF32, "neox");
    expect_close(part, ref::rope(x, pos, ff, partial, false), kTolF32, "partial rope");
    expect_close(neox_part, ref::rope(x, pos, ff, partial, true), kTolF32, "partial neox");
}

TEST_F(OpsTest, CopyF32AndF32ToF16IntoACacheRow) {
    const int64_t n = 136;  // an f16 row of 272 bytes keeps cache rows 16-byte aligned
    const auto x = random(n);
    auto tx = input(x, {n}, "x");
    auto out = tensor(DType::f32, {n}, "out");
    // Appending at token 3 of an f16 cache with rows of n: only that row is written.
    const AllocationId cache = memory->allocate("cache", 8 * n * 2, AllocationUsage::kv_cache);
    memory->fill(cache, 0xFF);
    const TensorView row = memory->view(cache, DType::f16, {n}, 3 * n * 2);
    run([&](GraphSession& s) {
        ops::copy(s, tx, out);
        ops::copy(s, tx, row);
    });
    expect_close(out, widen(x), 0.0, "f32 copy is exact");
    expect_close(row, widen(x), kTolF16, "f16 cache row");
    const auto before = memory->download(cache, 0, 3 * n * 2);
    for (uint8_t b : before) ASSERT_EQ(b, 0xFF) << "copy wrote outside its row";
}

}  // namespace
}  // namespace graphlens::test
