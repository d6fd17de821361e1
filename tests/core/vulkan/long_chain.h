#pragma once
// A graph that keeps lavapipe busy for seconds in one submission, for the tests that cancel
// an execution in flight: a chain of adds over two 4 MiB buffers, each dispatch reading what
// the one before wrote (dst = src + w, w broadcast), so every dispatch has a barrier before it
// and the final values are known: the input plus w, `dispatches` times, added in order.
#include <algorithm>
#include <chrono>

#include "gpu_fixture.h"
#include "graphlens/vulkan/graph_session.h"

namespace graphlens::test {

struct LongChain {
    static constexpr int64_t n = 1 << 20;  // floats per buffer
    static constexpr int64_t nw = 8;
    AllocationId ping = 0, pong = 0, weight = 0;
    std::vector<float> input, w;

    void setup(DeviceMemory& mem, uint32_t seed) {
        ping = mem.allocate("ping", n * 4, AllocationUsage::activations);
        pong = mem.allocate("pong", n * 4, AllocationUsage::activations);
        weight = mem.allocate("weight", nw * 4, AllocationUsage::weights);
        input = random_floats(n, seed);
        w = random_floats(nw, seed + 1);
        mem.upload(mem.view(ping, DType::f32, {n}), input);
        mem.upload(mem.view(weight, DType::f32, {nw}), w);
    }
    ComputeGraph record(GraphExecutor& exec, size_t dispatches) const {
        DeviceMemory& mem = exec.memory();
        const TensorView a = mem.view(ping, DType::f32, {n});
        const TensorView b = mem.view(pong, DType::f32, {n});
        const TensorView wv = mem.view(weight, DType::f32, {nw});
        auto s = exec.begin_recorded();
        for (size_t i = 0; i < dispatches; ++i)
            s.dispatch(binary_dispatch("add_f32", i % 2 ? b : a, wv, i % 2 ? a : b,
                                       "long." + std::to_string(i)));
        return s.finish_recording();
    }
    /// Where the last of `dispatches` dispatches wrote.
    TensorView result(const DeviceMemory& mem, size_t dispatches) const {
        return mem.view(dispatches % 2 ? pong : ping, DType::f32, {n});
    }
    std::vector<float> expected(size_t dispatches) const {
        std::vector<float> r = input;
        for (int64_t i = 0; i < n; ++i)
            for (size_t d = 0; d < dispatches; ++d) r[i] += w[i % nw];
        return r;
    }
    /// Dispatches that take about `seconds` on this device: timed on a short chain.
    size_t dispatches_for(GraphExecutor& exec, double seconds) const {
        constexpr size_t probe = 16;
        const ComputeGraph g = record(exec, probe);
        exec.execute(g);  // pipelines made, caches warm
        const auto t0 = std::chrono::steady_clock::now();
        exec.execute(g);
        const double per =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / probe;
        return std::clamp<size_t>(static_cast<size_t>(seconds / std::max(per, 1e-6)), probe, 20000);
    }
};

}  // namespace graphlens::test
