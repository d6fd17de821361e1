// Kernel benchmarks (issue 4): mat-vec bandwidth against a device-to-device copy measured in
// the same run, the llama-3.2-1b Q4_0 mat-vec shapes one dispatch per command buffer, and
// flash_attn_vec at the llama-3.2-1b decode shapes (KV 512, 4096) and head dim 128. GPU time comes
// from timestamp queries around a command buffer holding only the measured work; each figure is the
// median of `repeats` runs after warm-up.
#include "bench_kernels.h"

#include <fmt/format.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "graphlens/ops/dispatch_helpers.h"
#include "graphlens/ops/ggml_blocks.h"
#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/command_encoder.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"
#include "graphlens/vulkan/graph_executor.h"
#include "graphlens/vulkan/graph_session.h"
#include "graphlens/vulkan/kernel_catalog.h"

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

/// The buffers of one mat-vec shape: `copies` distinct copies of the weights (together larger
/// than the L2 cache when streaming, so every dispatch reads HBM), one x, an output per copy.
struct MatvecSetup {
    DType type;
    uint32_t n, k;
    uint64_t bytes = 0;  ///< of one weight copy
    std::vector<TensorView> w, y;
    TensorView x;
    TensorView x_q8;  ///< x as q8x (Q4_0 / Q8_0 weights: what decode's mat-vecs read)
};

MatvecSetup setup_matvec(DeviceMemory& mem, DType t, uint32_t n, uint32_t k, bool streaming) {
    const auto bytes = tiled_weights(t, n, k, 42);
    const uint32_t copies =
        streaming ? std::clamp<uint32_t>(uint32_t((320ull << 20) / bytes.size()) + 1, 3, 16) : 1;
    MatvecSetup s{t, n, k, bytes.size(), {}, {}, {}, {}};
    for (uint32_t i = 0; i < copies; ++i) {
        const AllocationId wa =
            mem.allocate(fmt::format("w{}_{}x{}", i, n, k), bytes.size(), AllocationUsage::weights);
        mem.upload(wa, bytes);
        s.w.push_back(mem.view(wa, t, {k, n}));
        const AllocationId ya =
            mem.allocate(fmt::format("y{}", i), uint64_t(n) * 4, AllocationUsage::activations);
        s.y.push_back(mem.view(ya, DType::f32, {n}));
    }
    const AllocationId xa = mem.allocate("x", uint64_t(k) * 4, AllocationUsage::activations);
    s.x = mem.view(xa, DType::f32, {k});
    mem.upload(s.x, std::vector<float>(k, 0.01f));
    if ((t == DType::q4_0 || t == DType::q8_0) && k % 32 == 0) {
        const auto q = ggml::quantize(DType::q8x, std::vector<float>(k, 0.01f));
        const AllocationId qa = mem.allocate("x_q8", q.size(), AllocationUsage::activations);
        mem.upload(qa, q);
        s.x_q8 = mem.view(qa, DType::q8x, {k});
    }
    return s;
}

/// Records the mat-vec of weight copy i.
using MatvecRecorder = std::function<void(GraphSession&, const MatvecSetup&, uint32_t i)>;

/// Single: one dispatch per command buffer (includes the command buffer's fixed cost).
/// Streaming: a dispatch per weight copy into distinct outputs, one command buffer, no
/// barriers; per-dispatch time = (t(copies) - t(1)) / (copies - 1) removes the fixed cost.
MatvecResult time_matvec(GraphExecutor& exec, const MatvecSetup& m, const KernelBenchOptions& o,
                         const MatvecRecorder& record) {
    const auto copies = uint32_t(m.w.size());
    MatvecResult r;
    r.bytes = m.bytes;
    const double one = time_session(exec, o, [&](GraphSession& s) { record(s, m, 0); });
    r.single_us = one / 1000.0;
    if (copies > 1) {
        const double all = time_session(exec, o, [&](GraphSession& s) {
            for (uint32_t i = 0; i < copies; ++i) record(s, m, i);
        });
        const double per = (all - one) / (copies - 1);
        r.per_dispatch_us = per / 1000.0;
        r.gbps = double(m.bytes) / per;
    } else {
        r.gbps = double(m.bytes) / one;
    }
    return r;
}

