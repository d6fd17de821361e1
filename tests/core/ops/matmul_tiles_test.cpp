// The tiled mat-mat kernels (matmul.comp): both tile sizes, every weight format, sizes that are
// not multiples of the tiles in any dimension, against the reference on the stored weights.
#include <algorithm>

#include "graphlens/kernel_catalog.h"
#include "graphlens/kernel_registry.h"
#include "graphlens/op_reference.h"
#include "ops_test_support.h"

namespace graphlens::test {
namespace {

namespace ref = graphlens::reference;

struct TileCase {
    DType dtype;
    uint32_t n, k, m;
    const char* kernel;  ///< the kernel the op must pick for this shape
};

class MatmulTiles : public OpsTest, public ::testing::WithParamInterface<TileCase> {
  protected:
    void record(GraphSession& s, const TensorView& w, const TensorView& x, const TensorView& out) {
        if (dtype_is_quantized(GetParam().dtype))
            s.quantized_matmul_ggml(x, w, out);
        else
            s.matmul(w, x, out);
    }
};

TEST_P(MatmulTiles, MatchesReferenceOnPartialTiles) {
    const TileCase c = GetParam();
    const auto w = random(size_t(c.n) * c.k);
    const auto stored = as_stored(c.dtype, w);
    const auto x = random(size_t(c.k) * c.m);
    auto tw = input_as(c.dtype, w, {c.k, c.n}, "w");
    auto tx = input(x, {c.k, c.m}, "x");
    auto out = tensor(DType::f32, {c.n, c.m}, "out");

    auto recorded = executor->begin_recorded();
    record(recorded, tw, tx, out);
    const ComputeGraph g = recorded.finish_recording();
    const auto node =
        std::find_if(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return n.is_dispatch(); });
    ASSERT_NE(node, g.nodes.end());
    EXPECT_EQ(g.kernels[node->kernel].name, c.kernel);

    // On a device with tensor cores, kernels with a tensor-core twin run it (f16 inputs).
    const bool twin = KernelCatalog::embedded().tensor_core_twin(c.kernel) != nullptr;
    const bool tc = device().kernels().get(c.kernel).tensor_cores;
    EXPECT_EQ(tc, twin && device().uses_tensor_cores());
    run([&](GraphSession& s) { record(s, tw, tx, out); });
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

}  // namespace
}  // namespace graphlens::test
