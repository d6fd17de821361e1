#include "graphlens/capture/chrome_trace.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>

#include "graphlens/graph/hazard_index.h"
#include "graphlens/graph/schedule_analysis.h"

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

// The trace's events and metadata, before serialising (chrome_trace_json adds the graph's).
Json trace_document(const RunResult& run);

// The first concurrency group's track: after the modes' and the profiles' tracks, however many
// modes a run has.
constexpr int kFirstGroupTid = 100000;

// The tid of the per-dispatch track (where the hazards and barriers go), 0 when there is none.
int per_dispatch_tid(const RunResult& run) {
    return run.per_dispatch.empty() ? 0 : static_cast<int>(run.modes.size()) + 1;
}

std::string hazard_text(const ComputeGraph& g, const Hazard& h) {
    const ByteRange r = h.overlap();
    const std::string alloc = r.allocation < g.allocations.size()
                                  ? g.allocations[r.allocation].name
                                  : "allocation " + std::to_string(r.allocation);
    return std::string(hazard_kind_name(h.kind)) + " " + g.nodes[h.earlier].label + " -> " +
           g.nodes[h.later].label + " on " + alloc + " [" + std::to_string(r.begin) + ", " +
           std::to_string(r.end) + ")";
}

// Per node of the graph: its timing in the per-dispatch profile, null when it has none.
std::vector<const DispatchTiming*> timed_slices(const RunResult& run, const ComputeGraph& g) {
    std::unordered_map<NodeId, size_t> timing_of_id;
    for (size_t i = 0; i < run.per_dispatch.size(); ++i) timing_of_id[run.per_dispatch[i].node] = i;
    std::vector<const DispatchTiming*> slice_of(g.nodes.size(), nullptr);
    for (size_t n = 0; n < g.nodes.size(); ++n)
        if (g.nodes[n].is_dispatch())
            if (auto it = timing_of_id.find(g.nodes[n].id); it != timing_of_id.end())
                slice_of[n] = &run.per_dispatch[it->second];
    return slice_of;
}

// One track per concurrency group of the graph (the dispatches between two barriers, which may
// run together), holding the group's dispatches as the per-dispatch profile timed them, so a
// trace viewer shows the groups one under the other. Their tids follow every other track's.
void add_group_tracks(Json& events, const ComputeGraph& g,
                      const std::vector<const DispatchTiming*>& slice_of) {
    size_t group = 0;
    bool open = false, named = false;
    for (size_t n = 0; n < g.nodes.size(); ++n) {
        if (g.nodes[n].is_barrier()) {
            if (open) ++group;
            open = named = false;
            continue;
        }
        open = true;
        const DispatchTiming* d = slice_of[n];
        if (!d) continue;
        const int tid = kFirstGroupTid + static_cast<int>(group);
        if (!named) {
            events.push_back(thread_name(tid, "concurrency group " + std::to_string(group)));
            events.push_back(Json{{"name", "thread_sort_index"},
                                  {"ph", "M"},
                                  {"pid", 1},
                                  {"tid", tid},
                                  {"args", {{"sort_index", tid}}}});
            named = true;
        }
        const std::string name = d->label.empty() ? "node " + std::to_string(d->node) : d->label;
        events.push_back(slice(name, "group dispatch", tid, d->start_ns, d->end_ns - d->start_ns,
                               Json{{"node", d->node}, {"group", group}}));
    }
}

// Flow events from each hazard's earlier dispatch slice to its later one, and an instant
// event at each barrier, on the per-dispatch track.
void add_graph_events(Json& events, const ComputeGraph& g,
                      const std::vector<const DispatchTiming*>& slice_of, int tid) {
    const HazardIndex hazards(g);
    uint64_t flow_id = 0;
    for (const Hazard& h : hazards.hazards()) {
        const DispatchTiming* from = slice_of[h.earlier];
        const DispatchTiming* to = slice_of[h.later];
        if (!from || !to) continue;
        ++flow_id;
        const std::string name(hazard_kind_name(h.kind));
        const Json args{{"hazard", hazard_text(g, h)}};
        events.push_back(Json{{"name", name},
                              {"cat", "hazard"},
                              {"ph", "s"},
                              {"id", flow_id},
                              {"pid", 1},
                              {"tid", tid},
                              {"ts", from->start_ns / 1000.0},
                              {"args", args}});
        events.push_back(Json{{"name", name},
                              {"cat", "hazard"},
                              {"ph", "f"},
                              {"bp", "e"},
                              {"id", flow_id},
                              {"pid", 1},
                              {"tid", tid},
                              {"ts", to->start_ns / 1000.0},
                              {"args", args}});
    }
    for (const BarrierExplanation& b : explain_barriers(g, hazards)) {
        // The marker stands where the next timed dispatch starts.
        const DispatchTiming* next = nullptr;
        for (size_t n = b.barrier + 1; n < g.nodes.size() && !next; ++n) next = slice_of[n];
        if (!next) continue;
        std::string reason;
        if (b.redundant && b.fences.empty()) reason = "redundant: no hazard crosses only it";
        for (const Hazard& h : b.hazards)
            reason += (reason.empty() ? "" : "; ") + hazard_text(g, h);
        if (!b.fences.empty())
            reason += std::string(reason.empty() ? "" : "; ") + "a fence in an adjacent group";
        events.push_back(Json{{"name", "barrier"},
                              {"cat", "barrier"},
                              {"ph", "i"},
                              {"s", "t"},
                              {"pid", 1},
                              {"tid", tid},
                              {"ts", next->start_ns / 1000.0},
                              {"args",
                               {{"node", b.barrier},
                                {"redundant", b.redundant},
                                {"hazards", b.hazards.size()},
                                {"reason", reason}}}});
    }
}
}  // namespace

std::string chrome_trace_json(const RunResult& run) {
    return trace_document(run).dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string chrome_trace_json(const RunResult& run, const TraceGraph& graph) {
    Json root = trace_document(run);
    if (graph.graph && per_dispatch_tid(run) != 0) {
        const auto slice_of = timed_slices(run, *graph.graph);
        add_graph_events(root["traceEvents"], *graph.graph, slice_of, per_dispatch_tid(run));
        add_group_tracks(root["traceEvents"], *graph.graph, slice_of);
    }
    root["otherData"]["source"] = graph.source;
    return root.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

namespace {
Json trace_document(const RunResult& run) {
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
    return root;
}
}  // namespace

namespace {
void write_text(const std::string& text, const std::filesystem::path& path) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot open " + path.string() + " for writing");
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!f) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

void write_chrome_trace(const RunResult& run, const std::filesystem::path& path) {
    write_text(chrome_trace_json(run), path);
}

void write_chrome_trace(const RunResult& run, const TraceGraph& graph,
                        const std::filesystem::path& path) {
    write_text(chrome_trace_json(run, graph), path);
}

}  // namespace graphlens