/// What the ops dispatch: matmul for f16/f32 weights, quantized_matmul_ggml for blocks.
void record_op(GraphSession& s, const MatvecSetup& m, uint32_t i) {
    if (m.type == DType::f16 || m.type == DType::f32)
        ops::matmul(s, m.w[i], m.x, m.y[i], "bench");
    else
        ops::quantized_matmul_ggml(s, m.x, m.w[i], m.y[i], "bench");
}

/// What a decode step's mat-vecs over Q4_0 / Q8_0 dispatch: the op with x as q8x.
void record_op_q8x(GraphSession& s, const MatvecSetup& m, uint32_t i) {
    ops::quantized_matmul_ggml(s, m.x_q8, m.w[i], m.y[i], "bench");
}

// matmul_params.glsl
struct MatmulParams {
    uint32_t n = 0, k = 0, m = 0, row_bytes = 0, x_stride = 0, y_stride = 0, bits = 0,
             group_size = 0, expert_bytes = 0, n_ids = 0, x_slot_stride = 0;
};

/// A named matvec_blocks.comp kernel dispatched directly (rows per workgroup from its name,
/// "matvec1_<format>_<threads>x<rows>_c<chunk>[_u<unroll>][_glu_<act>]"). A gated kernel
/// (`gated`: act(W x) * (U x), the fused FFN of a decode step) takes weight copy i as the gate
/// and copy i + 1 as the up projection.
MatvecRecorder record_kernel(const std::string& kernel, bool gated = false,
                             std::optional<TensorView> x_override = std::nullopt) {
    const size_t x = kernel.find('x', 8), c = kernel.find("_c", x);
    const auto rows = uint32_t(std::stoul(kernel.substr(x + 1, c - x - 1)));
    return [kernel, rows, gated, x_override](GraphSession& s, const MatvecSetup& m, uint32_t i) {
        MatmulParams p;
        p.n = m.n;
        p.k = m.k;
        p.m = 1;
        p.row_bytes = uint32_t(m.bytes / m.n);
        p.x_stride = m.k;
        p.y_stride = m.n;
        DispatchDesc d;
        d.kernel = kernel;
        d.bindings = {{0, m.w[i]}, {1, x_override ? *x_override : m.x}, {2, m.y[i]}};
        if (gated) d.bindings.push_back({6, m.w[(i + 1) % m.w.size()]});
        d.push_constants = push_constant_bytes(p);
        d.workgroups = {(m.n + rows - 1) / rows, 1, 1};
        d.op = gated ? OpKind::matvec_glu : OpKind::quantized_matmul_ggml;
        d.label = "bench";
        s.dispatch(d);
    };
}

/// Keeps the GPU busy with copies so that it is at its boost clock when a timing starts: the
/// timed loops submit a few microseconds of work per command buffer and wait, and the clock
/// falls during such idle stretches and during the uploads of a new shape (seen on the H100:
/// the same kernel 3-4x slower late in a section).
class GpuWarmer {
  public:
    explicit GpuWarmer(Device& device) : mem_(device), exec_(device, mem_) {
        const uint64_t bytes = 64ull << 20;
        const AllocationId a = mem_.allocate("warm_src", bytes),
                           b = mem_.allocate("warm_dst", bytes);
        src_ = mem_.view(a, DType::f32, {int64_t(bytes / 4)});
        dst_ = mem_.view(b, DType::f32, {int64_t(bytes / 4)});
    }
    void warm(double ms) {
        const auto start = std::chrono::steady_clock::now();
        while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                   .count() < ms) {
            auto s = exec_.begin();
            for (int i = 0; i < 8; ++i) ops::copy(s, src_, dst_, "warm");
            s.finish_with_timing();
        }
    }

  private:
    DeviceMemory mem_;
    GraphExecutor exec_;
    TensorView src_, dst_;
};

