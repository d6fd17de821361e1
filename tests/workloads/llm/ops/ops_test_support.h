#pragma once
// Fixture of the kernel tests: each op runs on lavapipe against its double-precision CPU
// reference (graphlens/ops/reference.h) on fresh random non-zero data. Every test draws a new
// seed (GRAPHLENS_TEST_SEED=<n> repeats one) and names it in every failure message; every
// tensor lives in its own allocation, poisoned (0xFF bytes = NaN) before the run, so an
// element the kernel did not write fails the comparison.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "graphlens/ops/ggml_blocks.h"
#include "graphlens/ops/params.h"
#include "graphlens/vulkan/graph_session.h"
#include "vulkan/gpu_fixture.h"

namespace graphlens::test {

/// Tolerances on norm(error) / norm(reference).
inline constexpr double kTolF32 = 1e-5;
inline constexpr double kTolF16 = 1e-2;
/// Mat-mat kernels on tensor cores (Device::uses_tensor_cores: their twins multiply f16 copies
/// of weights and activations, accumulating in f32): about 2^-11 relative rounding per input;
/// 2.5e-4 measured on the H200 at k = 96..2048.
inline constexpr double kTolTensorCores = 2e-3;

/// A small decode attention for recording tests: two query heads of 16 sharing one KV head,
/// 5 keys in splits of 4 (two workgroups per head, the second partial).
inline FlashAttnVecParams small_flash_attn_vec_params() {
    FlashAttnVecParams p;
    p.head_dim = 16;
    p.n_heads = 2;
    p.n_kv_heads = 1;
    p.kv_len = 5;
    p.split_len = 4;
    return p;
}

/// norm(got - ref) / norm(ref); infinity when any value is not finite (unwritten poison).
inline double relative_error(const std::vector<float>& got, const std::vector<double>& ref) {
    if (got.size() != ref.size()) return INFINITY;
    double err = 0, norm = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        if (!std::isfinite(got[i])) return INFINITY;
        err += (got[i] - ref[i]) * (got[i] - ref[i]);
        norm += ref[i] * ref[i];
    }
    return norm > 0 ? std::sqrt(err / norm) : std::sqrt(err);
}

class OpsTest : public GpuTest {
  protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (const char* s = std::getenv("GRAPHLENS_TEST_SEED"))
            seed = static_cast<uint32_t>(std::strtoul(s, nullptr, 10));
        else
            seed = std::random_device{}();
        trace = std::make_unique<::testing::ScopedTrace>(
            __FILE__, __LINE__, "seed " + std::to_string(seed) + " (GRAPHLENS_TEST_SEED)");
    }
    void TearDown() override {
        trace.reset();
        GpuTest::TearDown();
    }

    /// Random non-zero values of either sign, magnitude in [0.25, 2) times `scale`; each call
    /// draws from a new stream of this test's seed.
    std::vector<float> random(size_t n, float scale = 1.0f) {
        auto v = random_floats(n, seed + 7919u * ++streams);
        for (auto& x : v) x *= scale;
        return v;
    }
    std::vector<int32_t> random_ints(size_t n, int32_t lo, int32_t hi) {
        std::mt19937 rng(seed + 7919u * ++streams);
        std::uniform_int_distribution<int32_t> d(lo, hi);
        std::vector<int32_t> v(n);
        for (auto& x : v) x = d(rng);
        return v;
    }

    /// A poisoned tensor in an allocation of its own.
    TensorView tensor(DType t, std::initializer_list<int64_t> shape, const std::string& name) {
        int64_t n = 1;
        for (int64_t s : shape) n *= s;
        const AllocationId a = memory->allocate(name, dtype_bytes_for(t, uint64_t(n)));
        memory->fill(a, 0xFF);
        return memory->view(a, t, shape);
    }
    /// An f32 tensor holding `values`.
    TensorView input(const std::vector<float>& values, std::initializer_list<int64_t> shape,
                     const std::string& name) {
        TensorView v = tensor(DType::f32, shape, name);
        memory->upload(v, values);
        return v;
    }
    /// A tensor of dtype t holding `values` converted (f16) or quantized (ggml blocks).
    TensorView input_as(DType t, const std::vector<float>& values,
                        std::initializer_list<int64_t> shape, const std::string& name) {
        TensorView v = tensor(t, shape, name);
        memory->upload(v, ggml::quantize(t, values));
        return v;
    }
    TensorView input_i32(const std::vector<int32_t>& values, const std::string& name) {
        TensorView v = tensor(DType::i32, {int64_t(values.size())}, name);
        memory->upload(v, values);
        return v;
    }
    /// Values as the GPU sees them after conversion to dtype t.
    static std::vector<float> as_stored(DType t, const std::vector<float>& values) {
        return ggml::dequantize(t, ggml::quantize(t, values), values.size());
    }
    /// An f32 or f16 tensor's values as floats.
    std::vector<float> read(const TensorView& v) {
        return ggml::dequantize(v.dtype, memory->download(v), size_t(v.elements()));
    }

    /// Runs the ops in one direct-mode session.
    void run(const std::function<void(GraphSession&)>& record) {
        auto s = executor->begin();
        record(s);
        s.finish();
    }

    void expect_close(const TensorView& out, const std::vector<double>& ref, double tol,
                      const std::string& what = "") {
        const double e = relative_error(read(out), ref);
        EXPECT_LE(e, tol) << what << " relative error " << e;
    }

    /// Tolerance of a product of m columns with weights of dtype t: the tiled mat-mat (m > 8) of
    /// non-f32 weights runs on tensor cores where the device uses them, else f32 arithmetic.
    double product_tol(DType t, uint32_t m) {
        return device().uses_tensor_cores() && t != DType::f32 && m > 8 ? kTolTensorCores : kTolF32;
    }
    uint32_t seed = 0;
    uint32_t streams = 0;
    std::unique_ptr<::testing::ScopedTrace> trace;
};

}  // namespace graphlens::test
