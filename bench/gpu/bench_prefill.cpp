// graphlens-bench prefill: the prefill kernels at llama-3.2-1b shapes (512 tokens). Mat-mat
// (Q4_0 weights x 512 columns) in TFLOP/s, sdpa (causal, 32 query heads, 8 KV heads) in us,
// and a check of the GPU's mat-mat against the double-precision CPU reference on the device
// that runs it (the tests only reach lavapipe). GPU time from timestamp queries around a
// command buffer holding one dispatch; median of --repeat runs after >= --warmup-ms of work.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "bench_command.h"
#include "graphlens/ops/dispatch_helpers.h"
#include "graphlens/ops/ggml_blocks.h"
#include "graphlens/ops/ops.h"
#include "graphlens/ops/reference.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"
#include "graphlens/vulkan/graph_executor.h"
#include "graphlens/vulkan/graph_session.h"
#include "graphlens/vulkan/kernel_catalog.h"
#include "graphlens/vulkan/kernel_registry.h"

namespace graphlens::bench {
namespace {

struct PrefillBenchOptions {
    uint32_t tokens = 512;
    uint32_t repeats = 20;
    uint32_t warmup_ms = 300;
    std::string sections = "matmat,tiles,sdpa,check";
    std::string tensor_cores = "auto";  // auto (device default, GRAPHLENS_TENSOR_CORES), on, off
    std::string report_path;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

/// Median GPU ns of `record` alone in a command buffer, after warm-up runs filling at least
/// `warmup_ms` of wall time (the H100 needs that to reach its clocks).
double time_session(GraphExecutor& exec, const PrefillBenchOptions& o,
                    const std::function<void(GraphSession&)>& record) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0;
         i < 3 || std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(o.warmup_ms);
         ++i) {
        auto s = exec.begin();
        record(s);
        s.finish();
    }
    std::vector<double> samples;
    for (uint32_t i = 0; i < o.repeats; ++i) {
        auto s = exec.begin();
        record(s);
        samples.push_back(double(s.finish_with_timing().gpu_ns));
    }
    return median(samples);
}

/// n rows of k weights in format t: one random row repeated (timing does not depend on the
/// values), or all rows random when `distinct` (for the check).
std::vector<uint8_t> weights(DType t, uint32_t n, uint32_t k, bool distinct, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.0f, 0.05f);
    std::vector<float> rows(size_t(k) * (distinct ? n : 1));
    for (auto& v : rows) v = d(rng);
    const auto q = ggml::quantize(t, rows);
    if (distinct) return q;
    std::vector<uint8_t> all(q.size() * n);
    for (uint32_t r = 0; r < n; ++r)
        std::copy(q.begin(), q.end(), all.begin() + size_t(r) * q.size());
    return all;
}

struct Matmat {
    TensorView w, x, y;
};

Matmat setup_matmat(DeviceMemory& mem, DType t, uint32_t n, uint32_t k, uint32_t m,
                    const std::vector<uint8_t>& wbytes, const std::vector<float>& x) {
    const AllocationId wa = mem.allocate("w", wbytes.size(), AllocationUsage::weights);
    mem.upload(wa, wbytes);
    const AllocationId xa = mem.allocate("x", uint64_t(k) * m * 4, AllocationUsage::activations);
    const AllocationId ya = mem.allocate("y", uint64_t(n) * m * 4, AllocationUsage::activations);
    Matmat r{mem.view(wa, t, {k, n}), mem.view(xa, DType::f32, {k, m}),
             mem.view(ya, DType::f32, {n, m})};
    mem.upload(r.x, x);
    return r;
}

void record_matmat(GraphSession& s, const Matmat& mm) {
    if (dtype_is_quantized(mm.w.dtype))
        ops::quantized_matmul_ggml(s, mm.x, mm.w, mm.y, "bench");
    else
        ops::matmul(s, mm.w, mm.x, mm.y, "bench");
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& e : v) e = d(rng);
    return v;
}

// "" (the default tensor-core twins) and every variant tag (KernelCatalog).
std::vector<std::string> twin_tags() {
    std::vector<std::string> tags{""};
    for (const auto& t : KernelCatalog::embedded().tensor_core_tags()) tags.push_back(t);
    return tags;
}

