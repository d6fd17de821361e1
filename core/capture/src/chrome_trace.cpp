#include "graphlens/capture/chrome_trace.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace graphlens {
namespace {
using Json = nlohmann::ordered_json;

Json thread_name(int tid, const std::string& name) {
    return Json{
        {"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid}, {"args", {{"name", name}}}};
}

Json slice(const std::string& name, std::string_view category, int tid, double start_ns,
           double dur_ns, Json args) {
    return Json{{"name", name},
                {"cat", category},
                {"ph", "X"},
                {"pid", 1},
                {"tid", tid},
                {"ts", start_ns / 1000.0},
                {"dur", dur_ns / 1000.0},
                {"args", std::move(args)}};
}
std::string fmt_group(size_t i, const GroupTiming& g) {
    return "group " + std::to_string(i) + " (" + std::to_string(g.dispatches) + ": " +
           g.first_label + (g.dispatches > 1 ? " …" : "") + ")";
}
}  // namespace

std::string chrome_trace_json(const RunResult& run) {
    Json events = Json::array();
    events.push_back(Json{{"name", "process_name"},
                          {"ph", "M"},
                          {"pid", 1},
                          {"args", {{"name", "GraphLens: " + run.workload}}}});
    int tid = 1;
    for (const ModeResult& m : run.modes) {
        events.push_back(thread_name(tid, m.mode));
        events.push_back(Json{{"name", "thread_sort_index"},
                              {"ph", "M"},
                              {"pid", 1},
                              {"tid", tid},
                              {"args", {{"sort_index", tid}}}});
        // Repeats laid end to end: the track's length is the total GPU time of the mode.
        double t = 0;
        const auto& samples = m.gpu_ns.samples;
        for (size_t i = 0; i < samples.size(); ++i) {
            Json args{{"repeat", i},
                      {"dispatches", m.dispatches},
                      {"barriers", m.barriers},
                      {"command_buffers", m.command_buffers},
                      {"gpu_median_ns", m.gpu_ns.median},
                      {"outputs_match", m.outputs_match}};
            if (!m.error.empty()) args["error"] = m.error;
            events.push_back(slice(m.mode + " #" + std::to_string(i), "mode", tid, t, samples[i],
                                   std::move(args)));
            t += samples[i];
        }
        if (samples.empty() && m.gpu_ns.median > 0)
            events.push_back(slice(m.mode + " (median)", "mode", tid, 0, m.gpu_ns.median,
                                   Json{{"barriers", m.barriers}}));
        ++tid;
    }
    if (!run.per_dispatch.empty()) {
        events.push_back(thread_name(tid, "per-dispatch (profiled, serialised)"));
        events.push_back(Json{{"name", "thread_sort_index"},
                              {"ph", "M"},
                              {"pid", 1},
                              {"tid", tid},
                              {"args", {{"sort_index", tid}}}});
        for (const DispatchTiming& d : run.per_dispatch) {
            const std::string name = d.label.empty() ? "node " + std::to_string(d.node) : d.label;
            events.push_back(slice(name, op_kind_name(d.op), tid, d.start_ns, d.end_ns - d.start_ns,
                                   Json{{"node", d.node}, {"op", op_kind_name(d.op)}}));
        }
        ++tid;
    }
    if (!run.per_group.empty()) {
        events.push_back(thread_name(tid, "groups of " + run.per_group_mode + " (profiled)"));
        events.push_back(Json{{"name", "thread_sort_index"},
                              {"ph", "M"},
                              {"pid", 1},
                              {"tid", tid},
                              {"args", {{"sort_index", tid}}}});
        for (size_t i = 0; i < run.per_group.size(); ++i) {
            const GroupTiming& g = run.per_group[i];
            events.push_back(slice(fmt_group(i, g), "group", tid, g.start_ns, g.end_ns - g.start_ns,
                                   Json{{"first_dispatch", g.first_dispatch},
                                        {"dispatches", g.dispatches},
                                        {"first_label", g.first_label}}));
        }
    }
    Json root = Json::object();
    root["traceEvents"] = std::move(events);
    root["displayTimeUnit"] = "ns";
    root["otherData"] = Json{{"device", run.device},
                             {"workload", run.workload},
                             {"date", run.date},
                             {"warmup", run.warmup},
                             {"repeats", run.repeats}};
    return root.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

void write_chrome_trace(const RunResult& run, const std::filesystem::path& path) {
    const std::string text = chrome_trace_json(run);
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot open " + path.string() + " for writing");
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!f) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace graphlens