/// One run of `graphlens-bench kernels`: the sections asked for, in order, each printed and
/// kept for the report.
class KernelBenchmarks {
  public:
    explicit KernelBenchmarks(const KernelBenchOptions& options) : o(options), warmer(device) {}
    int run();

  private:
    void out(const std::string& line) {
        fmt::print("{}\n", line);
        report += line + "\n";
    }
    /// Whether --sections names `section`.
    bool wanted(std::string_view section) const {
        std::string_view rest = o.sections;
        while (!rest.empty()) {
            const size_t comma = rest.find(',');
            if (rest.substr(0, comma) == section) return true;
            rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        }
        return false;
    }
    /// The reference: the fastest of vkCmdCopyBuffer, the scalar copy_f32 kernel and the 16-byte
    /// copy_f32_vec4 kernel, bytes read + bytes written per second.
    void copy_reference();
    /// The fixed cost of a measured command buffer (timestamps, submission barrier).
    void fixed_cost();
    /// Mat-vec bandwidth of the op on 8b shapes, with f32 and q8x x.
    void matvec();
    /// llama-3.2-1b's Q4_0 mat-vec shapes against llama.cpp's published times.
    void llama();
    /// Candidate matvec_blocks.comp kernels against what the op dispatches.
    void variants();
    /// The gated FFN kernels (gate + up + act·mul in one dispatch).
    void glu();
    /// The mat-vec twins over x quantised to 8 bits.
    void xq8();
    /// flash_attn_vec at decode shapes and split lengths.
    void attention();
    /// What a level of the dependency graph costs beyond its kernel's work.
    void levels();
    /// One table row per candidate kernel of a mat-vec shape: single and streaming time.
    void time_candidates(GraphExecutor& exec, const MatvecSetup& m,
                         const std::vector<std::pair<std::string, MatvecRecorder>>& cands);

    const KernelBenchOptions& o;
    Device device;
    GpuWarmer warmer;
    std::string report;
    double copy_gbps = 0;  ///< the copy reference, GB/s (0 until copy_reference ran)
};

int KernelBenchmarks::run() {
    out(fmt::format("# Kernel benchmarks on {} ({})", device.facts().name,
                    device.facts().driver_info));
    out(
        fmt::format("median of {} runs after {} warm-up, GPU time from timestamps, one command "
                    "buffer per measurement\n",
                    o.repeats, o.warmup));
    warmer.warm(300.0);
    if (wanted("copy") || wanted("matvec") || wanted("variants") || wanted("glu") || wanted("xq8"))
        copy_reference();
    if (wanted("matvec") || wanted("llama") || wanted("variants") || wanted("glu")) fixed_cost();
    if (wanted("matvec")) matvec();
    if (wanted("llama")) llama();
    if (wanted("variants")) variants();
    if (wanted("glu")) glu();
    if (wanted("xq8") && !device.facts().integer_dot_product)
        out("\n(xq8: the device has no shaderIntegerDotProduct; skipped)\n");
    else if (wanted("xq8"))
        xq8();
    if (wanted("attention")) attention();
    if (wanted("levels")) levels();
    if (!o.report_path.empty()) {
        std::ofstream f(o.report_path);
        if (!f) throw std::runtime_error("cannot write " + o.report_path);
        f << report;
    }
    return 0;
}

void KernelBenchmarks::time_candidates(
    GraphExecutor& exec, const MatvecSetup& m,
    const std::vector<std::pair<std::string, MatvecRecorder>>& cands) {
    for (const auto& [name, rec] : cands) {
        warmer.warm(100.0);
        const auto r = time_matvec(exec, m, o, rec);
        out(fmt::format("| {} x {} | {} | {} | {:.2f} | {:.2f} | {:.0f} | {:.0f}% |", m.n, m.k,
                        dtype_name(m.type), name, r.single_us, r.per_dispatch_us, r.gbps,
                        100.0 * r.gbps / copy_gbps));
    }
}