Device::Options device_options(const PrefillBenchOptions& o) {
    Device::Options dopt;
    if (o.tensor_cores == "on" || o.tensor_cores == "off")
        dopt.tensor_cores = o.tensor_cores == "on";
    else if (o.tensor_cores != "auto")
        throw std::runtime_error("--tensor-cores must be auto, on or off");
    return dopt;
}

/// One run of `graphlens-bench prefill`: the sections asked for, in order, each printed and
/// kept for the report.
class PrefillBenchmarks {
  public:
    explicit PrefillBenchmarks(const PrefillBenchOptions& options)
        : o(options), device(device_options(options)), m(options.tokens) {}
    int run();

  private:
    void out(const std::string& line) {
        fmt::print("{}\n", line);
        report += line + "\n";
    }
    /// Whether --sections names `section`.
    bool wanted(std::string_view section) const {
        return ("," + o.sections + ",").find("," + std::string(section) + ",") != std::string::npos;
    }
    const char* tc_of(const std::string& kernel) {
        return device.kernels().get(kernel).tensor_cores ? "yes" : "no";
    }
    void print_header();
    /// Mat-mat time and TFLOP/s on llama-3.2-1b's prefill shapes.
    void matmat();
    /// The mat-mat tile variants.
    void tiles();
    /// The tensor-core twins of every variant tag.
    void tcvariants();
    /// Statistics of the tensor-core runs.
    void stats();
    /// Prefill attention (sdpa) at the model's shapes.
    void sdpa();
    /// Mat-mat against the CPU reference (double) on this device.
    void check_matmat();
    /// sdpa against the CPU reference (double) on this device.
    void check_sdpa();

    const PrefillBenchOptions& o;
    Device device;
    const uint32_t m;  ///< tokens: the columns of the mat-mats, the queries and keys
    std::string report;
};

int PrefillBenchmarks::run() {
    if (o.tensor_cores == "on" && !device.uses_tensor_cores())
        throw std::runtime_error(
            "--tensor-cores on: this device cannot (DeviceFacts::tensor_cores)");
    print_header();
    if (wanted("matmat")) matmat();
    if (wanted("tiles")) tiles();
    if (wanted("tcvariants")) tcvariants();
    if (wanted("stats")) stats();
    if (wanted("sdpa")) sdpa();
    if (wanted("check")) {
        check_matmat();
        check_sdpa();
    }
    if (!o.report_path.empty()) {
        std::ofstream f(o.report_path);
        if (!f) throw std::runtime_error("cannot write " + o.report_path);
        f << report;
    }
    return 0;
}

void PrefillBenchmarks::print_header() {
    out(fmt::format("# Prefill kernels on {} ({}), {} tokens\n", device.facts().name,
                    device.facts().driver_info, o.tokens));
    out(
        fmt::format("median of {} runs after >= {} ms of warm-up, one dispatch per command "
                    "buffer (its fixed cost, ~6 us on the H100, included)\n",
                    o.repeats, o.warmup_ms));
    {
        const DeviceFacts& f = device.facts();
        out(
            fmt::format("VK_NV_cooperative_matrix: {}; VK_KHR_cooperative_matrix: {}; tensor-core "
                        "mat-mat possible: {}; used: {}",
                        f.cooperative_matrix_nv ? "yes" : "no", f.cooperative_matrix ? "yes" : "no",
                        f.tensor_cores ? "yes" : "no", device.uses_tensor_cores() ? "yes" : "no"));
        out(fmt::format("NV cooperative-matrix shapes: {}\n",
                        f.cooperative_matrix_nv_shapes.empty()
                            ? std::string("none")
                            : fmt::format("{}", fmt::join(f.cooperative_matrix_nv_shapes, ", "))));
    }
}

