#pragma once
// Shared fixture of the GPU tests: one Device for the whole binary (validation on under
// ctest), fresh DeviceMemory + GraphExecutor per test, and a test fails on any validation
// error the layer reported while it ran.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "graphlens/vulkan/command_encoder.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"
#include "graphlens/vulkan/graph_executor.h"

namespace graphlens::test {

/// Random non-zero floats of either sign, magnitude in [0.25, 2).
inline std::vector<float> random_floats(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(0.25f, 2.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = (rng() & 1 ? 1.0f : -1.0f) * dist(rng);
    return v;
}

inline Device& shared_device() {
    static Device device;
    return device;
}

class GpuTest : public ::testing::Test {
  protected:
    void SetUp() override {
        device().clear_validation_messages();
        memory = std::make_unique<DeviceMemory>(device());
        executor = std::make_unique<GraphExecutor>(device(), *memory);
    }
    void TearDown() override {
        executor.reset();
        memory.reset();
        expect_no_validation_messages();
    }
    void expect_no_validation_messages() {
        EXPECT_EQ(device().validation_errors(), 0u) << describe_messages();
    }
    static std::string describe_messages() {
        std::string s;
        for (const auto& m : shared_device().validation_messages())
            s += (m.error ? "ERROR " : "WARNING ") + m.id + ": " + m.text + "\n";
        return s;
    }
    static Device& device() { return shared_device(); }

    /// An f32 tensor of n elements at `offset` bytes into allocation `a`.
    TensorView f32(AllocationId a, int64_t n, uint64_t offset = 0) const {
        return memory->view(a, DType::f32, {n}, offset);
    }
    void upload(const TensorView& v, const std::vector<float>& values) {
        memory->upload(v, values);
    }
    std::vector<float> download(const TensorView& v) { return memory->download_as<float>(v); }
    /// 0xFF bytes: every f32 becomes a NaN, so an output the GPU did not write shows.
    void poison(AllocationId a) { memory->fill(a, 0xFF); }

    std::unique_ptr<DeviceMemory> memory;
    std::unique_ptr<GraphExecutor> executor;
};

/// A dispatch of the add_f32 / mul_f32 kernels without going through the ops layer.
inline DispatchDesc binary_dispatch(const char* kernel, const TensorView& a, const TensorView& b,
                                    const TensorView& out, std::string label) {
    struct Params {
        uint32_t n, nb;
    } p{static_cast<uint32_t>(a.elements()), static_cast<uint32_t>(b.elements())};
    DispatchDesc d;
    d.kernel = kernel;
    d.bindings = {{0, a}, {1, b}, {2, out}};
    d.push_constants.resize(sizeof p);
    std::memcpy(d.push_constants.data(), &p, sizeof p);
    d.workgroups = {(p.n + 255) / 256, 1, 1};  // 256 threads a workgroup, up to 2^24 elements
    d.op = std::string_view(kernel) == "add_f32" ? OpKind::add : OpKind::mul;
    d.label = std::move(label);
    return d;
}

inline bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace graphlens::test
