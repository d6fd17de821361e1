// ReportSummary: everything the report formats show, computed once from a capture.
#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "graphlens/capture/report.h"
#include "graphlens/graph/dependency_dag.h"
#include "graphlens/graph/pipeline_stage.h"
#include "graphlens/graph/race_finder.h"
#include "graphlens/graph/schedule_analysis.h"

namespace graphlens {
namespace {

/// Concurrency-group index of every node (barriers get the index of the group before them).
std::vector<size_t> group_of_nodes(const ComputeGraph& g) {
    std::vector<size_t> group(g.nodes.size(), 0);
    size_t current = 0;
    bool open = false;  // the current group holds a dispatch
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        if (g.nodes[i].is_barrier()) {
            if (open) ++current;
            open = false;
            group[i] = current == 0 ? 0 : current - 1;
        } else {
            group[i] = current;
            open = true;
        }
    }
    return group;
}

uint64_t total_bytes(const std::vector<ByteRange>& rs) {
    uint64_t n = 0;
    for (const auto& r : rs) n += r.size();
    return n;
}

/// Labels of the dispatch nodes nearest before and after node `i`.
std::pair<std::string, std::string> neighbours(const ComputeGraph& g, size_t i) {
    std::pair<std::string, std::string> out;
    for (size_t j = i; j-- > 0;)
        if (g.nodes[j].is_dispatch()) {
            out.first = g.nodes[j].label;
            break;
        }
    for (size_t j = i + 1; j < g.nodes.size(); ++j)
        if (g.nodes[j].is_dispatch()) {
            out.second = g.nodes[j].label;
            break;
        }
    return out;
}

std::string describe_range(const ComputeGraph& g, const ByteRange& r) {
    const std::string name =
        r.allocation < g.allocations.size() ? g.allocations[r.allocation].name : "?";
    return name + " [" + std::to_string(r.begin) + ", " + std::to_string(r.end) + ")";
}

std::string workload_of(const CaptureDocument& doc) {
    if (doc.run && !doc.run->workload.empty()) return doc.run->workload;
    const auto& m = doc.graph.metadata;
    if (auto it = m.find("workload"); it != m.end()) return it->second;
    std::string w;
    if (auto it = m.find("model"); it != m.end()) w = it->second;
    if (auto it = m.find("phase"); it != m.end()) w += (w.empty() ? "" : " ") + it->second;
    return w.empty() ? "unnamed workload" : w;
}

void add_barrier_causes(const Snapshot& final_stage, ReportSummary& s, size_t top) {
    const ComputeGraph& g = final_stage.graph;
    using Key = std::tuple<bool, HazardKind, std::string, std::string, std::string>;
    std::map<Key, BarrierCause> causes;
    for (const BarrierExplanation& e : explain_barriers(g)) {
        if (e.redundant) continue;
        ++s.final_barriers_explained;
        const auto [before, after] = neighbours(g, e.barrier);
        std::vector<Key> seen;  // a barrier counts once per distinct cause
        auto count = [&](Key key, const std::string& example) {
            if (std::find(seen.begin(), seen.end(), key) != seen.end()) return;
            seen.push_back(key);
            BarrierCause& c = causes[key];
            if (c.barriers++ == 0) {
                c.fence = std::get<0>(key);
                c.kind = std::get<1>(key);
                c.allocation = std::get<2>(key);
                c.earlier_op = std::get<3>(key);
                c.later_op = std::get<4>(key);
                c.example = example;
            }
        };
        for (const Hazard& h : e.hazards) {
            const Node& a = g.nodes[h.earlier];
            const Node& b = g.nodes[h.later];
            const ByteRange bytes = h.overlap();
            const std::string alloc = bytes.allocation < g.allocations.size()
                                          ? g.allocations[bytes.allocation].name
                                          : "?";
            count({false, h.kind, alloc, std::string(op_kind_name(a.op)),
                   std::string(op_kind_name(b.op))},
                  a.label + " → " + b.label + ", " + describe_range(g, bytes));
        }
        for (size_t f : e.fences)
            count({true, HazardKind::raw, "", std::string(op_kind_name(g.nodes[f].op)), ""},
                  g.nodes[f].label + " (unknown ranges) between " + before + " and " + after);
    }
    for (auto& [key, c] : causes) s.barrier_causes.push_back(std::move(c));
    std::stable_sort(
        s.barrier_causes.begin(), s.barrier_causes.end(),
        [](const BarrierCause& a, const BarrierCause& b) { return a.barriers > b.barriers; });
    if (s.barrier_causes.size() > top) s.barrier_causes.resize(top);
}

void add_redundant_barriers(const Snapshot& snap, ReportSummary& s, size_t cap) {
    for (const BarrierExplanation& e : explain_barriers(snap.graph)) {
        if (!e.redundant) continue;
        ++s.redundant_total;
        if (s.redundant_barriers.size() >= cap) continue;
        const auto [before, after] = neighbours(snap.graph, e.barrier);
        s.redundant_barriers.push_back({snap.stage, e.barrier, before, after});
    }
}

void add_races(const ComputeGraph& captured, ReportSummary& s, size_t cap) {
    const std::vector<Race> races = find_races(captured);
    s.race_total = races.size();
    for (const Race& r : races) {
        if (s.races.size() >= cap) break;
        const ByteRange bytes = r.hazard.overlap();
        s.races.push_back({r.hazard.kind, captured.allocations[bytes.allocation].name, bytes.begin,
                           bytes.end, r.hazard.earlier, r.hazard.later,
                           captured.nodes[r.hazard.earlier].label,
                           captured.nodes[r.hazard.later].label, r.explanation});
    }
    std::vector<size_t> races_of(captured.nodes.size(), 0);
    for (const Race& r : races) {
        ++races_of[r.hazard.earlier];
        ++races_of[r.hazard.later];
    }
    for (DispatchRow& d : s.dispatches) d.races = races_of[d.position];
}

}  // namespace