void PrefillBenchmarks::matmat() {
    out("## Mat-mat, weights (n x k) x activations (k x tokens)\n");
    out("| weights (n x k) | type | kernel | tensor cores | us | TFLOP/s |");
    out("|---|---|---|---|---|---|");
    const struct {
        uint32_t n, k;
        DType t;
    } shapes[] = {
        {2048, 2048, DType::q4_0}, {512, 2048, DType::q4_0},    {8192, 2048, DType::q4_0},
        {2048, 8192, DType::q4_0}, {128256, 2048, DType::q4_0}, {2048, 2048, DType::f16},
        {2048, 2048, DType::q8_0}, {8192, 2048, DType::q8_0},   {2048, 8192, DType::q8_0}};
    for (const auto& sh : shapes) {
        DeviceMemory mem(device);
        GraphExecutor exec(device, mem);
        const Matmat mm =
            setup_matmat(mem, sh.t, sh.n, sh.k, m, weights(sh.t, sh.n, sh.k, false, 1),
                         random_floats(size_t(sh.k) * m, 2));
        auto recorded = exec.begin_recorded();
        record_matmat(recorded, mm);
        const ComputeGraph g = recorded.finish_recording();
        const double ns = time_session(exec, o, [&](GraphSession& s) { record_matmat(s, mm); });
        out(fmt::format("| {} x {} | {} | {} | {} | {:.1f} | {:.2f} |", sh.n, sh.k,
                        dtype_name(sh.t), g.kernels.front().name, tc_of(g.kernels.front().name),
                        ns / 1000.0, 2.0 * sh.n * sh.k * double(m) / ns / 1000.0));
    }
}

void PrefillBenchmarks::tiles() {
    // Both tile sizes of the mat-mat kernel on each shape, whichever the op would pick:
    // the data behind kMatmulTiles (workloads/llm/ops/src/matmul.cpp).
    out("\n## Mat-mat tile sizes (q4_0), dispatched by kernel name\n");
    out("| weights (n x k) | kernel | tensor cores | workgroups | us | TFLOP/s |");
    out("|---|---|---|---|---|---|");
    const std::pair<uint32_t, uint32_t> shapes[] = {
        {2048, 2048}, {512, 2048}, {8192, 2048}, {2048, 8192}};
    for (auto [n, k] : shapes)
        for (auto [rows, cols, suffix] :
             {std::tuple{64u, 64u, "_t64"}, std::tuple{128u, 64u, "_t128x64"},
              std::tuple{128u, 128u, ""}}) {
            DeviceMemory mem(device);
            GraphExecutor exec(device, mem);
            const Matmat mm =
                setup_matmat(mem, DType::q4_0, n, k, m, weights(DType::q4_0, n, k, false, 1),
                             random_floats(size_t(k) * m, 2));
            struct {  // matmul_params.glsl
                uint32_t n, k, m, row_bytes, x_stride, y_stride, bits, group_size, expert_bytes,
                    n_ids, x_slot_stride;
            } params{n, k, m, k / 32 * 18, k, n, 0, 0, 0, 0, 0};
            DispatchDesc d;
            d.kernel = std::string("matmul_q4_0") + suffix;
            d.bindings = {{0, mm.w}, {1, mm.x}, {2, mm.y}};
            d.push_constants = push_constant_bytes(params);
            d.workgroups = {(n + rows - 1) / rows, (m + cols - 1) / cols, 1};
            d.op = OpKind::quantized_matmul_ggml;
            d.label = "bench";
            const double ns = time_session(exec, o, [&](GraphSession& s) { s.dispatch(d); });
            out(fmt::format("| {} x {} | {} | {} | {} | {:.1f} | {:.2f} |", n, k, d.kernel,
                            tc_of(d.kernel), d.workgroups[0] * d.workgroups[1], ns / 1000.0,
                            2.0 * n * k * double(m) / ns / 1000.0));
        }
}

