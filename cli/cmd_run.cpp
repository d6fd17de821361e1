// graphlens-cli run capture.json: recreate the capture's allocations on this device, fill
// them with seeded random data, run every requested execution mode (each checked against
// serial, then timed) and print the table of modes.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "command.h"
#include "encoding_options.h"
#include "graphlens/capture/capture_file.h"
#include "graphlens/capture/chrome_trace.h"
#include "graphlens/exec/replay.h"
#include "graphlens/exec/runner.h"
#include "graphlens/ops/fusion_recipes.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"
#include "graphlens/vulkan/foreign_program.h"
#include "run_foreign.h"
#include "run_renderdoc.h"
#include "validation_by_mode.h"

namespace graphlens::cli {
namespace {

struct RunOptions {
    std::string capture;
    std::string modes = "all";
    uint32_t repeat = 20;
    uint32_t warmup = 2;
    double warmup_ms = 200;
    EncodingOptions encoding;
    size_t parallel_first = 0;
    uint64_t seed = 1;
    std::string trace;
    std::string save;
    bool profile = false;
    std::string groups;  // mode whose concurrency groups are timed; empty = none
    size_t top = 10;
    std::string data;  // a recorded program's buffer contents (record --data)
    bool no_data = false;
    std::string outputs;  // a recorded program's final bytes as as-recorded leaves them
    // One execution captured by RenderDoc instead of the timed runs (run_renderdoc.h).
    bool renderdoc = false;
};

// A recorded program's capture runs its own kernels (run_foreign.h).
int run_recorded_program(CaptureDocument& doc, const RunOptions& o) {
    ForeignRunCommand c;
    c.capture = o.capture;
    c.modes = o.modes;
    c.data = o.data;
    c.no_data = o.no_data;
    c.repeat = o.repeat;
    c.warmup = o.warmup;
    c.warmup_ms = o.warmup_ms;
    c.stream_first = o.encoding.stream_first;
    c.stream_growth = o.encoding.stream_growth;
    c.parallel_threads = o.encoding.parallel_threads;
    c.trace = o.trace;
    c.save = o.save;
    c.outputs = o.outputs;
    return run_foreign(doc, c);
}

std::string us(double ns) {
    return fmt::format("{:.1f}", ns / 1e3);
}

// "median (min–max)" in µs.
std::string spread(const TimingSummary& t) {
    return fmt::format("{} ({}–{})", us(t.median), us(t.min), us(t.max));
}

const ModeResult* find_mode(const RunResult& r, std::string_view name) {
    for (const auto& m : r.modes)
        if (m.mode == name && m.error.empty()) return &m;
    return nullptr;
}

std::string ratio(double base, double value) {
    return base > 0 && value > 0 ? fmt::format("{:.2f}x", base / value) : "–";
}

// `validation`: the validation layer's errors per mode (a column and the first messages), or
// null when it is off.
void print_table(const RunResult& r, const ValidationByMode* validation) {
    fmt::print(
        "device:   {}\nworkload: {}\nwarm-up {} + {} timed runs per mode; times in µs, "
        "median (min–max)\n\n",
        r.device, r.workload, r.warmup, r.repeats);
    const ModeResult* per_op = find_mode(r, "per-op-submit");
    const ModeResult* serial = find_mode(r, "serial");
    fmt::print("{:<14} {:>28} {:>12} {:>28} {:>6} {:>6} {:>4} {:>10} {:>10} {:>6}  {}\n", "mode",
               "GPU", "encode", "wall", "disp", "barr", "cbs", "wall vs", "GPU vs",
               validation ? "valid." : "", "outputs");
    fmt::print("{:<14} {:>28} {:>12} {:>28} {:>6} {:>6} {:>4} {:>10} {:>10} {:>6}\n", "", "", "",
               "", "", "", "", "per-op", "serial", validation ? "errors" : "");
    for (const auto& m : r.modes) {
        const std::string errors = validation ? fmt::format("{}", validation->errors(m.mode)) : "";
        if (!m.error.empty())
            fmt::print("{:<14} ERROR: {}{}\n", m.mode, m.error,
                       validation ? fmt::format(" ({} validation errors)", errors) : "");
        else
            fmt::print("{:<14} {:>28} {:>12} {:>28} {:>6} {:>6} {:>4} {:>10} {:>10} {:>6}  {}\n",
                       m.mode, spread(m.gpu_ns), us(m.encode_ns.median), spread(m.wall_ns),
                       m.dispatches, m.barriers, m.command_buffers,
                       per_op ? ratio(per_op->wall_ns.median, m.wall_ns.median) : "–",
                       serial ? ratio(serial->gpu_ns.median, m.gpu_ns.median) : "–", errors,
                       m.comparison);
        if (validation)
            for (const auto& msg : validation->messages(m.mode))
                fmt::print("    validation: {}\n", msg.substr(0, 400));
    }
    if (validation && validation->outside_modes() > 0)
        fmt::print("validation errors outside the modes (filling memory, profiles): {}\n",
                   validation->outside_modes());
}

// The slowest entries of a profile, with their share of the profiled total.
template <class T, class Label>
void print_top(const std::vector<T>& items, size_t top, Label label) {
    std::vector<const T*> sorted;
    double total = 0;
    for (const auto& i : items) {
        sorted.push_back(&i);
        total += i.end_ns - i.start_ns;
    }
    std::sort(sorted.begin(), sorted.end(), [](const T* a, const T* b) {
        return a->end_ns - a->start_ns > b->end_ns - b->start_ns;
    });
    for (size_t k = 0; k < std::min(top, sorted.size()); ++k) {
        const double d = sorted[k]->end_ns - sorted[k]->start_ns;
        fmt::print("  {:>10.1f} µs {:>5.1f}%  {}\n", d / 1e3, total > 0 ? 100 * d / total : 0,
                   label(*sorted[k]));
    }
    fmt::print("  {:>10.1f} µs in all\n", total / 1e3);
}

void print_profiles(const RunResult& r, size_t top) {
    if (!r.per_dispatch.empty()) {
        fmt::print(
            "\nper-dispatch profile of serial ({} dispatches timed one by one: a barrier "
            "and a timestamp after each serialised the GPU); slowest {}:\n",
            r.per_dispatch.size(), std::min(top, r.per_dispatch.size()));
        print_top(r.per_dispatch, top, [](const DispatchTiming& d) {
            return fmt::format("{} ({})", d.label, op_kind_name(d.op));
        });
    }
    if (!r.per_group.empty()) {
        fmt::print(
            "\nper-group profile of {} ({} concurrency groups, a timestamp at each "
            "barrier); slowest {}:\n",
            r.per_group_mode, r.per_group.size(), std::min(top, r.per_group.size()));
        print_top(r.per_group, top, [](const GroupTiming& g) {
            return fmt::format("{} dispatch(es) from {}", g.dispatches, g.first_label);
        });
    }
}

int run_command(const RunOptions& o) {
    CaptureDocument doc = load_capture(o.capture);
    if (o.renderdoc) return run_in_renderdoc(doc, o.modes, o.seed);
    if (is_foreign_graph(doc.graph)) return run_recorded_program(doc, o);
    Device device;
    RunnerOptions ro;
    ro.fusion_recipes = ops::fusion_recipes();
    ro.modes = parse_execution_modes(o.modes);
    ro.repeats = o.repeat;
    ro.warmup = o.warmup;
    ro.warmup_ms = o.warmup_ms;
    ro.stream_first = o.encoding.stream_first;
    ro.stream_growth = o.encoding.stream_growth;
    ro.parallel_threads = o.encoding.parallel_threads;
    ro.parallel_first = o.parallel_first;
    ro.seed = o.seed;
    ro.profile_dispatches = o.profile;
    if (!o.groups.empty()) {
        const auto m = execution_mode_from_name(o.groups);
        if (!m) throw std::invalid_argument(fmt::format("--groups: unknown mode '{}'", o.groups));
        ro.profile_groups = true;
        ro.group_profile_mode = *m;
    }
    const bool tty = isatty(fileno(stderr));
    ValidationByMode validation(device);
    ro.progress = [tty, &validation](std::string_view line) {
        validation.on_progress(line);
        if (tty)
            fmt::print(stderr, "\r\033[K{}", line);
        else
            fmt::print(stderr, "{}\n", line);
    };
    const RunResult result = replay_capture(device, doc.graph, ro);
    validation.finish();
    if (tty) fmt::print(stderr, "\r\033[K");
    print_table(result, device.validation_enabled() ? &validation : nullptr);
    print_profiles(result, o.top);
    if (!o.trace.empty()) {
        TraceGraph traced{&doc.graph, doc.generator};
        if (doc.source) {
            traced.source = doc.source->program;
            for (const auto& a : doc.source->arguments) traced.source += " " + a;
            traced.source += " (" + doc.source->range + ")";
        }
        write_chrome_trace(result, traced, o.trace);
        fmt::print("\nchrome trace written to {} (open in ui.perfetto.dev)\n", o.trace);
    }
    if (!o.save.empty()) {
        doc.run = result;
        save_capture(doc, o.save);
        fmt::print("capture with run results written to {}\n", o.save);
    }
    std::fflush(stdout);  // the table before the verdict, also when both go to one pipe
    size_t failed = 0;
    for (const auto& m : result.modes) failed += !m.error.empty();
    if (failed)
        fmt::print(stderr, "graphlens-cli: error: {} mode(s) failed or changed results\n", failed);
    const size_t invalid = device.validation_errors();
    if (invalid)
        fmt::print(stderr, "graphlens-cli: error: the validation layer reported {} error(s)\n",
                   invalid);
    return failed || invalid ? 1 : 0;
}

const RegisterCommand run_registration{
    "run", [](CLI::App& app) -> std::function<int()> {
        app.description("Run a capture in execution modes and time them (GPU, encode, wall)");
        auto o = std::make_shared<RunOptions>();
        app.add_option("capture", o->capture, "capture file (graphlens-cli capture -o ...)")
            ->required()
            ->check(CLI::ExistingFile);
        app.add_option(
            "--modes", o->modes,
            "all, or a comma list of per-op-submit, serial, elided, fused, greedy, "
            "levels, levels+split, levels+stream, levels+parallel, levels+ahead "
            "(e.g. serial,levels; levels+ahead: "
            "a loop of --repeat steps, each recorded while the one before executes; "
            "its wall is the time per step); a recorded program's capture: "
            "as-recorded, one-submission, per-op-submit, serial, elided, greedy, levels, "
            "levels+split, levels+stream, levels+parallel, levels+ahead");
        app.add_option("--repeat", o->repeat, "timed runs per mode (default 20)")
            ->check(CLI::Range(1, 100000));
        app.add_option("--warmup", o->warmup, "untimed runs per mode first (default 2)");
        add_encoding_options(app, o->encoding);
        app.add_option("--parallel-first", o->parallel_first,
                       "levels+parallel: dispatches (to the next group end) submitted first, "
                       "while the threads record the rest (default 0: one submission)")
            ->check(CLI::Range(size_t{0}, size_t{1} << 30));
        app.add_option("--warmup-ms", o->warmup_ms,
                       "and untimed runs for at least this many ms per mode, so the GPU is at its "
                       "boost clock (default 200; 0 = count only)")
            ->check(CLI::NonNegativeNumber);
        app.add_option("--seed", o->seed, "seed of the random initial data");
        app.add_option(
            "--trace", o->trace,
            "write a Chrome trace (Perfetto) of the run; with --profile, its per-dispatch "
            "track shows hazards as arrows and barriers with their reasons");
        app.add_option("--save", o->save, "write the capture with the run results");
        app.add_flag("--profile", o->profile,
                     "also time every dispatch alone (serialises the GPU; per-dispatch profile)");
        app.add_option("--groups", o->groups,
                       "also time every concurrency group of this mode (e.g. levels)");
        app.add_option("--top", o->top, "rows of the profiles (default 10)");
        app.add_option("--data", o->data,
                       "a recorded program's buffer contents (default: <capture>.data, written "
                       "by record --data, when it exists)");
        app.add_option("--outputs", o->outputs,
                       "a recorded program: write the bytes as-recorded leaves in the "
                       "allocations it writes (the buffer data format of <capture>.data)");
        app.add_flag("--renderdoc", o->renderdoc,
                     "capture one execution of the mode --modes names with RenderDoc's in-app "
                     "API (librenderdoc.so, opened only when present) instead of timing; prints "
                     "the .rdc file to open in qrenderdoc");
        app.add_flag("--no-data", o->no_data,
                     "a recorded program's buffers start zeroed even where contents exist");
        return [o] { return run_command(*o); };
    }};

}  // namespace
}  // namespace graphlens::cli