std::string layer_of_label(std::string_view label) {
    // "blk.<n>." is the layer prefix of ggml/llama.cpp tensor names.
    if (!label.starts_with("blk.")) return {};
    size_t end = 4;
    while (end < label.size() && label[end] >= '0' && label[end] <= '9') ++end;
    if (end == 4) return {};
    return std::string(label.substr(0, end));
}

namespace {

/// Labels of every dispatch id any stage knows (fused ids only exist in later stages), the
/// capture's own first; "#id" for a dispatch without one.
class DispatchLabels {
  public:
    DispatchLabels(const ComputeGraph& captured, const std::vector<Snapshot>& snaps) {
        for (const Snapshot& snap : snaps)
            for (const Node& n : snap.graph->nodes)
                if (n.is_dispatch()) label_of_.emplace(n.id, n.label);
        for (const Node& n : captured.nodes)
            if (n.is_dispatch()) label_of_[n.id] = n.label;
    }
    std::vector<std::string> operator()(const std::vector<NodeId>& ids) const {
        std::vector<std::string> out;
        for (NodeId id : ids) {
            auto it = label_of_.find(id);
            out.push_back(it != label_of_.end() && !it->second.empty() ? it->second
                                                                       : "#" + std::to_string(id));
        }
        return out;
    }