void PrefillBenchmarks::tcvariants() {
    // Every tensor-core twin variant (KernelCatalog tags; "" the default) on the llama q4_0
    // shapes, each on a Device of its own, with a check against the CPU reference.
    out("\n## Tensor-core twin variants (q4_0), by the op's tile choice\n");
    out("| variant | weights (n x k) x tokens | module | us | TFLOP/s | relative error |");
    out("|---|---|---|---|---|---|");
    const std::vector<std::string> tags = twin_tags();
    const struct {
        uint32_t n, k, m;
        bool timed;
    } shapes[] = {{2048, 2048, m, true}, {512, 2048, m, true},         {8192, 2048, m, true},
                  {2048, 8192, m, true}, {2048 + 68, 96, 1027, false}, {1028, 96, 900, false}};
    for (const std::string& tag : tags) {
        Device::Options vo = device_options(o);
        vo.tensor_core_variant = tag;
        Device vd(vo);
        for (const auto& sh : shapes) {
            DeviceMemory mem(vd);
            GraphExecutor exec(vd, mem);
            const auto wbytes = weights(DType::q4_0, sh.n, sh.k, !sh.timed, 6);
            const auto x = random_floats(size_t(sh.k) * sh.m, 7);
            const Matmat mm = setup_matmat(mem, DType::q4_0, sh.n, sh.k, sh.m, wbytes, x);
            auto recorded = exec.begin_recorded();
            record_matmat(recorded, mm);
            const ComputeGraph g = recorded.finish_recording();
            const std::string module = vd.kernels().get(g.kernels.front().name).module_name;
            double ns = 0;
            std::string err = "-";
            if (sh.timed) {
                ns = time_session(exec, o, [&](GraphSession& s) { record_matmat(s, mm); });
            } else {
                auto s = exec.begin();
                record_matmat(s, mm);
                s.finish();
                const auto got =
                    ggml::dequantize(DType::f32, mem.download(mm.y), size_t(sh.n) * sh.m);
                const auto want =
                    reference::matmul(ggml::dequantize(DType::q4_0, wbytes, size_t(sh.n) * sh.k), x,
                                      sh.n, sh.k, sh.m);
                double e2 = 0, n2 = 0;
                for (size_t i = 0; i < want.size(); ++i) {
                    e2 += (got[i] - want[i]) * (got[i] - want[i]);
                    n2 += want[i] * want[i];
                }
                err = fmt::format("{:.2e}", std::sqrt(e2 / n2));
            }
            out(fmt::format(
                "| {} | {} x {} x {} | {} | {} | {} | {} |", tag.empty() ? "default" : tag, sh.n,
                sh.k, sh.m, module, sh.timed ? fmt::format("{:.1f}", ns / 1000.0) : "-",
                sh.timed ? fmt::format("{:.2f}", 2.0 * sh.n * sh.k * double(sh.m) / ns / 1000.0)
                         : "-",
                err));
        }
    }
}

void PrefillBenchmarks::stats() {
    // What the driver says of the prefill kernels' pipelines (registers, shared memory,
    // spills; VK_KHR_pipeline_executable_properties), default twins and every tag.
    out("\n## Pipeline statistics (driver-reported)\n");
    out("| kernel | module | statistic | value |");
    out("|---|---|---|---|");
    const std::vector<std::string> tags = twin_tags();
    for (const std::string& tag : tags) {
        Device::Options so = device_options(o);
        so.pipeline_statistics = true;
        so.tensor_core_variant = tag;
        Device sd(so);
        if (!sd.pipeline_statistics()) {
            out("| - | - | no VK_KHR_pipeline_executable_properties | - |");
            break;
        }
        for (const char* k : {"matmul_q4_0", "matmul_q4_0_t128x64", "matmul_q4_0_t64",
                              "sdpa_f32_hd64", "sdpa_f32", "matvec1_q4_0_128x4_c16_xq8"}) {
            if (!tag.empty() && KernelCatalog::embedded().tensor_core_twin(k, tag) ==
                                    KernelCatalog::embedded().tensor_core_twin(k))
                continue;  // no such tagged twin: the default's row above
            const std::string module = sd.kernels().get(k).module_name;
            for (const KernelStatistic& st : sd.kernels().statistics(k))
                out(fmt::format("| {} | {} | {} | {} |", k, module, st.name, st.value));
        }
    }
}

