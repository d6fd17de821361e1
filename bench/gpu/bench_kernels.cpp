// Kernel benchmarks (issue 4): mat-vec bandwidth against a device-to-device copy measured in
// the same run, the llama-3.2-1b Q4_0 mat-vec shapes one dispatch per command buffer, and
// flash_attn_vec at the llama-3.2-1b decode shapes (KV 512, 4096) and head dim 128. GPU time comes
// from timestamp queries around a command buffer holding only the measured work; each figure is the
// median of `repeats` runs after warm-up.
#include "bench_kernels.h"

#include <fmt/format.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "graphlens/command_encoder.h"
#include "graphlens/device.h"
#include "graphlens/device_memory.h"
#include "graphlens/ggml_blocks.h"
#include "graphlens/graph_executor.h"
#include "graphlens/graph_session.h"

namespace graphlens::bench {
namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

/// Median GPU ns of `record` alone in a command buffer.
double time_session(GraphExecutor& exec, const KernelBenchOptions& o,
                    const std::function<void(GraphSession&)>& record) {
    std::vector<double> samples;
    for (uint32_t i = 0; i < o.warmup + o.repeats; ++i) {
        auto s = exec.begin();
        record(s);
        const SessionTiming t = s.finish_with_timing();
        if (i >= o.warmup) samples.push_back(double(t.gpu_ns));
    }
    return median(samples);
}

/// Median GPU ns of vkCmdCopyBuffer of `bytes` between two allocations.
double time_copy(Device& device, DeviceMemory& memory, AllocationId src, AllocationId dst,
                 uint64_t bytes, const KernelBenchOptions& o) {
    CommandRecorder rec(device, memory);
    std::vector<double> samples;
    for (uint32_t i = 0; i < o.warmup + o.repeats; ++i) {
        rec.begin(true);
        VkBufferCopy region{0, 0, bytes};
        vkCmdCopyBuffer(rec.handle(), memory.buffer(src).buffer, memory.buffer(dst).buffer, 1,
                        &region);
        rec.end();
        rec.submit();
        rec.wait();
        if (i >= o.warmup) samples.push_back(double(rec.gpu_ns()));
    }
    return median(samples);
}

/// Weight bytes of n rows of k: one quantized row tiled over all rows (the timing does not
/// depend on the values, only on valid scales).
std::vector<uint8_t> tiled_weights(DType t, uint32_t n, uint32_t k, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.0f, 0.05f);
    std::vector<float> row(k);
    for (auto& v : row) v = d(rng);
    const auto one = ggml::quantize(t, row);
    std::vector<uint8_t> all(one.size() * n);
    for (uint32_t r = 0; r < n; ++r)
        std::copy(one.begin(), one.end(), all.begin() + size_t(r) * one.size());
    return all;
}

struct MatvecResult {
    double single_us = 0;        ///< one dispatch alone in a command buffer
    double per_dispatch_us = 0;  ///< streaming: dispatches over distinct weight copies
    double gbps = 0;             ///< weight bytes / per_dispatch time
    uint64_t bytes = 0;
};

/// Single: one dispatch per command buffer (includes the command buffer's fixed cost).
/// Streaming: `copies` dispatches over distinct copies of the weights (together larger than
/// the L2 cache, so every dispatch reads HBM) into distinct outputs, one command buffer, no
/// barriers; per-dispatch time = (t(copies) - t(1)) / (copies - 1) removes the fixed cost.
MatvecResult bench_matvec(GraphExecutor& exec, DeviceMemory& mem, DType t, uint32_t n, uint32_t k,
                          const KernelBenchOptions& o, bool streaming) {
    const auto bytes = tiled_weights(t, n, k, 42);
    const uint32_t copies =
        streaming ? std::clamp<uint32_t>(uint32_t((320ull << 20) / bytes.size()) + 1, 3, 16) : 1;
    std::vector<TensorView> w, y;
    for (uint32_t i = 0; i < copies; ++i) {
        const AllocationId wa =
            mem.allocate(fmt::format("w{}_{}x{}", i, n, k), bytes.size(), AllocationUsage::weights);
        mem.upload(wa, bytes);
        w.push_back(mem.view(wa, t, {k, n}));
        const AllocationId ya =
            mem.allocate(fmt::format("y{}", i), uint64_t(n) * 4, AllocationUsage::activations);
        y.push_back(mem.view(ya, DType::f32, {n}));
    }
    const AllocationId xa = mem.allocate("x", uint64_t(k) * 4, AllocationUsage::activations);
    const TensorView x = mem.view(xa, DType::f32, {k});
    mem.upload(x, std::vector<float>(k, 0.01f));
    auto matvec = [&](GraphSession& s, uint32_t i) {
        if (t == DType::f16 || t == DType::f32)
            s.matmul(w[i], x, y[i], "bench");
        else
            s.quantized_matmul_ggml(x, w[i], y[i], "bench");
    };
    MatvecResult r;
    r.bytes = bytes.size();
    const double one = time_session(exec, o, [&](GraphSession& s) { matvec(s, 0); });
    r.single_us = one / 1000.0;
    if (streaming) {
        const double all = time_session(exec, o, [&](GraphSession& s) {
            for (uint32_t i = 0; i < copies; ++i) matvec(s, i);
        });
        const double per = (all - one) / (copies - 1);
        r.per_dispatch_us = per / 1000.0;
        r.gbps = double(bytes.size()) / per;
    } else {
        r.gbps = double(bytes.size()) / one;
    }
    return r;
}

}  // namespace

