// graphlens-bench: GPU benchmarks. Subcommands register themselves (bench_command.h):
//   modes    the Runner's execution modes on a capture file or a built-in chain
//   encode   CPU cost per recorded dispatch (push descriptors vs pooled sets, labels)
//   kernels  kernel bandwidth benchmarks (bench_kernels.cpp)
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include "bench_command.h"
#include "bench_kernels.h"
#include "graphlens/capture/capture_file.h"
#include "graphlens/exec/replay.h"
#include "graphlens/exec/runner.h"
#include "graphlens/ops/dispatch_helpers.h"
#include "graphlens/ops/fusion_recipes.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"
#include "graphlens/vulkan/graph_executor.h"

namespace graphlens::bench {

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// A chain of `count` small adds, each depending on the previous one (a barrier each when
// elided) or, with `independent`, all writing separate slots (no hazards).
ComputeGraph record_adds(GraphExecutor& exec, size_t count, int64_t n, bool independent) {
    DeviceMemory& mem = exec.memory();
    const uint64_t bytes = static_cast<uint64_t>(n) * 4;
    const AllocationId in = mem.allocate("in", 2 * bytes, AllocationUsage::input);
    const AllocationId out =
        mem.allocate("out", bytes * (independent ? count : 2), AllocationUsage::output);
    mem.fill(in, 0);
    SessionOptions so;
    so.barriers = BarrierPolicy::automatic;
    auto s = exec.begin_recorded(so);
    const TensorView a = mem.view(in, DType::f32, {n}), b = mem.view(in, DType::f32, {n}, bytes);
    for (size_t i = 0; i < count; ++i) {
        const TensorView o = mem.view(out, DType::f32, {n}, bytes * (independent ? i : (i % 2)));
        const TensorView x =
            independent || i == 0 ? a : mem.view(out, DType::f32, {n}, bytes * ((i + 1) % 2));
        DispatchDesc d;
        d.kernel = "add_f32";
        d.bindings = {{0, x}, {1, b}, {2, o}};
        struct {
            uint32_t n, nb;
        } p{static_cast<uint32_t>(n), static_cast<uint32_t>(n)};
        d.push_constants = push_constant_bytes(p);
        d.workgroups = grid_1d(static_cast<uint64_t>(n), 256);
        d.op = OpKind::add;
        d.label = fmt::format("add.{}", i);
        s.dispatch(d);
    }
    return s.finish_recording();
}

// --- encode -----------------------------------------------------------------------------

struct EncodeOptions {
    size_t dispatches = 2000;
    int repeat = 9;
};

int bench_encode(const EncodeOptions& o) {
    struct Config {
        const char* name;
        bool push, labels;
    };
    const Config configs[] = {{"push descriptors, labels", true, true},
                              {"push descriptors, no labels", true, false},
                              {"pooled sets, labels", false, true},
                              {"pooled sets, no labels", false, false}};
    fmt::print(
        "CPU cost per dispatch, {} independent add_f32 dispatches per command buffer, "
        "median of {} runs\n\n",
        o.dispatches, o.repeat);
    fmt::print("{:<30} {:>14} {:>16} {:>16}\n", "descriptors", "replay ns/disp", "record ns/disp",
               "direct ns/disp");
    for (const auto& c : configs) {
        Device::Options opt;
        opt.allow_push_descriptor = c.push;
        opt.labels = c.labels;
        opt.validation = false;  // the layer's own cost would dominate
        Device device(opt);
        if (c.push && !device.uses_push_descriptor()) {
            fmt::print("{:<30} (device has no VK_KHR_push_descriptor)\n", c.name);
            continue;
        }
        DeviceMemory memory(device);
        GraphExecutor exec(device, memory);
        std::vector<double> replay, record, direct;
        for (int r = 0; r < o.repeat; ++r) {
            // Capture cost: GraphSession in record mode (validation + ranges + tracker).
            memory.clear();
            const auto t0 = std::chrono::steady_clock::now();
            const ComputeGraph g = record_adds(exec, o.dispatches, 64, true);
            const auto t1 = std::chrono::steady_clock::now();
            record.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() /
                             o.dispatches);
            // Replay cost: encode_sequential of the graph into one command buffer.
            const ExecutionTiming t = exec.execute(g);
            replay.push_back(static_cast<double>(t.encode_ns) / o.dispatches);
            // Direct cost: the same dispatches through a direct-mode GraphSession.
            auto s = exec.begin();
            const auto d0 = std::chrono::steady_clock::now();
            for (const Node& n : g.nodes) {
                if (!n.is_dispatch()) continue;
                DispatchDesc d;
                d.kernel = g.kernels[n.kernel].name;
                d.bindings = n.bindings;
                d.push_constants = n.push_constants;
                d.workgroups = n.workgroups;
                d.label = n.label;
                s.dispatch(d);
            }
            const auto d1 = std::chrono::steady_clock::now();
            s.finish();
            direct.push_back(std::chrono::duration<double, std::nano>(d1 - d0).count() /
                             o.dispatches);
        }
        fmt::print("{:<30} {:>14.0f} {:>16.0f} {:>16.0f}\n", c.name, median(replay), median(record),
                   median(direct));
    }
    fmt::print(
        "\nreplay: vkCmd* recording of a captured graph (the Runner's encode time);\n"
        "record: GraphSession capture (validation, reflected ranges, conflict check);\n"
        "direct: GraphSession straight into a command buffer (both of the above).\n");
    return 0;
}