void PrefillBenchmarks::sdpa() {
    out("\n## sdpa (prefill, causal), 32 query heads, 8 KV heads, KV = tokens\n");
    out("| head dim | KV cache | softcap | window | us |");
    out("|---|---|---|---|---|");
    const struct {
        uint32_t head_dim;
        DType kv;
        float softcap;
        uint32_t window;
    } shapes[] = {{64, DType::f32, 0, 0},
                  {64, DType::f16, 0, 0},
                  {128, DType::f16, 0, 0},
                  {256, DType::f16, 50.0f, 128}};
    for (const auto& sh : shapes) {
        DeviceMemory mem(device);
        GraphExecutor exec(device, mem);
        SdpaParams p;
        p.head_dim = sh.head_dim;
        p.n_heads = 32;
        p.n_kv_heads = 8;
        p.seq_q = m;
        p.seq_kv = m;
        p.softcap = sh.softcap;
        p.window = sh.window;
        const uint64_t kv_elems = uint64_t(p.head_dim) * p.n_kv_heads * m;
        const uint64_t q_elems = uint64_t(p.head_dim) * p.n_heads * m;
        const AllocationId qa = mem.allocate("q", q_elems * 4), oa = mem.allocate("o", q_elems * 4);
        const AllocationId ka = mem.allocate("k", dtype_bytes_for(sh.kv, kv_elems));
        const AllocationId va = mem.allocate("v", dtype_bytes_for(sh.kv, kv_elems));
        const TensorView q = mem.view(qa, DType::f32, {p.head_dim, p.n_heads, m});
        const TensorView ov = mem.view(oa, DType::f32, {p.head_dim, p.n_heads, m});
        const TensorView k = mem.view(ka, sh.kv, {p.head_dim, p.n_kv_heads, m});
        const TensorView v = mem.view(va, sh.kv, {p.head_dim, p.n_kv_heads, m});
        mem.upload(q, random_floats(q_elems, 3));
        mem.upload(k, ggml::quantize(sh.kv, random_floats(kv_elems, 4)));
        mem.upload(v, ggml::quantize(sh.kv, random_floats(kv_elems, 5)));
        const double ns =
            time_session(exec, o, [&](GraphSession& s) { ops::sdpa(s, q, k, v, ov, p, "bench"); });
        out(fmt::format("| {} | {} | {} | {} | {:.1f} |", p.head_dim, dtype_name(sh.kv), sh.softcap,
                        sh.window, ns / 1000.0));
    }
}

void PrefillBenchmarks::check_matmat() {
    // Distinct random weights, compared with the reference on the dequantised weights:
    // norm(error) / norm(reference), as the tests measure it.
    out("\n## Mat-mat against the CPU reference (double) on this device\n");
    out("| weights (n x k) x tokens | type | kernel | tensor cores | relative error |");
    out("|---|---|---|---|---|");
    const struct {
        uint32_t n, k, m;
        DType t;
    } shapes[] = {{512, 2048, m, DType::q4_0},        {2048, 2048, m, DType::q4_0},
                  {2048 + 68, 96, 1027, DType::q4_0}, {1028, 96, 900, DType::q4_0},
                  {2048 + 67, 96, 1027, DType::q4_0}, {777, 2048, 333, DType::q8_0},
                  {515, 1000, 517, DType::f16}};
    for (const auto& sh : shapes) {
        DeviceMemory mem(device);
        GraphExecutor exec(device, mem);
        const auto wbytes = weights(sh.t, sh.n, sh.k, true, 6);
        const auto x = random_floats(size_t(sh.k) * sh.m, 7);
        const Matmat mm = setup_matmat(mem, sh.t, sh.n, sh.k, sh.m, wbytes, x);
        auto recorded = exec.begin_recorded();
        record_matmat(recorded, mm);
        const ComputeGraph g = recorded.finish_recording();
        auto s = exec.begin();
        record_matmat(s, mm);
        s.finish();
        const auto got = ggml::dequantize(DType::f32, mem.download(mm.y), size_t(sh.n) * sh.m);
        const auto want = reference::matmul(ggml::dequantize(sh.t, wbytes, size_t(sh.n) * sh.k), x,
                                            sh.n, sh.k, sh.m);
        double err = 0, norm = 0;
        for (size_t i = 0; i < want.size(); ++i) {
            err += (got[i] - want[i]) * (got[i] - want[i]);
            norm += want[i] * want[i];
        }
        out(fmt::format("| {} x {} x {} | {} | {} | {} | {:.2e} |", sh.n, sh.k, sh.m,
                        dtype_name(sh.t), g.kernels.front().name, tc_of(g.kernels.front().name),
                        std::sqrt(err / norm)));
    }
}

