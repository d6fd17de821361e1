// graphlens-cli run of a recorded program: see run_foreign.h.
#include "run_foreign.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "graphlens/capture/buffer_data.h"
#include "graphlens/capture/chrome_trace.h"
#include "graphlens/exec/foreign_replay.h"
#include "graphlens/vulkan/device.h"

namespace graphlens::cli {
namespace {

std::string us(double ns) {
    return fmt::format("{:.1f}", ns / 1e3);
}

std::string spread(const TimingSummary& t) {
    return fmt::format("{} ({}–{})", us(t.median), us(t.min), us(t.max));
}

std::string ratio(double base, double value) {
    return base > 0 && value > 0 ? fmt::format("{:.2f}x", base / value) : "–";
}

void print_table(const ForeignRunResult& r, bool validation) {
    fmt::print(
        "device:   {}\nworkload: {}\nwarm-up {} + {} timed runs per mode; times in µs, "
        "median (min–max)\n\n",
        r.run.device, r.run.workload, r.run.warmup, r.run.repeats);
    const ModeResult* own = nullptr;
    for (const auto& m : r.run.modes)
        if (m.mode == "as-recorded" && m.error.empty()) own = &m;
    fmt::print("{:<15} {:>28} {:>12} {:>28} {:>6} {:>6} {:>4} {:>9} {:>9} {:>6}  {}\n", "mode",
               "GPU", "encode", "wall", "disp", "barr", "cbs", "GPU vs", "wall vs",
               validation ? "valid." : "", "outputs vs as-recorded");
    fmt::print("{:<15} {:>28} {:>12} {:>28} {:>6} {:>6} {:>4} {:>9} {:>9} {:>6}\n", "", "", "", "",
               "", "", "", "as-rec.", "as-rec.", validation ? "errors" : "");
    for (size_t i = 0; i < r.run.modes.size(); ++i) {
        const ModeResult& m = r.run.modes[i];
        const std::string errors = validation ? fmt::format("{}", r.validation_errors[i]) : "";
        if (!m.error.empty()) {
            fmt::print("{:<15} ERROR: {}{}\n", m.mode, m.error,
                       validation ? fmt::format(" ({} validation errors)", errors) : "");
        } else {
            fmt::print("{:<15} {:>28} {:>12} {:>28} {:>6} {:>6} {:>4} {:>9} {:>9} {:>6}  {}\n",
                       m.mode, spread(m.gpu_ns), us(m.encode_ns.median), spread(m.wall_ns),
                       m.dispatches, m.barriers, m.command_buffers,
                       own ? ratio(own->gpu_ns.median, m.gpu_ns.median) : "–",
                       own ? ratio(own->wall_ns.median, m.wall_ns.median) : "–", errors,
                       m.comparison);
        }
        for (const auto& msg : r.validation_messages[i])
            fmt::print("    validation: {}\n", msg.substr(0, 400));
    }
    fmt::print("\n");
    for (const auto& n : r.notes) fmt::print("note: {}\n", n);
}

std::optional<BufferData> load_data(const CaptureDocument& doc, const ForeignRunCommand& c) {
    if (c.no_data) return std::nullopt;
    std::filesystem::path path = c.data;
    if (path.empty()) {
        path = buffer_data_path(c.capture);
        if (!std::filesystem::exists(path)) return std::nullopt;
    }
    return load_buffer_data(path, doc.graph);
}

}  // namespace

int run_foreign(CaptureDocument& doc, const ForeignRunCommand& c) {
    const std::optional<BufferData> data = load_data(doc, c);
    ForeignRunOptions o;
    o.modes = parse_foreign_modes(c.modes);
    o.repeats = c.repeat;
    o.warmup = c.warmup;
    o.warmup_ms = c.warmup_ms;
    o.stream_first = c.stream_first;
    o.stream_growth = c.stream_growth;
    o.parallel_threads = c.parallel_threads;
    if (doc.source) {
        o.submissions = doc.source->submissions;
        o.workload = std::filesystem::path(doc.source->program).filename().string();
        for (const auto& a : doc.source->arguments) o.workload += " " + a;
        o.workload +=
            fmt::format(" ({}, {} commands)", doc.source->range, doc.graph.dispatch_count());
    }
    o.data = data ? &*data : nullptr;
    o.keep_final_bytes = !c.outputs.empty();
    const bool tty = isatty(fileno(stderr));
    o.progress = [tty](std::string_view line) {
        if (tty)
            fmt::print(stderr, "\r\033[K{}", line);
        else
            fmt::print(stderr, "{}\n", line);
    };
    Device::Options dopt;
    dopt.required = foreign_requirements(doc.graph, doc.source ? &*doc.source : nullptr);
    Device device(dopt);
    const ForeignRunResult result = run_foreign_capture(device, doc.graph, o);
    if (tty) fmt::print(stderr, "\r\033[K");
    print_table(result, device.validation_enabled());
    if (!c.trace.empty()) {
        write_chrome_trace(result.run, c.trace);
        fmt::print("\nchrome trace written to {} (open in ui.perfetto.dev)\n", c.trace);
    }
    if (!c.outputs.empty()) {
        save_buffer_data(result.final_bytes, c.outputs);
        fmt::print("as-recorded's final bytes of the written allocations written to {}\n",
                   c.outputs);
    }
    if (!c.save.empty()) {
        doc.run = result.run;
        save_capture(doc, c.save);
        fmt::print("capture with run results written to {}\n", c.save);
    }
    std::fflush(stdout);  // the table before the verdict, also when both go to one pipe
    size_t failed = 0, invalid = 0;
    for (size_t i = 0; i < result.run.modes.size(); ++i) {
        failed += !result.run.modes[i].error.empty();
        invalid += result.validation_errors[i] > 0;
    }
    if (failed)
        fmt::print(stderr, "graphlens-cli: error: {} mode(s) failed or changed results\n", failed);
    if (invalid)
        fmt::print(stderr,
                   "graphlens-cli: error: the validation layer reported errors in {} mode(s)\n",
                   invalid);
    return failed || invalid ? 1 : 0;
}

}  // namespace graphlens::cli