void KernelBenchmarks::copy_reference() {
    DeviceMemory mem(device);
    GraphExecutor exec(device, mem);
    const uint64_t bytes = o.copy_mb << 20;
    const AllocationId a = mem.allocate("copy_src", bytes), b = mem.allocate("copy_dst", bytes);
    warmer.warm(100.0);
    const double ns = time_copy(device, mem, a, b, bytes, o);
    const TensorView src = mem.view(a, DType::f32, {int64_t(bytes / 4)});
    const TensorView dst = mem.view(b, DType::f32, {int64_t(bytes / 4)});
    const double kernel_ns =
        time_session(exec, o, [&](GraphSession& s) { ops::copy(s, src, dst, "copy"); });
    const double vec4_ns = time_session(exec, o, [&](GraphSession& s) {
        DispatchDesc d;
        d.kernel = "copy_f32_vec4";
        d.bindings = {{0, src}, {1, dst}};
        d.push_constants = push_constant_bytes(uint32_t(bytes / 16));
        d.workgroups = grid_1d(bytes / 16, 256);
        d.op = OpKind::copy;
        d.label = "copy";
        s.dispatch(d);
    });
    copy_gbps = 2.0 * double(bytes) / std::min({ns, kernel_ns, vec4_ns});
    out(fmt::format(
        "device-to-device copy of {} MiB: vkCmdCopyBuffer {:.1f} us ({:.0f} GB/s), "
        "copy_f32 kernel {:.1f} us ({:.0f} GB/s), copy_f32_vec4 kernel {:.1f} us ({:.0f} "
        "GB/s), read + write; reference {:.0f} GB/s\n",
        o.copy_mb, ns / 1000.0, 2.0 * bytes / ns, kernel_ns / 1000.0, 2.0 * bytes / kernel_ns,
        vec4_ns / 1000.0, 2.0 * bytes / vec4_ns, copy_gbps));
}

void KernelBenchmarks::fixed_cost() {
    // Fixed cost of a measured command buffer: timestamps, submission barrier.
    DeviceMemory mem(device);
    GraphExecutor exec(device, mem);
    const AllocationId a = mem.allocate("tiny", 1024);
    const TensorView v = mem.view(a, DType::f32, {256});
    const double ns =
        time_session(exec, o, [&](GraphSession& s) { ops::scale(s, v, v, 1.0f, "tiny"); });
    out(
        fmt::format("one tiny dispatch alone in a command buffer: {:.2f} us (the fixed cost in "
                    "every 'single' figure)\n",
                    ns / 1000.0));
}

void KernelBenchmarks::matvec() {
    out("## Mat-vec bandwidth (weight bytes / GPU time per dispatch, streaming)\n");
    out("| weights (n x k) | type | MB | single dispatch us | streaming us | GB/s | % of copy "
        "|");
    out("|---|---|---|---|---|---|---|");
    const std::pair<uint32_t, uint32_t> shapes[] = {{4096, 4096}, {4096, 14336}, {14336, 4096}};
    for (auto [n, k] : shapes)
        for (DType t : {DType::f16, DType::q8_0, DType::q4_0}) {
            DeviceMemory mem(device);
            GraphExecutor exec(device, mem);
            const MatvecSetup m = setup_matvec(mem, t, n, k, true);
            warmer.warm(100.0);
            const auto r = time_matvec(exec, m, o, record_op);
            out(fmt::format("| {} x {} | {} | {:.1f} | {:.2f} | {:.2f} | {:.0f} | {:.0f}% |", n, k,
                            dtype_name(t), r.bytes / 1e6, r.single_us, r.per_dispatch_us, r.gbps,
                            100.0 * r.gbps / copy_gbps));
            if (m.x_q8.size == 0 || !device.facts().integer_dot_product) continue;
            // The op as a decode step dispatches it: x given as q8x (its norm wrote it).
            warmer.warm(100.0);
            const auto q = time_matvec(exec, m, o, record_op_q8x);
            out(
                fmt::format("| {} x {} | {}, q8x x | {:.1f} | {:.2f} | {:.2f} | {:.0f} | "
                            "{:.0f}% |",
                            n, k, dtype_name(t), q.bytes / 1e6, q.single_us, q.per_dispatch_us,
                            q.gbps, 100.0 * q.gbps / copy_gbps));
        }
    // What the q8x x costs where no norm writes it: quantize_q8 of the rows alone.
    if (device.facts().integer_dot_product)
        for (uint32_t k : {4096u, 14336u}) {
            DeviceMemory mem(device);
            GraphExecutor exec(device, mem);
            const TensorView x = mem.view(mem.allocate("x", uint64_t(k) * 4), DType::f32, {k});
            const TensorView q =
                mem.view(mem.allocate("x_q8", dtype_bytes_for(DType::q8x, k)), DType::q8x, {k});
            warmer.warm(100.0);
            const double ns =
                time_session(exec, o, [&](GraphSession& s) { ops::quantize_q8(s, x, q, "q8"); });
            out(fmt::format("quantize_q8 of {} values alone in a command buffer: {:.2f} us", k,
                            ns / 1000.0));
        }
}

