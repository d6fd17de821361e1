// graphlens-cli demo: a small chain of dispatches recorded once, then run in three ways
// (a submit per op, a barrier after every dispatch, barriers only on hazards), printing
// dispatches, barriers, concurrency groups and GPU time of each, and checking that all
// three produce the same bytes. With --preset: the built-in sample end to end (a model
// preset recorded through the transformer builder, then every execution mode of the Runner).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "command.h"
#include "graphlens/exec/runner.h"
#include "graphlens/model/model_config.h"
#include "graphlens/model/transformer_builder.h"
#include "graphlens/ops/fusion_recipes.h"
#include "graphlens/ops/ops.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"
#include "graphlens/vulkan/graph_executor.h"

namespace graphlens::cli {
namespace {

struct DemoOptions {
    int layers = 8;
    int64_t n = 16384;
    int repeat = 5;
    std::string preset;         // empty: the elementwise chain
    uint32_t model_layers = 0;  // 0: the preset's own
    uint32_t ctx = 16;
};

// Per layer: h = x * gamma; q = h * wq; k = h * wk; v = h + bv (q, k, v concurrent);
// s = q + k; o = s * v; x = x + o. Labels carry the layer like a model's would.
ComputeGraph record_chain(GraphExecutor& exec, const DemoOptions& o, AllocationId* out) {
    DeviceMemory& mem = exec.memory();
    const uint64_t bytes = static_cast<uint64_t>(o.n) * 4;
    const AllocationId x = mem.allocate("x", bytes, AllocationUsage::activations);
    const AllocationId weights =
        mem.allocate("weights", bytes * 4 * o.layers, AllocationUsage::weights);
    const AllocationId scratch = mem.allocate("scratch", bytes * 6, AllocationUsage::scratch);
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(0.5f, 1.5f);
    std::vector<float> values(static_cast<size_t>(o.n) * 4 * o.layers);
    for (auto& v : values) v = dist(rng);
    mem.upload(mem.view(weights, DType::f32, {o.n * 4 * o.layers}), values);
    values.resize(o.n);
    mem.upload(mem.view(x, DType::f32, {o.n}), values);

    auto s = exec.begin_recorded();
    auto tmp = [&](int i) { return mem.view(scratch, DType::f32, {o.n}, bytes * i); };
    const TensorView xv = mem.view(x, DType::f32, {o.n});
    for (int l = 0; l < o.layers; ++l) {
        auto w = [&](int i) { return mem.view(weights, DType::f32, {o.n}, bytes * (4 * l + i)); };
        const std::string p = fmt::format("blk.{}.", l);
        ops::mul(s, xv, w(0), tmp(0), p + "norm_mul");
        ops::mul(s, tmp(0), w(1), tmp(1), p + "q");
        ops::mul(s, tmp(0), w(2), tmp(2), p + "k");
        ops::add(s, tmp(0), w(3), tmp(3), p + "v");
        ops::add(s, tmp(1), tmp(2), tmp(4), p + "qk");
        ops::mul(s, tmp(4), tmp(3), tmp(5), p + "o");
        ops::add(s, xv, tmp(5), xv, p + "residual");
    }
    *out = x;
    return s.finish_recording();
}

struct ModeRow {
    const char* name;
    ExecuteOptions options;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

int run_demo(const DemoOptions& o) {
    Device device;
    DeviceMemory memory(device);
    GraphExecutor exec(device, memory);
    AllocationId x = 0;
    const ComputeGraph graph = record_chain(exec, o, &x);
    const auto initial = memory.download(x, 0, memory.info(x).size);

    fmt::print("GraphLens demo on {} ({}, {})\n", device.facts().name,
               device_type_name(device.facts().type), device.facts().driver_name);
    fmt::print("chain: {} layers x 7 elementwise ops over {} floats = {} dispatches\n", o.layers,
               o.n, graph.dispatch_count());
    fmt::print("descriptors: {}, barriers: {}\n\n",
               device.uses_push_descriptor() ? "push descriptors" : "pooled descriptor sets",
               device.uses_synchronization2() ? "synchronization2" : "vkCmdPipelineBarrier");

    ModeRow modes[] = {
        {"per-op-submit", {BarrierSource::recorded, SubmitMode::per_dispatch}},
        {"serial", {BarrierSource::every_dispatch, SubmitMode::single}},
        {"elided", {BarrierSource::recompute, SubmitMode::single}},
    };
    fmt::print("{:<14} {:>10} {:>9} {:>7} {:>12} {:>12} {:>12}  {}\n", "mode", "dispatches",
               "barriers", "groups", "GPU µs", "encode µs", "wall µs", "output");
    std::vector<uint8_t> reference;
    bool all_match = true;
    for (const auto& m : modes) {
        std::vector<double> gpu, encode, wall;
        ExecutionTiming t;
        std::vector<uint8_t> result;
        for (int r = 0; r <= o.repeat; ++r) {  // r == 0 is the warm-up
            memory.upload(x, initial);
            t = exec.execute(graph, m.options);
            if (r == 0) {
                result = memory.download(x, 0, memory.info(x).size);
                continue;
            }
            gpu.push_back(static_cast<double>(t.gpu_ns));
            encode.push_back(static_cast<double>(t.encode_ns));
            wall.push_back(static_cast<double>(t.wall_ns));
        }
        if (reference.empty()) reference = result;
        const bool same = result == reference;
        all_match = all_match && same;
        // A submission boundary separates groups as a barrier does.
        const size_t groups = m.options.submit == SubmitMode::per_dispatch
                                  ? t.dispatches
                                  : (t.dispatches ? t.barriers + 1 : 0);
        fmt::print("{:<14} {:>10} {:>9} {:>7} {:>12.1f} {:>12.1f} {:>12.1f}  {}\n", m.name,
                   t.dispatches, t.barriers, groups, median(gpu) / 1e3, median(encode) / 1e3,
                   median(wall) / 1e3, same ? "identical" : "DIFFERS");
    }
    fmt::print("\nmedian of {} runs after a warm-up; GPU time from timestamp queries{}.\n",
               o.repeat, device.facts().timestamps ? "" : " (unavailable on this device)");
    if (device.validation_enabled())
        fmt::print("validation: {} errors, {} warnings\n", device.validation_errors(),
                   device.validation_warnings());
    return all_match && device.validation_errors() == 0 ? 0 : 1;
}

// The built-in sample end to end: record one decode step of a preset, run every mode.
int run_sample(const DemoOptions& o) {
    Device device;
    DeviceMemory memory(device);
    CaptureRequest request;
    request.config = model_preset(o.preset).config;
    if (o.model_layers) {
        request.config.n_layer = std::min(request.config.n_layer, o.model_layers);
        request.config.validate();
    }
    request.phase = Phase::decode;
    request.kv_length = o.ctx;
    const ComputeGraph graph = capture_transformer(memory, request);
    fmt::print(
        "GraphLens sample on {}: {} decode, {} layers, KV {}: {} dispatches, {} "
        "barriers as captured\n\n",
        device.facts().name, o.preset, request.config.n_layer, o.ctx, graph.dispatch_count(),
        graph.barrier_count());
    Runner runner(device, memory);
    RunnerOptions ro;
    ro.fusion_recipes = ops::fusion_recipes();
    ro.warmup = 1;
    ro.repeats = static_cast<uint32_t>(o.repeat);
    ro.progress = [](std::string_view line) { fmt::print(stderr, "{}\n", line); };
    const RunResult r = runner.run(graph, ro);
    fmt::print("{:<14} {:>10} {:>9} {:>7} {:>12} {:>12}  {}\n", "mode", "dispatches", "barriers",
               "groups", "GPU µs", "wall µs", "outputs vs serial");
    bool ok = true;
    for (const auto& m : r.modes) {
        if (!m.error.empty()) {
            fmt::print("{:<14} ERROR: {}\n", m.mode, m.error);
            ok = false;
            continue;
        }
        const size_t groups = m.mode == "per-op-submit" ? m.dispatches : m.barriers + 1;
        fmt::print("{:<14} {:>10} {:>9} {:>7} {:>12.1f} {:>12.1f}  {}\n", m.mode, m.dispatches,
                   m.barriers, groups, m.gpu_ns.median / 1e3, m.wall_ns.median / 1e3, m.comparison);
    }
    return ok ? 0 : 1;
}

const RegisterCommand demo_registration{
    "demo", [](CLI::App& app) -> std::function<int()> {
        app.description("Run a small chain of dispatches per-op-submit, serial and elided");
        auto o = std::make_shared<DemoOptions>();
        app.add_option("--layers", o->layers, "layers of the chain")->check(CLI::Range(1, 1000));
        app.add_option("--floats", o->n, "floats per tensor")->check(CLI::Range(16, 1 << 24));
        app.add_option("--repeat", o->repeat, "timed runs per mode")->check(CLI::Range(1, 1000));
        app.add_option("--preset", o->preset,
                       "run the built-in sample instead: this model preset end to end (slow on "
                       "lavapipe; see graphlens-cli presets)");
        app.add_option("--model-layers", o->model_layers, "--preset: keep only this many layers");
        app.add_option("--ctx", o->ctx, "--preset: tokens already in the KV cache");
        return [o] { return o->preset.empty() ? run_demo(*o) : run_sample(*o); };
    }};

}  // namespace
}  // namespace graphlens::cli