int run_kernel_benchmarks(const KernelBenchOptions& o) {
    Device device;
    std::string report;
    auto out = [&](const std::string& line) {
        fmt::print("{}\n", line);
        report += line + "\n";
    };
    out(fmt::format("# Kernel benchmarks on {} ({})", device.facts().name,
                    device.facts().driver_info));
    out(
        fmt::format("median of {} runs after {} warm-up, GPU time from timestamps, one command "
                    "buffer per measurement\n",
                    o.repeats, o.warmup));

    // The reference: the faster of vkCmdCopyBuffer and the copy_f32 kernel, bytes read +
    // bytes written per second.
    auto wanted = [&](std::string_view section) {
        return ("," + o.sections + ",").find("," + std::string(section) + ",") != std::string::npos;
    };
    double copy_gbps = 0;
    if (wanted("copy") || wanted("matvec")) {
        DeviceMemory mem(device);
        GraphExecutor exec(device, mem);
        const uint64_t bytes = o.copy_mb << 20;
        const AllocationId a = mem.allocate("copy_src", bytes), b = mem.allocate("copy_dst", bytes);
        const double ns = time_copy(device, mem, a, b, bytes, o);
        const TensorView src = mem.view(a, DType::f32, {int64_t(bytes / 4)});
        const TensorView dst = mem.view(b, DType::f32, {int64_t(bytes / 4)});
        const double kernel_ns =
            time_session(exec, o, [&](GraphSession& s) { s.copy(src, dst, "copy"); });
        copy_gbps = 2.0 * double(bytes) / std::min(ns, kernel_ns);
        out(fmt::format(
            "device-to-device copy of {} MiB: vkCmdCopyBuffer {:.1f} us ({:.0f} GB/s), "
            "copy_f32 kernel {:.1f} us ({:.0f} GB/s), read + write; reference {:.0f} GB/s\n",
            o.copy_mb, ns / 1000.0, 2.0 * bytes / ns, kernel_ns / 1000.0, 2.0 * bytes / kernel_ns,
            copy_gbps));
    }

    if (wanted("matvec") || wanted("llama")) {
        // Fixed cost of a measured command buffer: timestamps, submission barrier.
        DeviceMemory mem(device);
        GraphExecutor exec(device, mem);
        const AllocationId a = mem.allocate("tiny", 1024);
        const TensorView v = mem.view(a, DType::f32, {256});
        const double ns =
            time_session(exec, o, [&](GraphSession& s) { s.scale(v, v, 1.0f, "tiny"); });
        out(
            fmt::format("one tiny dispatch alone in a command buffer: {:.2f} us (the fixed cost in "
                        "every 'single' figure)\n",
                        ns / 1000.0));
    }

    if (wanted("matvec")) {
        out("## Mat-vec bandwidth (weight bytes / GPU time per dispatch, streaming)\n");
        out("| weights (n x k) | type | MB | single dispatch us | streaming us | GB/s | % of copy "
            "|");
        out("|---|---|---|---|---|---|---|");
        const std::pair<uint32_t, uint32_t> shapes[] = {{4096, 4096}, {4096, 14336}, {14336, 4096}};
        for (auto [n, k] : shapes)
            for (DType t : {DType::f16, DType::q8_0, DType::q4_0}) {
                DeviceMemory mem(device);
                GraphExecutor exec(device, mem);
                const auto r = bench_matvec(exec, mem, t, n, k, o, true);
                out(fmt::format("| {} x {} | {} | {:.1f} | {:.2f} | {:.2f} | {:.0f} | {:.0f}% |", n,
                                k, dtype_name(t), r.bytes / 1e6, r.single_us, r.per_dispatch_us,
                                r.gbps, 100.0 * r.gbps / copy_gbps));
            }
    }

    if (wanted("llama")) {
        out("\n## llama-3.2-1b Q4_0 mat-vec shapes, one dispatch per command buffer\n");
        out("| weights (n x k) | single dispatch us | streaming us | llama.cpp Vulkan (us) |");
        out("|---|---|---|---|");
        const struct {
            uint32_t n, k;
            double llama_us;
        } llama[] = {{2048, 2048, 6.3},
                     {512, 2048, 5.5},
                     {8192, 2048, 13},
                     {2048, 8192, 12},
                     {128256, 2048, 94}};
        for (const auto& s : llama) {
            DeviceMemory mem(device);
            GraphExecutor exec(device, mem);
            const auto r = bench_matvec(exec, mem, DType::q4_0, s.n, s.k, o, true);
            out(fmt::format("| {} x {} | {:.2f} | {:.2f} | {:.1f} |", s.n, s.k, r.single_us,
                            r.per_dispatch_us, s.llama_us));
        }
    }

    if (wanted("attention")) {
        // The decode shapes of llama-3.2-1b (head dim 64) at KV 512 and 4096, then the
        // head dim 128 shape the section started with, over split lengths.
        struct AttnShape {
            uint32_t head_dim, kv_len;
            std::vector<uint32_t> splits;
        };
        const AttnShape shapes[] = {
            {64, 512, {256}}, {64, 4096, {256}}, {128, 4096, {128, 256, 512}}};
        out("\n## flash_attn_vec (decode) + reduce, 32 heads, 8 KV heads\n");
        out("| head dim | KV length | cache | split | us | GB/s (K+V bytes) |");
        out("|---|---|---|---|---|---|");
        for (const AttnShape& shape : shapes)
            for (DType cache : {DType::f16, DType::f32})
                for (uint32_t split : shape.splits) {
                    DeviceMemory mem(device);
                    GraphExecutor exec(device, mem);
                    FlashAttnVecParams p;
                    p.head_dim = shape.head_dim;
                    p.n_heads = 32;
                    p.n_kv_heads = 8;
                    p.kv_len = shape.kv_len;
                    p.split_len = split;
                    const uint64_t elems = uint64_t(p.head_dim) * p.n_kv_heads * p.kv_len;
                    const uint64_t cache_bytes = dtype_bytes_for(cache, elems);
                    const AllocationId ka = mem.allocate("k", cache_bytes),
                                       va = mem.allocate("v", cache_bytes);
                    const AllocationId qa = mem.allocate("q", p.head_dim * p.n_heads * 4);
                    const AllocationId oa = mem.allocate("o", p.head_dim * p.n_heads * 4);
                    const AllocationId ta = mem.allocate("tmp", flash_attn_vec_tmp_elements(p) * 4);
                    std::vector<float> small(elems, 0.01f);
                    const TensorView k = mem.view(ka, cache, {p.head_dim, p.n_kv_heads, p.kv_len});
                    const TensorView v = mem.view(va, cache, {p.head_dim, p.n_kv_heads, p.kv_len});
                    mem.upload(k, ggml::quantize(cache, small));
                    mem.upload(v, ggml::quantize(cache, small));
                    const TensorView q = mem.view(qa, DType::f32, {p.head_dim, p.n_heads});
                    mem.upload(q, std::vector<float>(p.head_dim * p.n_heads, 0.01f));
                    const TensorView ov = mem.view(oa, DType::f32, {p.head_dim, p.n_heads});
                    const TensorView tmp =
                        mem.view(ta, DType::f32, {int64_t(flash_attn_vec_tmp_elements(p))});
                    const double ns = time_session(exec, o, [&](GraphSession& s) {
                        s.flash_attn_vec(q, k, v, ov, tmp, p, "bench");
                    });
                    out(fmt::format("| {} | {} | {} | {} | {:.2f} | {:.0f} |", p.head_dim, p.kv_len,
                                    dtype_name(cache), split, ns / 1000.0, 2.0 * cache_bytes / ns));
                }
    }

    if (!o.report_path.empty()) {
        std::ofstream f(o.report_path);
        if (!f) throw std::runtime_error("cannot write " + o.report_path);
        f << report;
    }
    return 0;
}

}  // namespace graphlens::bench