void KernelBenchmarks::llama() {
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
        const MatvecSetup m = setup_matvec(mem, DType::q4_0, s.n, s.k, true);
        warmer.warm(100.0);
        const auto r = time_matvec(exec, m, o, record_op);
        out(fmt::format("| {} x {} | {:.2f} | {:.2f} | {:.1f} |", s.n, s.k, r.single_us,
                        r.per_dispatch_us, s.llama_us));
    }
}

void KernelBenchmarks::variants() {
    // Candidate matvec_blocks.comp kernels against what the op dispatches, on every shape
    // of the matvec and llama sections and llama-3.1-8b's lm_head (m = 1).
    out("\n## Mat-vec kernel candidates (m = 1), streaming GB/s and single-dispatch us\n");
    out("| weights (n x k) | type | kernel | single us | streaming us | GB/s | % of copy |");
    out("|---|---|---|---|---|---|---|");
    const struct {
        uint32_t n, k;
        DType t;
    } shapes[] = {
        {4096, 4096, DType::q4_0}, {4096, 14336, DType::q4_0},  {14336, 4096, DType::q4_0},
        {4096, 4096, DType::q8_0}, {4096, 14336, DType::q8_0},  {14336, 4096, DType::q8_0},
        {2048, 2048, DType::q4_0}, {512, 2048, DType::q4_0},    {8192, 2048, DType::q4_0},
        {2048, 8192, DType::q4_0}, {128256, 2048, DType::q4_0}, {128256, 4096, DType::q4_0}};
    for (const auto& sh : shapes) {
        DeviceMemory mem(device);
        GraphExecutor exec(device, mem);
        const MatvecSetup m = setup_matvec(mem, sh.t, sh.n, sh.k, true);
        std::vector<std::pair<std::string, MatvecRecorder>> cands = {{"(op)", record_op}};
        const std::string prefix = fmt::format("matvec1_{}_", dtype_name(sh.t));
        for (const auto& name : KernelCatalog::embedded().names())
            // Plain mat-vecs only: the epilogue (_rope…, _f16) and gated (_glu_…)
            // variants need more bindings.
            if (name.rfind(prefix, 0) == 0 && name.find("_rope") == std::string::npos &&
                name.find("_glu_") == std::string::npos && !name.ends_with("_f16") &&
                !name.ends_with("_xq8"))
                cands.emplace_back(name, record_kernel(name));
        time_candidates(exec, m, cands);
    }
}