const RegisterBench encode_reg{
    "encode", "CPU cost per recorded dispatch", [](CLI::App& app) -> std::function<int()> {
        auto o = std::make_shared<EncodeOptions>();
        app.add_option("--dispatches", o->dispatches, "dispatches per command buffer");
        app.add_option("--repeat", o->repeat, "runs (median reported)");
        return [o] { return bench_encode(*o); };
    }};

// --- modes ------------------------------------------------------------------------------

struct ModesOptions {
    std::string capture;
    std::string modes = "all";
    uint32_t repeat = 20;
    uint32_t warmup = 2;
    size_t chain = 512;
    int64_t floats = 4096;
};

int bench_modes(const ModesOptions& o) {
    Device device;
    RunnerOptions ro;
    ro.fusion_recipes = ops::fusion_recipes();
    ro.modes = parse_execution_modes(o.modes);
    ro.repeats = o.repeat;
    ro.warmup = o.warmup;
    RunResult r;
    if (!o.capture.empty()) {
        r = replay_capture(device, load_capture(o.capture).graph, ro);
    } else {
        // A graph recorded here lives in the memory it was recorded with.
        DeviceMemory memory(device);
        Runner runner(device, memory);
        ComputeGraph graph = record_adds(runner.executor(), o.chain, o.floats, false);
        graph.metadata["workload"] =
            fmt::format("{} dependent adds of {} floats", o.chain, o.floats);
        r = runner.run(graph, ro);
    }
    fmt::print("{} on {}\n\n", r.workload, r.device);
    fmt::print("{:<14} {:>12} {:>12} {:>12} {:>12} {:>7} {:>7}  {}\n", "mode", "GPU µs", "GPU min",
               "encode µs", "wall µs", "disp", "barr", "outputs");
    int rc = 0;
    for (const auto& m : r.modes) {
        if (!m.error.empty()) {
            fmt::print("{:<14} ERROR: {}\n", m.mode, m.error);
            rc = 1;
            continue;
        }
        fmt::print("{:<14} {:>12.1f} {:>12.1f} {:>12.1f} {:>12.1f} {:>7} {:>7}  {}\n", m.mode,
                   m.gpu_ns.median / 1e3, m.gpu_ns.min / 1e3, m.encode_ns.median / 1e3,
                   m.wall_ns.median / 1e3, m.dispatches, m.barriers, m.comparison);
    }
    return rc;
}

const RegisterBench modes_reg{
    "modes", "execution modes of the Runner", [](CLI::App& app) -> std::function<int()> {
        auto o = std::make_shared<ModesOptions>();
        app.add_option("--capture", o->capture, "capture file (default: a built-in add chain)")
            ->check(CLI::ExistingFile);
        app.add_option("--modes", o->modes, "all, or a comma list of modes");
        app.add_option("--repeat", o->repeat, "timed runs per mode");
        app.add_option("--warmup", o->warmup, "untimed runs per mode");
        app.add_option("--chain", o->chain, "built-in chain: dispatches");
        app.add_option("--floats", o->floats, "built-in chain: floats per add");
        return [o] { return bench_modes(*o); };
    }};

// --- kernels (bench_kernels.cpp) ------------------------------------------------------------

const RegisterBench kernels_reg{
    "kernels", "kernel bandwidth benchmarks", [](CLI::App& app) -> std::function<int()> {
        auto o = std::make_shared<KernelBenchOptions>();
        app.add_option("--warmup", o->warmup, "untimed runs");
        app.add_option("--repeat", o->repeats, "timed runs (median reported)");
        app.add_option("--copy-mb", o->copy_mb, "size of the device-to-device copy");
        app.add_option("--report", o->report_path, "write the tables as markdown");
        app.add_option("--sections", o->sections,
                       "copy,matvec,llama,attention,variants,glu,xq8,levels (any subset)");
        return [o] { return run_kernel_benchmarks(*o); };
    }};

}  // namespace
}  // namespace graphlens::bench

int main(int argc, char** argv) {
    CLI::App app{"graphlens-bench: GPU benchmarks of GraphLens", "graphlens-bench"};
    return graphlens::subcommands::run_subcommands(app, "graphlens-bench", argc, argv);
}