  private:
    std::unordered_map<NodeId, std::string> label_of_;
};

/// One row a stage, with its fusions applied and (up to max_listed) near misses.
void add_stages(const std::vector<Snapshot>& snaps, const DispatchLabels& labels, ReportSummary& s,
                const ReportOptions& options) {
    for (const Snapshot& snap : snaps) {
        StageRow row{snap.stage,
                     snap.stats,
                     snap.reordered,
                     0,
                     0,
                     snap.pass_ms,
                     find_races(*snap.graph).size()};
        for (const FusionDiagnostic& f : snap.fusions) {
            FusionRow fr{f.pattern, labels(f.nodes), f.applied, f.reason};
            if (f.applied) {
                ++row.fusions_applied;
                s.fusions_applied.push_back(std::move(fr));
            } else {
                ++row.near_misses;
                ++s.near_miss_total;
                if (s.near_misses.size() < options.max_listed)
                    s.near_misses.push_back(std::move(fr));
            }
        }
        s.stages.push_back(std::move(row));
    }
}

/// The GPU time of the run's dispatches by op and by model layer.
void add_time_shares(const RunResult& run, ReportSummary& s) {
    std::map<std::string, TimeShare> per_op, per_layer;
    for (const DispatchTiming& d : run.per_dispatch) {
        const double ns = d.end_ns - d.start_ns;
        TimeShare& op = per_op[std::string(op_kind_name(d.op))];
        ++op.dispatches;
        op.gpu_ns += ns;
        std::string layer = layer_of_label(d.label);
        TimeShare& l = per_layer[layer.empty() ? "model" : layer];
        ++l.dispatches;
        l.gpu_ns += ns;
    }
    for (auto& [key, share] : per_op) {
        share.key = key;
        s.time_per_op.push_back(share);
    }
    std::sort(s.time_per_op.begin(), s.time_per_op.end(),
              [](const TimeShare& a, const TimeShare& b) { return a.gpu_ns > b.gpu_ns; });
    for (auto& [key, share] : per_layer) {
        share.key = key;
        s.time_per_layer.push_back(share);
    }
    // Layers in model order ("blk.2" before "blk.10"), the rest last.
    auto layer_number = [](const std::string& k) {
        return k.starts_with("blk.") ? std::stoll(k.substr(4)) : -1;
    };
    std::sort(s.time_per_layer.begin(), s.time_per_layer.end(),
              [&](const TimeShare& a, const TimeShare& b) {
                  const auto x = layer_number(a.key), y = layer_number(b.key);
                  if ((x < 0) != (y < 0)) return y < 0;
                  return x != y ? x < y : a.key < b.key;
              });
}

/// The run's modes with their speed-ups over serial (or the first mode), and where the GPU
/// time goes.
void add_run(const RunResult& run, ReportSummary& s) {
    const ModeResult* ref = nullptr;
    for (const ModeResult& m : run.modes)
        if (m.mode == "serial") ref = &m;
    if (!ref && !run.modes.empty()) ref = &run.modes.front();
    if (ref) s.reference_mode = ref->mode;
    s.run_device = run.device;
    s.run_date = run.date;
    s.run_warmup = run.warmup;
    s.run_repeats = run.repeats;
    for (const ModeResult& m : run.modes) {
        ModeRow row{m, 0, 0};
        if (ref && m.error.empty() && m.gpu_ns.median > 0)
            row.gpu_speedup = ref->gpu_ns.median / m.gpu_ns.median;
        if (ref && m.error.empty() && m.wall_ns.median > 0)
            row.wall_speedup = ref->wall_ns.median / m.wall_ns.median;
        s.modes.push_back(std::move(row));
    }
    add_time_shares(run, s);
}

/// One row per captured dispatch, followed to the final stage (where it stands, or the fused
/// node it became), with its GPU time when the capture has a run.
void add_dispatch_rows(const CaptureDocument& doc, const ComputeGraph& final_graph,
                       ReportSummary& s) {
    const auto captured_groups = group_of_nodes(doc.graph);
    const auto final_groups = group_of_nodes(final_graph);
    std::unordered_map<NodeId, size_t> final_pos;
    std::unordered_map<NodeId, NodeId> fused_into;
    for (size_t i = 0; i < final_graph.nodes.size(); ++i) {
        const Node& n = final_graph.nodes[i];
        if (!n.is_dispatch()) continue;
        final_pos[n.id] = i;
        if (n.origin.size() > 1)
            for (NodeId o : n.origin) fused_into[o] = n.id;
    }
    std::unordered_map<NodeId, const DispatchTiming*> timing;
    if (doc.run)
        for (const DispatchTiming& d : doc.run->per_dispatch) timing.emplace(d.node, &d);
    for (size_t i = 0; i < doc.graph.nodes.size(); ++i) {
        const Node& n = doc.graph.nodes[i];
        if (!n.is_dispatch()) continue;
        DispatchRow r;
        r.position = i;
        r.id = n.id;
        r.label = n.label;
        r.op = n.op;
        r.kernel = n.kernel < doc.graph.kernels.size() ? doc.graph.kernels[n.kernel].name : "";
        r.workgroups = n.workgroups;
        r.read_bytes = total_bytes(n.reads);
        r.write_bytes = total_bytes(n.writes);
        r.ranges_known = n.ranges_known;
        r.captured_group = captured_groups[i];
        const auto fused = fused_into.find(n.id);
        const NodeId final_id = fused != fused_into.end() ? fused->second : n.id;
        if (fused != fused_into.end()) r.fused_into = fused->second;
        if (auto p = final_pos.find(final_id); p != final_pos.end()) {
            r.final_position = p->second;
            r.final_group = final_groups[p->second];
        }
        if (auto t = timing.find(n.id); t != timing.end()) {
            r.gpu_start_ns = t->second->start_ns;
            r.gpu_ns = t->second->end_ns - t->second->start_ns;
        }
        s.dispatches.push_back(std::move(r));
    }
}

/// The first options.strip_nodes nodes of a graph, for the reports' schedule strips.
std::vector<StripNode> strip_of(const ComputeGraph& g, const ReportOptions& options) {
    std::vector<StripNode> out;
    const size_t n = std::min(g.nodes.size(), options.strip_nodes);
    out.reserve(n);
    for (size_t i = 0; i < n; ++i)
        out.push_back({g.nodes[i].is_barrier(), g.nodes[i].op, g.nodes[i].label});
    return out;
}

}  // namespace

