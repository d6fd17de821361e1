#pragma once
// A small chain of add/mul dispatches over sub-ranges of shared allocations, with its CPU
// reference: the workload most GPU tests run in several ways and compare.
#include <vector>

#include "gpu_fixture.h"
#include "graphlens/vulkan/graph_session.h"

namespace graphlens::test {

struct Chain {
    static constexpr int64_t n = 1000;  // floats per tensor
    static constexpr int64_t nw = 8;    // broadcast weight
    AllocationId in = 0, weight = 0, tmp = 0, out = 0;
    TensorView a, b, w, t0, t1, t2, result;
    std::vector<float> a_data, b_data, w_data;

    /// Allocates and fills the inputs with fresh random data, poisons tmp and out.
    void setup(DeviceMemory& mem, uint32_t seed) {
        in = mem.allocate("in", 2 * n * 4, AllocationUsage::input);
        weight = mem.allocate("weight", nw * 4, AllocationUsage::weights);
        tmp = mem.allocate("tmp", 3 * n * 4, AllocationUsage::scratch);
        out = mem.allocate("out", n * 4, AllocationUsage::output);
        a = mem.view(in, DType::f32, {n}, 0);
        b = mem.view(in, DType::f32, {n}, n * 4);
        w = mem.view(weight, DType::f32, {nw});
        t0 = mem.view(tmp, DType::f32, {n}, 0);
        t1 = mem.view(tmp, DType::f32, {n}, n * 4);
        t2 = mem.view(tmp, DType::f32, {n}, 2 * n * 4);
        result = mem.view(out, DType::f32, {n});
        a_data = random_floats(n, seed);
        b_data = random_floats(n, seed + 1);
        w_data = random_floats(nw, seed + 2);
        mem.upload(a, a_data);
        mem.upload(b, b_data);
        mem.upload(w, w_data);
        poison(mem);
    }
    void poison(DeviceMemory& mem) const {
        mem.fill(tmp, 0xFF);
        mem.fill(out, 0xFF);
    }
    /// t0 = a + b; t1 = a * w (independent); t2 = t0 + t1 (RAW); t0 = t2 * w (WAR on t0);
    /// result = t0 + t2 (RAW). With automatic barriers: 3 barriers, groups {2, 1, 1, 1}.
    void record(GraphSession& s) const {
        s.dispatch(binary_dispatch("add_f32", a, b, t0, "chain.t0"));
        s.dispatch(binary_dispatch("mul_f32", a, w, t1, "chain.t1"));
        s.dispatch(binary_dispatch("add_f32", t0, t1, t2, "chain.t2"));
        s.dispatch(binary_dispatch("mul_f32", t2, w, t0, "chain.t0b"));
        s.dispatch(binary_dispatch("add_f32", t0, t2, result, "chain.out"));
    }
    std::vector<float> expected() const {
        std::vector<float> r(n);
        for (int64_t i = 0; i < n; ++i) {
            const float x0 = a_data[i] + b_data[i];
            const float x1 = a_data[i] * w_data[i % nw];
            const float x2 = x0 + x1;
            const float x0b = x2 * w_data[i % nw];
            r[i] = x0b + x2;
        }
        return r;
    }
};

}  // namespace graphlens::test
