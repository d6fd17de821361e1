// The tiled mat-mat kernels (matmul.comp): both tile sizes, every weight format, sizes that are
// not multiples of the tiles in any dimension, against the reference on the stored weights.
#include <algorithm>
#include <cstdio>

#include "graphlens/ops/ops.h"
#include "graphlens/ops/reference.h"
#include "graphlens/vulkan/kernel_catalog.h"
#include "graphlens/vulkan/kernel_registry.h"
#include "ops_test_support.h"

namespace graphlens::test {
namespace {

namespace ref = graphlens::reference;

struct TileCase {
    DType dtype;
    uint32_t n, k, m;
    const char* kernel;  ///< the kernel the op must pick for this shape
};

// w x into out through the op of w's dtype: whole, or as `splits` partial products.
void record_product(GraphSession& s, const TensorView& w, const TensorView& x,
                    const TensorView& out, uint32_t splits = 1) {
    const bool ggml = dtype_is_quantized(w.dtype);
    if (splits > 1 && ggml)
        ops::quantized_matmul_ggml_split_k(s, x, w, out, splits);
    else if (splits > 1)
        ops::matmul_split_k(s, w, x, out, splits);
    else if (ggml)
        ops::quantized_matmul_ggml(s, x, w, out);
    else
        ops::matmul(s, w, x, out);
}

/// Random n x k weights stored as `dtype` and k x m activations, on the device and as the
/// reference sees them (the weights as stored).
class MatmulProductTest : public OpsTest {
  protected:
    struct Operands {
        std::vector<float> stored, x;
        TensorView w, tx;
    };
    Operands operands(DType dtype, uint32_t n, uint32_t k, uint32_t m) {
        Operands o;
        const auto w = random(size_t(n) * k);
        o.stored = as_stored(dtype, w);
        o.x = random(size_t(k) * m);
        o.w = input_as(dtype, w, {k, n}, "w");
        o.tx = input(o.x, {k, m}, "x");
        return o;
    }
};

class MatmulTiles : public MatmulProductTest, public ::testing::WithParamInterface<TileCase> {};

TEST_P(MatmulTiles, MatchesReferenceOnPartialTiles) {
    const TileCase c = GetParam();
    const Operands o = operands(c.dtype, c.n, c.k, c.m);
    const auto &stored = o.stored, &x = o.x;
    const TensorView &tw = o.w, &tx = o.tx;
    auto out = tensor(DType::f32, {c.n, c.m}, "out");

    auto recorded = executor->begin_recorded();
    record_product(recorded, tw, tx, out);
    const ComputeGraph g = recorded.finish_recording();
    const auto node =
        std::find_if(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return n.is_dispatch(); });
    ASSERT_NE(node, g.nodes.end());
    EXPECT_EQ(g.kernels[node->kernel].name, c.kernel);