ReportSummary summarize_capture(const CaptureDocument& doc, const ReportOptions& options) {
    ReportSummary s;
    s.generator = doc.generator;
    s.device = doc.device;
    s.workload = workload_of(doc);
    for (const auto& [k, v] : doc.graph.metadata) s.metadata.emplace_back(k, v);

    std::vector<Snapshot> computed;
    if (doc.snapshots.empty()) {
        computed = PassPipeline::run(doc.graph, options.passes);
        s.pipeline_run_by_report = true;
    }
    const std::vector<Snapshot>& snaps = doc.snapshots.empty() ? computed : doc.snapshots;
    add_stages(snaps, DispatchLabels(doc.graph, snaps), s, options);
    s.barrier_lower_bound = DependencyDag(doc.graph).barrier_lower_bound();

    const ComputeGraph& final_graph = snaps.empty() ? doc.graph : *snaps.back().graph;
    s.final_stage = snaps.empty() ? std::string(pipeline_stage_name(PipelineStage::captured))
                                  : snaps.back().stage;
    s.final_histogram = snaps.empty() ? schedule_stats(doc.graph).group_size_histogram
                                      : snaps.back().stats.group_size_histogram;
    if (!snaps.empty()) add_barrier_causes(snaps.back(), s, options.top_barrier_causes);

    // Redundant barriers of the captured schedule (what the engine emitted) and of the final.
    Snapshot captured_view;
    captured_view.stage = pipeline_stage_name(PipelineStage::captured);
    captured_view.graph = doc.graph;
    add_redundant_barriers(captured_view, s, options.max_listed);
    if (snaps.size() > 1) add_redundant_barriers(snaps.back(), s, options.max_listed);

    if (doc.run) add_run(*doc.run, s);
    add_dispatch_rows(doc, final_graph, s);
    add_races(doc.graph, s, options.max_listed);
    s.strip_total_nodes = doc.graph.nodes.size();
    s.strips.emplace_back(pipeline_stage_name(PipelineStage::captured),
                          strip_of(doc.graph, options));
    if (snaps.size() > 1) s.strips.emplace_back(s.final_stage, strip_of(final_graph, options));
    return s;
}

std::optional<ReportFormat> report_format_from_name(std::string_view name) {
    if (name == "html") return ReportFormat::html;
    if (name == "md" || name == "markdown") return ReportFormat::markdown;
    if (name == "csv") return ReportFormat::csv;
    if (name == "json") return ReportFormat::json;
    return std::nullopt;
}

std::string_view report_format_name(ReportFormat f) {
    switch (f) {
        case ReportFormat::html:
            return "html";
        case ReportFormat::markdown:
            return "md";
        case ReportFormat::csv:
            return "csv";
        case ReportFormat::json:
            return "json";
    }
    return "?";
}

std::string render_report(const ReportSummary& s, ReportFormat format) {
    switch (format) {
        case ReportFormat::html:
            return report_html(s);
        case ReportFormat::markdown:
            return report_markdown(s);
        case ReportFormat::csv:
            return report_csv(s);
        case ReportFormat::json:
            return report_json(s);
    }
    return {};
}

}  // namespace graphlens
