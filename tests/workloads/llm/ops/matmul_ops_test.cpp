// Matrix products (f32/f16, MLX affine, ggml blocks, expert-routed), top-k routing and
// get_rows against references computed on the weights as stored (dequantised on the CPU).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "graphlens/ops/dispatch_helpers.h"
#include "graphlens/ops/ggml_blocks.h"
#include "graphlens/ops/ops.h"
#include "graphlens/ops/reference.h"
#include "graphlens/vulkan/kernel_catalog.h"
#include "ops_test_support.h"

namespace graphlens::test {
namespace {

namespace ref = graphlens::reference;

// Column counts: one vector, a few (mat-vec kernel), and enough for the tiled kernel.
constexpr uint32_t kColumns[] = {1, 3, 11};

struct MatmulCase {
    DType dtype;
    uint32_t k;
};

class FloatMatmul : public OpsTest, public ::testing::WithParamInterface<MatmulCase> {};

TEST_P(FloatMatmul, MatchesReferenceForVectorsAndMatrices) {
    const auto [dtype, k] = GetParam();
    const uint32_t n = 37;
    const auto w = as_stored(dtype, random(size_t(n) * k));
    auto tw = input_as(dtype, w, {k, n}, "w");
    for (uint32_t m : kColumns) {
        const auto x = random(size_t(k) * m);
        auto tx = input(x, {k, m}, "x");
        auto out = tensor(DType::f32, {n, m}, "out");
        run([&](GraphSession& s) { ops::matmul(s, tw, tx, out); });
        expect_close(out, ref::matmul(w, x, n, k, m), product_tol(dtype, m),
                     "m = " + std::to_string(m));
    }
}

INSTANTIATE_TEST_SUITE_P(Weights, FloatMatmul,
                         ::testing::Values(MatmulCase{DType::f32, 45}, MatmulCase{DType::f16, 42},
                                           MatmulCase{DType::f16, 136}),  // 136: 8-wide f16 path
                         [](const auto& info) {
                             return std::string(dtype_name(info.param.dtype)) + "_k" +
                                    std::to_string(info.param.k);
                         });

class GgmlMatmul : public OpsTest, public ::testing::WithParamInterface<DType> {};

TEST_P(GgmlMatmul, MatchesReferenceOnDequantisedWeights) {
    const DType t = GetParam();
    // An odd number of blocks per row: with 21 rows the tensor ends off a 4-byte boundary
    // (the 16-bit-word kernels), with 22 rows on one (the 32-bit-word kernels).
    const uint32_t k = dtype_block_elements(t) == 32 ? 17 * 32 : 3 * 256;
    for (uint32_t n : {21u, 22u}) {
        const auto w = random(size_t(n) * k);
        auto tw = input_as(t, w, {k, n}, "w");
        const auto stored = as_stored(t, w);
        for (uint32_t m : kColumns) {
            const auto x = random(size_t(k) * m);
            auto tx = input(x, {k, m}, "x");
            auto out = tensor(DType::f32, {n, m}, "out");
            run([&](GraphSession& s) { ops::quantized_matmul_ggml(s, tx, tw, out); });
            expect_close(out, ref::matmul(stored, x, n, k, m), product_tol(t, m),
                         "n = " + std::to_string(n) + ", m = " + std::to_string(m));
        }
    }
}

TEST_P(GgmlMatmul, ExpertRoutedMatvecPicksEachSlotsExpert) {
    const DType t = GetParam();
    const uint32_t k = 256, n = 13;
    MatmulIdParams p;
    p.n_experts = 5;
    p.n_ids = 2;
    p.n_tokens = 3;
    const auto w = random(size_t(p.n_experts) * n * k);
    auto tw = input_as(t, w, {k, n, p.n_experts}, "experts");
    const auto stored = as_stored(t, w);
    const auto ids = random_ints(p.n_ids * p.n_tokens, 0, int32_t(p.n_experts) - 1);
    auto tids = input_i32(ids, "ids");
    for (uint32_t slots : {1u, p.n_ids}) {  // shared x (gate/up) and one x per slot (down)
        const auto x = random(size_t(k) * slots * p.n_tokens);
        auto tx = input(x, {k, slots, p.n_tokens}, "x");
        auto out = tensor(DType::f32, {n, p.n_ids, p.n_tokens}, "out");
        run([&](GraphSession& s) { ops::quantized_matmul_id_ggml(s, tx, tw, tids, out, p); });
        expect_close(out, ref::matmul_id(stored, x, ids, n, k, p, slots), kTolF32,
                     "x slots " + std::to_string(slots));
    }
}

TEST_P(GgmlMatmul, GetRowsDequantisesTheChosenRows) {
    const DType t = GetParam();
    const uint32_t row = 256, rows = 9;
    const auto table = random(size_t(row) * rows);
    auto tt = input_as(t, table, {row, rows}, "table");
    const auto ids = random_ints(6, 0, rows - 1);
    auto tids = input_i32(ids, "ids");
    auto out = tensor(DType::f32, {row, int64_t(ids.size())}, "out");
    run([&](GraphSession& s) { ops::get_rows(s, tt, tids, out); });
    expect_close(out, ref::get_rows(as_stored(t, table), ids, row), kTolF32);
}

INSTANTIATE_TEST_SUITE_P(Formats, GgmlMatmul,
                         ::testing::Values(DType::q4_0, DType::q8_0, DType::q4_k, DType::q6_k),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// Every split-k mat-vec kernel (matvec_blocks.comp, "matvec1_<format>_<threads>x<rows>_c<chunk>…")
// dispatched directly: rows not a multiple of the kernel's rows per workgroup, a short k (fewer
// chunks than threads) and a long one (the unrolled main loop plus a remainder for every thread
// count), and several columns (grid y) with a column stride.
class SplitKMatvec : public OpsTest, public ::testing::WithParamInterface<std::string> {};

/// Weight format and rows per workgroup of a split-k kernel, from its name
/// ("matvec1_<format>_<threads>x<rows>_c<chunk>...").
struct SplitKKernel {
    DType format;
    uint32_t rows;
};
SplitKKernel split_k_kernel(const std::string& kernel) {
    const size_t x_pos = kernel.find('x', 8), c_pos = kernel.find("_c", x_pos);
    return {kernel.rfind("matvec1_q4_0", 0) == 0 ? DType::q4_0 : DType::q8_0,
            uint32_t(std::stoul(kernel.substr(x_pos + 1, c_pos - x_pos - 1)))};
}

/// One dispatch of a split-k kernel: n rows of k weights (format t) times m columns.
DispatchDesc split_k_dispatch(const std::string& kernel, uint32_t n, uint32_t k, uint32_t m,
                              std::vector<BoundView> bindings, OpKind op) {
    const SplitKKernel sk = split_k_kernel(kernel);
    struct {
        uint32_t n, k, m, row_bytes, x_stride, y_stride, bits, group_size, expert_bytes, n_ids,
            x_slot_stride;
    } p{n, k, m, uint32_t(dtype_bytes_for(sk.format, k)), k, n, 0, 0, 0, 0, 0};
    DispatchDesc d;
    d.kernel = kernel;
    d.bindings = std::move(bindings);
    d.push_constants = push_constant_bytes(p);
    d.workgroups = {(n + sk.rows - 1) / sk.rows, m, 1};
    d.op = op;
    d.label = kernel;
    return d;
}

/// x quantised per 32 elements as the _xq8 kernels read it (ggml's q8 rule: d = max|x| / 127,
/// q = x / d rounded to nearest even), and the values it stands for.
struct QuantisedX {
    std::vector<uint32_t> words;
    std::vector<float> values;
};
QuantisedX quantise_x8(const std::vector<float>& x) {
    QuantisedX r;
    r.values.resize(x.size());
    for (size_t b = 0; b < x.size() / 32; ++b) {
        float amax = 0;
        for (size_t i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[32 * b + i]));
        const float d = amax / 127.0f, id = d != 0 ? 1.0f / d : 0.0f;
        uint32_t w[8] = {};
        for (size_t i = 0; i < 32; ++i) {
            const auto q = int32_t(std::nearbyint(x[32 * b + i] * id));
            w[i / 4] |= uint32_t(q & 255) << (8 * (i % 4));
            r.values[32 * b + i] = float(q) * d;
        }
        r.words.insert(r.words.end(), std::begin(w), std::end(w));
        uint32_t bits = 0;
        std::memcpy(&bits, &d, 4);
        r.words.push_back(bits);
        r.words.push_back(0);
    }
    return r;
}

/// The x operand of a split-k kernel: f32 values, or for an _xq8 kernel those values
/// quantised (a u32 tensor of q8x words); `values` is what the kernel multiplies by.
struct SplitKX {
    TensorView tensor;
    std::vector<float> values;
};

/// A split-k kernel's test: its x operand of k x m random values.
class SplitKTest : public OpsTest, public ::testing::WithParamInterface<std::string> {
  protected:
    SplitKX x_operand(const std::string& kernel, uint32_t k, uint32_t m) {
        const auto x = random(size_t(k) * m);
        if (!kernel.ends_with("_xq8")) return {input(x, {k, m}, "x"), x};
        QuantisedX xq = quantise_x8(x);
        auto t = tensor(DType::u32, {int64_t(xq.words.size())}, "x_q8");
        memory->upload(t, xq.words);
        return {t, std::move(xq.values)};
    }
    /// Skips an _xq8 kernel on a device without integer dot products; true when skipped.
    bool lacks_integer_dot(const std::string& kernel) {
        return kernel.ends_with("_xq8") && !device().facts().integer_dot_product;
    }
};

/// The split-k kernels ("matvec1_…") whose name passes `keep`.
template <class Keep>
std::vector<std::string> matvec1_kernels(Keep&& keep) {
    std::vector<std::string> names;
    for (const auto& name : KernelCatalog::embedded().names())
        if (name.rfind("matvec1_", 0) == 0 && keep(name)) names.push_back(name);
    return names;
}

bool is_glu(const std::string& name) {
    return name.find("_glu_") != std::string::npos;
}
bool is_yq8(const std::string& name) {
    return name.find("_yq8") != std::string::npos;
}
/// The epilogue variants: rotated (_rope[_ff]) and/or f16 (_f16) outputs.
bool is_epilogue(const std::string& name) {
    return name.find("_rope") != std::string::npos || name.find("_f16") != std::string::npos;
}

/// The variants that add the residual and write the next norm's q8x row (_anq8): more
/// bindings, tested through their fusion (fusion_recipes_test.cpp, MatvecAddNormTest).
bool is_add_norm(const std::string& name) {
    return name.find("_anq8") != std::string::npos;
}

/// The variants over x given quantised to 8 bits (_xq8, the suffix last).
bool is_xq8(const std::string& name) {
    return name.ends_with("_xq8");
}

std::vector<std::string> split_k_matvec_kernels() {
    return matvec1_kernels([](const std::string& n) {
        return !is_glu(n) && !is_epilogue(n) && !is_xq8(n) && !is_add_norm(n);
    });
}
/// The gated variants: act(W x) * (U x) (_glu_silu, _glu_gelu), over f32 or q8x x.
std::vector<std::string> glu_matvec_kernels() {
    return matvec1_kernels([](const std::string& n) { return is_glu(n) && !is_yq8(n); });
}
/// The gated variants that also write their output as q8x blocks (_yq8).
std::vector<std::string> glu_q8_out_matvec_kernels() {
    return matvec1_kernels(is_yq8);
}
/// The rotating and/or f16-writing variants, over f32 or q8x x.
std::vector<std::string> epilogue_matvec_kernels() {
    return matvec1_kernels(is_epilogue);
}

TEST_P(SplitKMatvec, MatchesReferenceForShortAndLongRows) {
    const std::string& kernel = GetParam();
    const DType t = split_k_kernel(kernel).format;
    const size_t c_pos = kernel.rfind("_c");
    // 32-bit-word kernels ("_w…") need a view size that is a multiple of 4 bytes: 38 rows.
    const bool words32 = kernel.find("_w", c_pos) != std::string::npos;
    const uint32_t n = words32 ? 38 : 37, m = 3;
    for (uint32_t k : {5u * 32, 293u * 32}) {
        const auto w = random(size_t(n) * k);
        auto tw = input_as(t, w, {k, n}, "w");
        const auto x = random(size_t(k) * m);
        auto tx = input(x, {k, m}, "x");
        auto out = tensor(DType::f32, {n, m}, "out");
        const DispatchDesc d = split_k_dispatch(kernel, n, k, m, {{0, tw}, {1, tx}, {2, out}},
                                                OpKind::quantized_matmul_ggml);
        run([&](GraphSession& s) { s.dispatch(d); });
        expect_close(out, ref::matmul(as_stored(t, w), x, n, k, m), kTolF32,
                     "k = " + std::to_string(k));
    }
}

/// The kernel of the one dispatch quantized_matmul_ggml records for these operands.
std::string recorded_kernel(GraphExecutor& executor, const TensorView& x, const TensorView& w,
                            const TensorView& out) {
    auto recorded = executor.begin_recorded();
    ops::quantized_matmul_ggml(recorded, x, w, out);
    const ComputeGraph g = recorded.finish_recording();
    const auto node = std::find_if(g.nodes.begin(), g.nodes.end(),
                                   [](const Node& nd) { return nd.is_dispatch(); });
    return node == g.nodes.end() ? std::string("(no dispatch)")
                                 : std::string(g.kernels[node->kernel].name);
}

// The op's pick for one column of x (f32, or q8x: the _xq8 twin), for Q4_0 and Q8_0 at every
// row count where the choice changes (thread counts by rows, workloads/llm/ops/src/matmul.cpp),
// with odd row counts, against the product with the values x stands for.
class OneColumnTest : public OpsTest {
  protected:
    void check_picks(DType x_type) {
        const uint32_t k = 96;
        for (DType t : {DType::q4_0, DType::q8_0})
            for (uint32_t n : {5u, 8193u, 16385u}) {
                const auto w = random(size_t(n) * k);
                auto tw = input_as(t, w, {k, n}, "w");
                const auto x = random(k);
                auto tx = x_type == DType::q8x ? input_as(DType::q8x, x, {k}, "x_q8")
                                               : input(x, {k}, "x");
                auto out = tensor(DType::f32, {n}, "out");
                const std::string what = std::string(dtype_name(t)) + ", n = " + std::to_string(n);
                const std::string kernel = recorded_kernel(*executor, tx, tw, out);
                EXPECT_EQ(kernel.rfind("matvec1_", 0), 0u) << what << ": " << kernel;
                EXPECT_EQ(kernel.ends_with("_xq8"), x_type == DType::q8x) << what << ": " << kernel;
                run([&](GraphSession& s) { ops::quantized_matmul_ggml(s, tx, tw, out); });
                expect_close(out, ref::matmul(as_stored(t, w), as_stored(x_type, x), n, k, 1),
                             kTolF32, what);
            }
    }
};

TEST_F(OneColumnTest, OfQ4_0AndQ8_0TakesTheSplitKMatvec) {
    check_picks(DType::f32);
}

// quantize_q8: blocks of 32 (37 of them: not a multiple of the workgroup) as the CPU quantiser
// makes them; values at a rounding tie may land one step away (the GPU's 1 / d), hence the
// quantised tolerance.
TEST_F(OpsTest, QuantizeQ8WritesTheCpuQuantisersBlocks) {
    const auto x = random(37 * 32, 3.0f);
    auto tx = input(x, {32, 37}, "x");
    auto out = tensor(DType::q8x, {32, 37}, "x_q8");
    run([&](GraphSession& s) { ops::quantize_q8(s, tx, out); });
    std::vector<ggml::BlockQ8x> want(37);
    ggml::quantize_row_q8x(x.data(), want.data(), int64_t(x.size()));
    const auto bytes = memory->download(out);
    ASSERT_EQ(bytes.size(), want.size() * sizeof(ggml::BlockQ8x));
    std::vector<ggml::BlockQ8x> got(want.size());
    std::memcpy(got.data(), bytes.data(), bytes.size());
    size_t ties = 0;
    for (size_t b = 0; b < want.size(); ++b) {
        SCOPED_TRACE("block " + std::to_string(b));
        // Vulkan lets a division be off by 2.5 ulp, so d (max|x| / 127) may be an ulp away.
        EXPECT_NEAR(got[b].d, want[b].d, 4 * std::numeric_limits<float>::epsilon() * want[b].d);
        EXPECT_EQ(got[b].spare, 0u);
        const float id = want[b].d != 0.0f ? 1.0f / want[b].d : 0.0f;
        for (int i = 0; i < 32; ++i) {
            // Exactly the CPU's rounding, except where x / d lies on a tie between two
            // integers, which an ulp of d or 1/d can move across.
            const float scaled = x[32 * b + size_t(i)] * id;
            const bool tie = std::fabs(std::fabs(scaled - std::trunc(scaled)) - 0.5f) < 1e-4f;
            if (tie) {
                ++ties;
                EXPECT_LE(std::abs(got[b].qs[i] - want[b].qs[i]), 1) << "value " << i;
            } else {
                EXPECT_EQ(got[b].qs[i], want[b].qs[i]) << "value " << i << ": x / d = " << scaled;
            }
        }
    }
    EXPECT_LT(ties, 37u * 32u / 100) << "too few values are judged exactly";
}

// One column of x given as q8x: the op takes the pick's _xq8 twin and multiplies by the values
// the blocks stand for; more columns are a clear error.
TEST_F(OneColumnTest, OfQ8xTakesTheIntegerDotMatvec) {
    if (!device().facts().integer_dot_product)
        GTEST_SKIP() << "the device has no shaderIntegerDotProduct";
    check_picks(DType::q8x);
    // A vocabulary past 64 x 4's grid (gemma-3's 262144 rows) keeps the 32 x 8 twin.
    {
        const uint32_t n = 262145, k = 96;
        const std::string kernel =
            recorded_kernel(*executor, tensor(DType::q8x, {k}, "x_q8"),
                            tensor(DType::q4_0, {k, n}, "w"), tensor(DType::f32, {n}, "out"));
        EXPECT_EQ(kernel, "matvec1_q4_0_32x8_c16_u2_xq8");
    }
    auto w = input_as(DType::q4_k, random(256 * 4), {256, 4}, "w_q4_k");
    auto x2 = input_as(DType::q8x, random(256 * 2), {256, 2}, "x_q8_two_columns");
    auto out = tensor(DType::f32, {4, 2}, "out");
    auto s = executor->begin_recorded();
    try {
        ops::quantized_matmul_ggml(s, x2, w, out, "two_columns");
        ADD_FAILURE() << "two columns of q8x x were accepted";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("two_columns"), std::string::npos) << what;
        EXPECT_NE(what.find("one column"), std::string::npos) << what;
    }
}

INSTANTIATE_TEST_SUITE_P(Kernels, SplitKMatvec, ::testing::ValuesIn(split_k_matvec_kernels()),
                         [](const auto& info) { return info.param; });

// The gated variants (the fused gate, up and act→mul of a decode FFN): the gate weight's
// product through the activation times the up weight's product, for rows not a multiple of the
// kernel's rows per workgroup, a short and a long k, and several columns.
class GluSplitKMatvec : public SplitKTest {};

TEST_P(GluSplitKMatvec, MatchesActivationOfGateTimesUp) {
    const std::string& kernel = GetParam();
    if (lacks_integer_dot(kernel)) GTEST_SKIP() << "the device has no shaderIntegerDotProduct";
    const DType t = split_k_kernel(kernel).format;
    const bool gelu = kernel.find("_glu_gelu") != std::string::npos;
    const uint32_t n = 37, m = 3;
    for (uint32_t k : {5u * 32, 293u * 32}) {
        const auto wg = random(size_t(n) * k), wu = random(size_t(n) * k);
        auto [tx, x] = x_operand(kernel, k, m);
        auto tg = input_as(t, wg, {k, n}, "w_gate");
        auto tu = input_as(t, wu, {k, n}, "w_up");
        auto out = tensor(DType::f32, {n, m}, "out");
        const DispatchDesc d = split_k_dispatch(
            kernel, n, k, m, {{0, tg}, {1, tx}, {2, out}, {6, tu}}, OpKind::matvec_glu);
        run([&](GraphSession& s) { s.dispatch(d); });
        const auto gate = ref::matmul(as_stored(t, wg), x, n, k, m);
        const auto up = ref::matmul(as_stored(t, wu), x, n, k, m);
        const std::vector<float> gate_f(gate.begin(), gate.end());
        auto expected = gelu ? ref::gelu(gate_f) : ref::silu(gate_f);
        for (size_t i = 0; i < expected.size(); ++i) expected[i] *= up[i];
        expect_close(out, expected, kTolF32, "k = " + std::to_string(k));
    }
}

INSTANTIATE_TEST_SUITE_P(Kernels, GluSplitKMatvec, ::testing::ValuesIn(glu_matvec_kernels()),
                         [](const auto& info) { return info.param; });

// The gated variants that also write their output quantised (_yq8: the fused ...→mul→
// quantize_q8 before a decode FFN's down projection): the f32 output as the plain gated kernel
// computes it, and q8x blocks bit for bit what quantize_q8 makes of that output, though each
// block of 32 rows is finished by whichever of its workgroups arrives last. Three blocks a
// column, two columns, run twice: the arrival counters must be left at zero.
class GluQ8OutSplitKMatvec : public SplitKTest {};

TEST_P(GluQ8OutSplitKMatvec, QuantisesEachBlockOfItsOutputAsQuantizeQ8Does) {
    const std::string& kernel = GetParam();
    if (lacks_integer_dot(kernel)) GTEST_SKIP() << "the device has no shaderIntegerDotProduct";
    const DType t = split_k_kernel(kernel).format;
    const std::string plain = kernel.substr(0, kernel.find("_yq8")) + "_xq8";
    const uint32_t n = 96, m = 2, k = 9 * 32;
    auto [tx, x] = x_operand(kernel, k, m);
    auto tg = input_as(t, random(size_t(n) * k), {k, n}, "w_gate");
    auto tu = input_as(t, random(size_t(n) * k), {k, n}, "w_up");
    auto out = tensor(DType::f32, {n, m}, "out");
    auto out_plain = tensor(DType::f32, {n, m}, "out_plain");
    auto q = tensor(DType::q8x, {n, m}, "out_q8");
    auto q_ref = tensor(DType::q8x, {n, m}, "out_q8_ref");
    auto arrivals = tensor(DType::u32, {n * m / 32}, "arrivals");
    memory->fill(arrivals.allocation, 0);
    const DispatchDesc fused = split_k_dispatch(
        kernel, n, k, m, {{0, tg}, {1, tx}, {2, out}, {6, tu}, {7, q}, {8, arrivals}},
        OpKind::matvec_glu);
    const DispatchDesc unfused = split_k_dispatch(
        plain, n, k, m, {{0, tg}, {1, tx}, {2, out_plain}, {6, tu}}, OpKind::matvec_glu);
    for (int round = 0; round < 2; ++round) {
        memory->fill(q.allocation, 0xFF);
        run([&](GraphSession& s) {
            s.dispatch(fused);
            s.dispatch(unfused);
            ops::quantize_q8(s, out_plain, q_ref, "quantize_q8");
        });
        const std::string at = "round " + std::to_string(round);
        EXPECT_EQ(read(out), read(out_plain)) << at;
        EXPECT_EQ(memory->download(q.allocation, q.offset, q.size),
                  memory->download(q_ref.allocation, q_ref.offset, q_ref.size))
            << at;
        EXPECT_EQ(memory->download(arrivals.allocation, arrivals.offset, arrivals.size),
                  std::vector<uint8_t>(arrivals.size, 0))
            << at;
    }
}

INSTANTIATE_TEST_SUITE_P(Kernels, GluQ8OutSplitKMatvec,
                         ::testing::ValuesIn(glu_q8_out_matvec_kernels()),
                         [](const auto& info) { return info.param; });

// The epilogue variants (the fused mat-vec→rope[→copy] / mat-vec→copy of q, k and v): the
// product rotated as rope rotates it (adjacent pairs, partial rotation, freq factors, a
// position per column) and/or rounded to f16, for 3 heads of 10 rows (rope_dim 6) and 2
// columns; 30 rows leave the last workgroup part empty.
class EpilogueSplitKMatvec : public SplitKTest {};

TEST_P(EpilogueSplitKMatvec, MatchesReferenceOfTheProductRotatedAndRounded) {
    const std::string& kernel = GetParam();
    if (lacks_integer_dot(kernel)) GTEST_SKIP() << "the device has no shaderIntegerDotProduct";
    const DType t = split_k_kernel(kernel).format;
    const bool rope = kernel.find("_rope") != std::string::npos;
    const bool ff = kernel.find("_rope_ff") != std::string::npos;
    const bool f16 = kernel.find("_f16") != std::string::npos;
    RopeParams rp;
    rp.head_dim = 10;
    rp.n_heads = 3;
    rp.seq_len = 2;
    rp.rope_dim = 6;
    rp.freq_base = 500.0f;
    rp.freq_scale = 0.75f;
    const uint32_t n = rp.head_dim * rp.n_heads, m = rp.seq_len, k = 7 * 32;
    const auto w = random(size_t(n) * k);
    auto [tx, x] = x_operand(kernel, k, m);
    const std::vector<int32_t> positions{5, 17};
    const auto factors = random(rp.rope_dim / 2, 0.5f);
    std::vector<float> freq_factors(factors.size());
    for (size_t i = 0; i < factors.size(); ++i) freq_factors[i] = 1.5f + factors[i];
    auto tw = input_as(t, w, {k, n}, "w");
    auto tpos = input_i32(positions, "positions");
    auto tff = input(freq_factors, {int64_t(freq_factors.size())}, "freq_factors");
    auto out = tensor(f16 ? DType::f16 : DType::f32, {n, m}, "out");
    std::vector<BoundView> bindings{{0, tw}, {1, tx}, {2, out}};
    if (rope) bindings.push_back({4, tpos});
    if (ff) bindings.push_back({5, tff});
    DispatchDesc d = split_k_dispatch(kernel, n, k, m, bindings, OpKind::matvec_epilogue);
    if (rope) {
        struct {
            uint32_t head_dim, rope_dim;
            float freq_base, freq_scale;
        } extra{rp.head_dim, rp.rope_dim, rp.freq_base, rp.freq_scale};
        const auto bytes = push_constant_bytes(extra);
        d.push_constants.insert(d.push_constants.end(), bytes.begin(), bytes.end());
    }
    run([&](GraphSession& s) { s.dispatch(d); });
    const auto product = ref::matmul(as_stored(t, w), x, n, k, m);
    std::vector<float> expected(product.begin(), product.end());
    if (rope) {
        const auto rotated = ref::rope(
            expected, positions,
            ff ? std::span<const float>(freq_factors) : std::span<const float>(), rp, false);
        expected.assign(rotated.begin(), rotated.end());
    }
    // f16: the reference rounded as the copy into the cache rounds; a value at a rounding
    // boundary may land one f16 step away, hence 1e-3 rather than f32's 1e-5.
    if (f16) expected = as_stored(DType::f16, expected);
    expect_close(out, std::vector<double>(expected.begin(), expected.end()), f16 ? 1e-3 : kTolF32);
}

INSTANTIATE_TEST_SUITE_P(Kernels, EpilogueSplitKMatvec,
                         ::testing::ValuesIn(epilogue_matvec_kernels()),
                         [](const auto& info) { return info.param; });

// The variants over x given quantised to 8 bits (10 words per 32 elements: 8 words of signed
// bytes q, the scale d as float bits, a spare word) with integer dot products: against the
// product with the x they stand for (q d), for rows not a multiple of the rows per workgroup,
// a short and a long k, and several columns.
class Q8xSplitKMatvec : public OpsTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(Q8xSplitKMatvec, MatchesTheProductWithTheXItStandsFor) {
    if (!device().facts().integer_dot_product)
        GTEST_SKIP() << "the device has no shaderIntegerDotProduct";
    const std::string& kernel = GetParam();
    const DType t = split_k_kernel(kernel).format;
    const uint32_t n = 37, m = 3;
    for (uint32_t k : {5u * 32, 293u * 32}) {
        const auto w = random(size_t(n) * k);
        const QuantisedX xq = quantise_x8(random(size_t(k) * m));
        auto tw = input_as(t, w, {k, n}, "w");
        auto tx = tensor(DType::u32, {int64_t(xq.words.size())}, "x_q8");
        memory->upload(tx, xq.words);
        auto out = tensor(DType::f32, {n, m}, "out");
        const DispatchDesc d = split_k_dispatch(kernel, n, k, m, {{0, tw}, {1, tx}, {2, out}},
                                                OpKind::quantized_matmul_ggml);
        run([&](GraphSession& s) { s.dispatch(d); });
        expect_close(out, ref::matmul(as_stored(t, w), xq.values, n, k, m), kTolF32,
                     "k = " + std::to_string(k));
    }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Q8xSplitKMatvec,
                         ::testing::ValuesIn(matvec1_kernels([](const std::string& n) {
                             return is_xq8(n) && !is_glu(n) && !is_epilogue(n) && !is_add_norm(n);
                         })),
                         [](const auto& info) { return info.param; });

struct AffineCase {
    uint32_t bits, group_size;
};

class AffineMatmul : public OpsTest, public ::testing::WithParamInterface<AffineCase> {};

TEST_P(AffineMatmul, MatchesReferenceOnDequantisedWeights) {
    AffineQuantParams p;
    p.n = 19;
    p.k = 192;
    p.bits = GetParam().bits;
    p.group_size = GetParam().group_size;
    const auto q = ref::affine_quantize(random(size_t(p.n) * p.k), p);
    const auto stored = ref::affine_dequantize(q, p);
    auto tw = tensor(DType::u32, {int64_t(q.packed.size())}, "w");
    auto ts = tensor(DType::f16, {p.k / p.group_size, p.n}, "scales");
    auto tb = tensor(DType::f16, {p.k / p.group_size, p.n}, "biases");
    memory->upload(tw, q.packed);
    memory->upload(ts, q.scales);
    memory->upload(tb, q.biases);
    for (uint32_t m : kColumns) {
        const auto x = random(size_t(p.k) * m);
        auto tx = input(x, {p.k, m}, "x");
        auto out = tensor(DType::f32, {p.n, m}, "out");
        run([&](GraphSession& s) { ops::quantized_matmul(s, tx, tw, ts, tb, out, p); });
        expect_close(out, ref::matmul(stored, x, p.n, p.k, m), product_tol(DType::u32, m),
                     "m = " + std::to_string(m));
    }
}

INSTANTIATE_TEST_SUITE_P(BitsAndGroups, AffineMatmul,
                         ::testing::Values(AffineCase{4, 32}, AffineCase{4, 64}, AffineCase{8, 32},
                                           AffineCase{8, 64}),
                         [](const auto& info) {
                             // fmt, not string +: GCC 12 -O3 warns (-Wrestrict, a false
                             // positive) on the concatenation, which -Werror turns into an error.
                             return fmt::format("b{}_g{}", info.param.bits, info.param.group_size);
                         });

TEST_F(OpsTest, GetRowsOfFloatTables) {
    const uint32_t row = 141, rows = 7;
    const auto ids = random_ints(5, 0, rows - 1);
    auto tids = input_i32(ids, "ids");
    for (DType t : {DType::f32, DType::f16}) {
        const auto table = as_stored(t, random(size_t(row) * rows));
        auto tt = input_as(t, table, {row, rows}, "table");
        auto out = tensor(DType::f32, {row, int64_t(ids.size())}, "out");
        run([&](GraphSession& s) { ops::get_rows(s, tt, tids, out); });
        expect_close(out, ref::get_rows(table, ids, row), kTolF32, std::string(dtype_name(t)));
    }
}

TEST_F(OpsTest, TopKRoutingPicksLargestLogitsWithSoftmaxWeights) {
    const uint32_t experts = 12, tokens = 5, k = 3;
    const auto logits = random(size_t(experts) * tokens, 2.0f);
    auto tl = input(logits, {experts, tokens}, "logits");
    for (bool normalize : {false, true}) {
        auto ids = tensor(DType::i32, {k, tokens}, "ids");
        auto weights = tensor(DType::f32, {k, tokens}, "weights");
        run([&](GraphSession& s) { ops::topk(s, tl, ids, weights, k, normalize); });
        const auto expected = ref::topk(logits, experts, k, normalize);
        EXPECT_EQ(memory->download_as<int32_t>(ids), expected.ids);
        expect_close(weights, expected.weights, kTolF32, normalize ? "normalized" : "raw");
    }
}

}  // namespace
}  // namespace graphlens::test