void KernelBenchmarks::glu() {
    // The gated kernels (gate, up and act·mul of a decode FFN in one dispatch) on the FFN
    // shapes of llama-3.1-8b and llama-3.2-1b: single is what a decode step sees (the
    // dispatch runs alone between two barriers); bytes are both weights'.
    out("\n## Gated mat-vec kernels (gate + up + silu·mul), Q4_0 (_xq8: x as q8x), "
        "single-dispatch us\n");
    out("| weights (n x k), each of 2 | kernel | single us | streaming us | GB/s | % of copy "
        "|");
    out("|---|---|---|---|---|---|");
    const std::pair<uint32_t, uint32_t> shapes[] = {{14336, 4096}, {8192, 2048}};
    for (auto [n, k] : shapes) {
        DeviceMemory mem(device);
        GraphExecutor exec(device, mem);
        MatvecSetup m = setup_matvec(mem, DType::q4_0, n, k, true);
        for (const auto& name : KernelCatalog::embedded().names()) {
            const bool xq8 = name.ends_with("_glu_silu_xq8");
            if (name.rfind("matvec1_q4_0_", 0) != 0 || !(name.ends_with("_glu_silu") || xq8))
                continue;
            if (xq8 && !device.facts().integer_dot_product) continue;
            warmer.warm(100.0);
            auto r = time_matvec(
                exec, m, o, record_kernel(name, true, xq8 ? std::optional(m.x_q8) : std::nullopt));
            r.gbps *= 2.0;
            out(fmt::format("| {} x {} | {} | {:.2f} | {:.2f} | {:.0f} | {:.0f}% |", n, k, name,
                            r.single_us, r.per_dispatch_us, r.gbps,
                            copy_gbps > 0 ? 100.0 * r.gbps / copy_gbps : 0.0));
        }
    }
}

void KernelBenchmarks::xq8() {
    // The mat-vec twins over x given quantised to 8 bits (10 words per 32 elements, X_Q8 in
    // matvec_blocks.comp) with integer dot products, against the op's f32-x kernel, over
    // the setup's q8x x (0.01 everywhere: timing does not depend on the values).
    out("\n## Mat-vec with x quantised to 8 bits (integer dot products), streaming\n");
    out("| weights (n x k) | type | kernel | single us | streaming us | GB/s | % of copy |");
    out("|---|---|---|---|---|---|---|");
    const struct {
        uint32_t n, k;
        DType t;
    } shapes[] = {{4096, 4096, DType::q4_0},   {4096, 14336, DType::q4_0},
                  {14336, 4096, DType::q4_0},  {2048, 2048, DType::q4_0},
                  {8192, 2048, DType::q4_0},   {2048, 8192, DType::q4_0},
                  {128256, 2048, DType::q4_0}, {4096, 4096, DType::q8_0}};
    for (const auto& sh : shapes) {
        DeviceMemory mem(device);
        GraphExecutor exec(device, mem);
        const MatvecSetup m = setup_matvec(mem, sh.t, sh.n, sh.k, true);
        std::vector<std::pair<std::string, MatvecRecorder>> cands = {
            {"(op, f32 x)", record_op}, {"(op, q8x x)", record_op_q8x}};
        const std::string prefix = fmt::format("matvec1_{}_", dtype_name(sh.t));
        for (const auto& name : KernelCatalog::embedded().names())
            if (name.rfind(prefix, 0) == 0 && name.ends_with("_xq8") &&
                name.find("_glu_") == std::string::npos &&
                name.find("_rope") == std::string::npos && name.find("_f16") == std::string::npos)
                cands.emplace_back(name, record_kernel(name, false, m.x_q8));
        time_candidates(exec, m, cands);
    }
}

void KernelBenchmarks::attention() {
    // The decode shapes of llama-3.2-1b (head dim 64) at KV 512 and 4096, the head dim 128
    // shape the section started with, then what decode steps at contexts 512 and 4096
    // attend (KV 513, 4097) over split lengths, 0 the op's automatic choice.
    struct AttnShape {
        uint32_t head_dim, kv_len;
        std::vector<uint32_t> splits;
    };
    const AttnShape shapes[] = {{64, 512, {256}},
                                {64, 4096, {256}},
                                {128, 4096, {128, 256, 512}},
                                {64, 513, {0, 128, 256}},
                                {64, 4097, {0, 256, 512, 1024}},
                                {128, 513, {0, 128, 256}},
                                {128, 4097, {0, 256, 512, 1024}}};
    out("\n## flash_attn_vec (decode, one dispatch), 32 heads, 8 KV heads\n");
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
                const AllocationId ca =
                    mem.allocate("counters", flash_attn_vec_counter_elements(p) * 4);
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
                const TensorView ctr =
                    mem.view(ca, DType::u32, {int64_t(flash_attn_vec_counter_elements(p))});
                mem.upload(ctr, std::vector<uint32_t>(p.n_heads, 0));  // zero; runs keep it
                warmer.warm(100.0);
                const double ns = time_session(exec, o, [&](GraphSession& s) {
                    ops::flash_attn_vec(s, q, k, v, ov, tmp, ctr, p, "bench");
                });
                const std::string split_text =
                    split ? std::to_string(split)
                          : fmt::format("auto ({})", flash_attn_vec_split_len(p));
                out(fmt::format("| {} | {} | {} | {} | {:.2f} | {:.0f} |", p.head_dim, p.kv_len,
                                dtype_name(cache), split_text, ns / 1000.0,
                                2.0 * cache_bytes / ns));
            }
}