void PrefillBenchmarks::check_sdpa() {
    out("\n## sdpa against the CPU reference (double) on this device\n");
    out("| head dim | heads / KV heads | queries / keys | KV cache | softcap | window | "
        "relative "
        "error |");
    out("|---|---|---|---|---|---|---|");
    const struct {
        uint32_t head_dim, n_heads, n_kv_heads, seq_q, seq_kv;
        DType kv;
        float softcap;
        uint32_t window;
    } shapes[] = {{64, 32, 8, 203, 230, DType::f32, 0, 0},
                  {64, 32, 8, 203, 230, DType::f16, 0, 0},
                  {256, 8, 4, 77, 77, DType::f16, 50.0f, 20}};
    for (const auto& sh : shapes) {
        DeviceMemory mem(device);
        GraphExecutor exec(device, mem);
        SdpaParams p;
        p.head_dim = sh.head_dim;
        p.n_heads = sh.n_heads;
        p.n_kv_heads = sh.n_kv_heads;
        p.seq_q = sh.seq_q;
        p.seq_kv = sh.seq_kv;
        p.softcap = sh.softcap;
        p.window = sh.window;
        const uint64_t kv_elems = uint64_t(p.head_dim) * p.n_kv_heads * p.seq_kv;
        const uint64_t q_elems = uint64_t(p.head_dim) * p.n_heads * p.seq_q;
        const auto qv = random_floats(q_elems, 8);
        const auto kq = ggml::quantize(sh.kv, random_floats(kv_elems, 9));
        const auto vq = ggml::quantize(sh.kv, random_floats(kv_elems, 10));
        const AllocationId qa = mem.allocate("q", q_elems * 4), oa = mem.allocate("o", q_elems * 4);
        const AllocationId ka = mem.allocate("k", kq.size()), va = mem.allocate("v", vq.size());
        const TensorView q = mem.view(qa, DType::f32, {p.head_dim, p.n_heads, p.seq_q});
        const TensorView ov = mem.view(oa, DType::f32, {p.head_dim, p.n_heads, p.seq_q});
        const TensorView k = mem.view(ka, sh.kv, {p.head_dim, p.n_kv_heads, p.seq_kv});
        const TensorView v = mem.view(va, sh.kv, {p.head_dim, p.n_kv_heads, p.seq_kv});
        mem.upload(q, qv);
        mem.upload(ka, kq);
        mem.upload(va, vq);
        auto s = exec.begin();
        ops::sdpa(s, q, k, v, ov, p, "check");
        s.finish();
        const auto got = ggml::dequantize(DType::f32, mem.download(ov), q_elems);
        const auto want = reference::sdpa(qv, ggml::dequantize(sh.kv, kq, kv_elems),
                                          ggml::dequantize(sh.kv, vq, kv_elems), p);
        double err = 0, norm = 0;
        for (size_t i = 0; i < want.size(); ++i) {
            err += (got[i] - want[i]) * (got[i] - want[i]);
            norm += want[i] * want[i];
        }
        out(fmt::format("| {} | {} / {} | {} / {} | {} | {} | {} | {:.2e} |", p.head_dim, p.n_heads,
                        p.n_kv_heads, p.seq_q, p.seq_kv, dtype_name(sh.kv), sh.softcap, sh.window,
                        std::sqrt(err / norm)));
    }
}

int run_prefill_benchmarks(const PrefillBenchOptions& o) {
    return PrefillBenchmarks(o).run();
}

const RegisterBench prefill_reg{
    "prefill", "prefill kernels (mat-mat, sdpa) at llama-3.2-1b shapes",
    [](CLI::App& app) -> std::function<int()> {
        auto o = std::make_shared<PrefillBenchOptions>();
        app.add_option("--tokens", o->tokens, "tokens (columns of the mat-mat, queries and keys)");
        app.add_option("--repeat", o->repeats, "timed runs (median reported)");
        app.add_option("--warmup-ms", o->warmup_ms, "minimum warm-up time per measurement");
        app.add_option("--sections", o->sections,
                       "matmat,tiles,tcvariants,stats,sdpa,check (any subset)");
        app.add_option("--report", o->report_path, "write the tables as markdown");
        app.add_option("--tensor-cores", o->tensor_cores,
                       "auto, on or off: the mat-mat kernels' tensor-core twins");
        return [o] { return run_prefill_benchmarks(*o); };
    }};

}  // namespace
}  // namespace graphlens::bench