    // On a device with tensor cores, kernels with a tensor-core twin run it (f16 inputs).
    const bool twin = KernelCatalog::embedded().tensor_core_twin(c.kernel) != nullptr;
    const bool tc = device().kernels().get(c.kernel).tensor_cores;
    EXPECT_EQ(tc, twin && device().uses_tensor_cores());
    run([&](GraphSession& s) { record_product(s, tw, tx, out); });
    expect_close(out, ref::matmul(stored, x, c.n, c.k, c.m), tc ? kTolTensorCores : kTolF32);
}

class MatmulTensorCores : public OpsTest {};

TEST_F(MatmulTensorCores, TwinsExistForTheMatMatKernelsAndFollowTheDevice) {
    const auto& catalog = KernelCatalog::embedded();
    for (const char* k : {"matmul_q4_0", "matmul_q4_0_t64", "matmul_q4_0_t128x64", "matmul_q8_0",
                          "matmul_f16_t128x64", "matmul_q4_k", "matmul_q6_k_t64", "matmul_affine"})
        EXPECT_NE(catalog.tensor_core_twin(k), nullptr) << k;
    // f32 weights and the 16-bit-word kernels keep their FP32 kernel everywhere.
    for (const char* k : {"matmul_f32", "matmul_q4_0_u16", "matvec_q4_0"})
        EXPECT_EQ(catalog.tensor_core_twin(k), nullptr) << k;
    // lavapipe has no cooperative matrix: the FP32 kernels are the path there.
    Device& d = device();
    if (!d.facts().tensor_cores) {
        EXPECT_FALSE(d.uses_tensor_cores());
        // Said, not hidden: the tensor-core branches run only on a GPU (bench/gpu/run_modes.sh
        // runs this binary there with every kernel change).
        std::printf(
            "NOTE: %s has no VK_NV_cooperative_matrix: the tensor-core kernels are not "
            "tested on this device\n",
            d.facts().name.c_str());
    }
    for (const std::string& k : catalog.tensor_core_kernels())
        EXPECT_EQ(d.kernels().get(k).tensor_cores, d.uses_tensor_cores()) << k;
}

// 64 x 64 tiles: 67 rows and 70 columns leave partial tiles; k of 45 / 43 / 42 leaves a partial
// 32-wide k tile for the float formats; 3 blocks per row of 67 rows end the q4_0 / q8_0 / q6_k
// tensors (and 67 x 43 halves) off a 4-byte boundary (the _u16 kernels). 128 x 128 tiles need >=
// 128 of them: 1027 x 2053 outputs (9 x 17 tiles, both partial); the formats share the tile code,
// so two of them (generic and block loads) cover it.
// 128 x 64 tiles: 1027 x 900 outputs (9 x 15 of them, but only 9 x 8 of 128 x 128).
INSTANTIATE_TEST_SUITE_P(
    Shapes, MatmulTiles,
    ::testing::Values(TileCase{DType::f32, 67, 45, 70, "matmul_f32_t64"},
                      TileCase{DType::f16, 67, 43, 70, "matmul_f16_u16_t64"},
                      TileCase{DType::f16, 68, 42, 70, "matmul_f16_t64"},
                      TileCase{DType::q4_0, 67, 96, 70, "matmul_q4_0_u16_t64"},
                      TileCase{DType::q4_0, 68, 96, 70, "matmul_q4_0_t64"},
                      TileCase{DType::q8_0, 67, 96, 70, "matmul_q8_0_u16_t64"},
                      TileCase{DType::q8_0, 68, 96, 70, "matmul_q8_0_t64"},
                      TileCase{DType::q4_k, 67, 256, 70, "matmul_q4_k_t64"},
                      TileCase{DType::q6_k, 67, 256, 70, "matmul_q6_k_u16_t64"},
                      TileCase{DType::f32, 1027, 45, 2053, "matmul_f32"},
                      TileCase{DType::q4_0, 1027, 96, 2053, "matmul_q4_0_u16"},
                      TileCase{DType::f32, 1027, 45, 900, "matmul_f32_t128x64"},
                      TileCase{DType::q4_0, 1027, 96, 900, "matmul_q4_0_u16_t128x64"},
                      // 32-bit-word kernels of the big tiles: those with tensor-core twins
                      TileCase{DType::q4_0, 1028, 96, 2053, "matmul_q4_0"},
                      TileCase{DType::q4_0, 1028, 96, 900, "matmul_q4_0_t128x64"},
                      TileCase{DType::q8_0, 1028, 64, 900, "matmul_q8_0_t128x64"}),
    [](const auto& info) { return std::string(info.param.kernel); });

// Split-k mat-mat (GraphSession::*_split_k): the partial products over equal k ranges, summed,
// are the product; partial tiles in n and m, every weight family, 2 and 4 ranges.
struct SplitCase {
    DType dtype;
    uint32_t n, k, m, splits;
};

class MatmulSplitK : public MatmulProductTest, public ::testing::WithParamInterface<SplitCase> {};

TEST_P(MatmulSplitK, PartialsSumToTheProduct) {
    const SplitCase c = GetParam();
    const Operands o = operands(c.dtype, c.n, c.k, c.m);
    const auto &stored = o.stored, &x = o.x;
    const TensorView &tw = o.w, &tx = o.tx;
    auto partials = tensor(DType::f32, {c.n, c.m * c.splits}, "partials");

    auto recorded = executor->begin_recorded();
    record_product(recorded, tw, tx, partials, c.splits);
    const ComputeGraph g = recorded.finish_recording();
    ASSERT_EQ(g.nodes.size(), 1u);
    const Node& node = g.nodes.front();
    // The 128 x 128 tile, one grid layer per k range.
    EXPECT_EQ(g.kernels[node.kernel].name.find("_t"), std::string::npos)
        << g.kernels[node.kernel].name;
    EXPECT_EQ(node.workgroups[2], c.splits);

    const bool tc = device().kernels().get(g.kernels[node.kernel].name).tensor_cores;
    run([&](GraphSession& s) { record_product(s, tw, tx, partials, c.splits); });
    const auto parts = read(partials);
    std::vector<float> sum(size_t(c.n) * c.m, 0.0f);
    for (uint32_t z = 0; z < c.splits; ++z)
        for (size_t i = 0; i < sum.size(); ++i) sum[i] += parts[z * sum.size() + i];
    const double e = relative_error(sum, ref::matmul(stored, x, c.n, c.k, c.m));
    EXPECT_LE(e, tc ? kTolTensorCores : kTolF32);
    // Each range alone is a product too, not the whole one: partial 0 is W[:, :k/s] x[:k/s].
    std::vector<float> w0, x0;
    for (uint32_t r = 0; r < c.n; ++r)
        for (uint32_t i = 0; i < c.k / c.splits; ++i) w0.push_back(stored[size_t(r) * c.k + i]);
    for (uint32_t col = 0; col < c.m; ++col)
        for (uint32_t i = 0; i < c.k / c.splits; ++i) x0.push_back(x[size_t(col) * c.k + i]);
    const std::vector<float> first(parts.begin(), parts.begin() + long(sum.size()));
    EXPECT_LE(relative_error(first, ref::matmul(w0, x0, c.n, c.k / c.splits, c.m)),
              tc ? kTolTensorCores : kTolF32);
}

INSTANTIATE_TEST_SUITE_P(Shapes, MatmulSplitK,
                         ::testing::Values(SplitCase{DType::f32, 130, 256, 20, 2},
                                           SplitCase{DType::f16, 130, 256, 20, 4},
                                           SplitCase{DType::q4_0, 132, 512, 140, 4},
                                           SplitCase{DType::q8_0, 100, 256, 40, 2},
                                           SplitCase{DType::q4_k, 132, 1024, 20, 4}),
                         [](const auto& info) {
                             return std::string(dtype_name(info.param.dtype)) + "_" +
                                    std::to_string(info.param.splits);
                         });

TEST_F(OpsTest, SplitKRejectsRangesOfPartialBlocksMatVecsAndShortPartials) {
    auto w = tensor(DType::q4_k, {512, 64}, "w");
    auto x = tensor(DType::f32, {512, 16}, "x");
    auto s = executor->begin_recorded();
    // 512 / 4 = 128: not whole 256-element q4_k blocks.
    EXPECT_THROW(ops::quantized_matmul_ggml_split_k(s, x, w, tensor(DType::f32, {64, 64}, "p"), 4),
                 std::invalid_argument);
    EXPECT_THROW(ops::quantized_matmul_ggml_split_k(s, x, w, tensor(DType::f32, {64, 16}, "p1"), 1),
                 std::invalid_argument);
    EXPECT_THROW(ops::quantized_matmul_ggml_split_k(s, x, w, tensor(DType::f32, {64, 16}, "p2"), 2),
                 std::invalid_argument);  // partials hold one product, not two
    auto x8 = tensor(DType::f32, {512, 8}, "x8");
    EXPECT_THROW(
        ops::quantized_matmul_ggml_split_k(s, x8, w, tensor(DType::f32, {64, 16}, "p3"), 2),
        std::invalid_argument);  // 8 columns: the mat-vec path
    ops::quantized_matmul_ggml_split_k(s, x, w, tensor(DType::f32, {64, 32}, "ok"), 2);
}

TEST(MatmulKSplits, SplitsLongRowsWhoseTilesWouldNotFillALargeGpu) {
    // llama-3.2-1b at 512 tokens: ffn_down (n 2048, k 8192) and attn_output (2048, 2048) have
    // 64 tiles of 128 x 128 each.
    EXPECT_EQ(matmul_k_splits(DType::q4_0, 2048, 8192, 512), 4u);
    EXPECT_EQ(matmul_k_splits(DType::q4_0, 2048, 2048, 512), 4u);
    EXPECT_EQ(matmul_k_splits(DType::q4_0, 2048, 8192, 640), 2u);   // 80 tiles: 4 x would be 320
    EXPECT_EQ(matmul_k_splits(DType::q4_0, 2048, 8192, 1024), 1u);  // 128 tiles
    EXPECT_EQ(matmul_k_splits(DType::q4_0, 2048, 1024, 512), 1u);   // short rows
    EXPECT_EQ(matmul_k_splits(DType::q4_0, 8192, 2048, 512), 1u);   // 256 tiles already
    EXPECT_EQ(matmul_k_splits(DType::q4_0, 4096, 14336, 512), 1u);  // 128 tiles
    EXPECT_EQ(matmul_k_splits(DType::q4_0, 2048, 8192, 8), 1u);     // mat-vec
    EXPECT_EQ(matmul_k_splits(DType::q4_k, 2048, 4352, 512), 1u);   // 17 blocks: no even split
    EXPECT_EQ(matmul_k_splits(DType::q6_k, 2048, 4608, 512), 2u);   // 18 blocks: 2 x 9
    EXPECT_EQ(matmul_k_splits(DType::q4_0, 4096, 4096, 512), 1u);   // 8b attn_output: 128 tiles
}

}  // namespace
}  // namespace graphlens::test