void KernelBenchmarks::levels() {
    // What a level of the dependency graph costs the GPU beyond its kernel's work: 64
    // dispatches of a small copy, each reading what the one before wrote (a barrier before
    // every dispatch but the first), against 64 independent ones (no barrier), for grids
    // from one workgroup to several per SM. Decode is 7 such levels a layer.
    constexpr int kChain = 64;
    out("\n## Levels: a barrier and the next dispatch's ramp (`--sections levels`)\n");
    out(
        fmt::format("{} copy_f32_vec4 dispatches of 256 threads, 16 bytes a thread, per "
                    "command buffer (minus one tiny dispatch alone); µs per dispatch\n",
                    kChain));
    out("| workgroups | independent (no barrier) | dependent (barrier before each) | "
        "difference: barrier + ramp + tail |");
    out("|---|---|---|---|");
    DeviceMemory mem(device);
    GraphExecutor exec(device, mem);
    const AllocationId tiny_a = mem.allocate("tiny", 1024);
    const TensorView tiny = mem.view(tiny_a, DType::f32, {256});
    warmer.warm(100.0);
    const double fixed_ns =
        time_session(exec, o, [&](GraphSession& s) { ops::scale(s, tiny, tiny, 1.0f, "tiny"); });
    for (uint32_t groups : {1u, 132u, 528u, 2112u}) {
        const uint64_t vec4s = uint64_t(groups) * 256, bytes = vec4s * 16;
        std::vector<TensorView> bufs;
        for (int i = 0; i < kChain + 1; ++i)
            bufs.push_back(mem.view(mem.allocate(fmt::format("level{}_{}", groups, i), bytes),
                                    DType::f32, {int64_t(vec4s * 4)}));
        auto copy = [&](GraphSession& s, const TensorView& src, const TensorView& dst) {
            DispatchDesc d;
            d.kernel = "copy_f32_vec4";
            d.bindings = {{0, src}, {1, dst}};
            d.push_constants = push_constant_bytes(uint32_t(vec4s));
            d.workgroups = grid_1d(vec4s, 256);
            d.op = OpKind::copy;
            d.label = "level";
            s.dispatch(d);
        };
        warmer.warm(50.0);
        // Independent: each copies buffer 0 into its own buffer (read-read: no barrier).
        const double free_ns = time_session(exec, o, [&](GraphSession& s) {
            for (int i = 0; i < kChain; ++i) copy(s, bufs[0], bufs[size_t(i) + 1]);
        });
        // Dependent: buffer i into buffer i + 1, a chain of RAW hazards.
        const double chain_ns = time_session(exec, o, [&](GraphSession& s) {
            for (int i = 0; i < kChain; ++i) copy(s, bufs[size_t(i)], bufs[size_t(i) + 1]);
        });
        const double per_free = (free_ns - fixed_ns) / kChain / 1000.0,
                     per_chain = (chain_ns - fixed_ns) / kChain / 1000.0;
        out(fmt::format("| {} | {:.2f} | {:.2f} | {:.2f} |", groups, per_free, per_chain,
                        per_chain - per_free));
    }
}

}  // namespace

int run_kernel_benchmarks(const KernelBenchOptions& o) {
    return KernelBenchmarks(o).run();
}

}  // namespace graphlens::bench
