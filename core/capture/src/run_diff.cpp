#include "graphlens/capture/run_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "capture/src/report_text.h"
#include "graphlens/capture/report.h"
#include "graphlens/graph/schedule_analysis.h"

namespace graphlens {

std::optional<double> Delta::ratio() const {
    if (a && b && *a > 0) return *b / *a;
    return std::nullopt;
}

namespace {

using LabelKey = std::pair<std::string, size_t>;  // label, occurrence

std::map<LabelKey, size_t> label_occurrences(const ComputeGraph& g) {
    std::map<LabelKey, size_t> out;
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < g.nodes.size(); ++i)
        if (g.nodes[i].is_dispatch()) out[{g.nodes[i].label, seen[g.nodes[i].label]++}] = i;
    return out;
}

std::string describe_key(const LabelKey& k) {
    return k.second == 0 ? k.first : k.first + " (#" + std::to_string(k.second + 1) + ")";
}

StageDelta stage_delta(std::string name, const ScheduleStats* a, const ScheduleStats* b) {
    StageDelta d;
    d.stage = std::move(name);
    auto fill = [](Delta& delta, const ScheduleStats* s, bool is_a, size_t v) {
        if (!s) return;
        (is_a ? delta.a : delta.b) = static_cast<double>(v);
    };
    fill(d.dispatches, a, true, a ? a->dispatches : 0);
    fill(d.barriers, a, true, a ? a->barriers : 0);
    fill(d.groups, a, true, a ? a->groups : 0);
    fill(d.dispatches, b, false, b ? b->dispatches : 0);
    fill(d.barriers, b, false, b ? b->barriers : 0);
    fill(d.groups, b, false, b ? b->groups : 0);
    return d;
}

struct Times {
    std::map<std::string, std::pair<size_t, double>> per_op, per_layer;
    std::map<LabelKey, double> per_label;
};

Times times_of(const CaptureDocument& doc) {
    Times t;
    if (!doc.run) return t;
    std::map<std::string, size_t> seen;
    for (const DispatchTiming& d : doc.run->per_dispatch) {
        const double ns = d.end_ns - d.start_ns;
        auto& op = t.per_op[std::string(op_kind_name(d.op))];
        ++op.first;
        op.second += ns;
        std::string layer = layer_of_label(d.label);
        auto& l = t.per_layer[layer.empty() ? "model" : layer];
        ++l.first;
        l.second += ns;
        t.per_label[{d.label, seen[d.label]++}] += ns;
    }
    return t;
}

std::vector<KeyedTimeDelta> keyed(const std::map<std::string, std::pair<size_t, double>>& a,
                                  const std::map<std::string, std::pair<size_t, double>>& b) {
    std::map<std::string, KeyedTimeDelta> rows;
    for (const auto& [k, v] : a) {
        rows[k].key = k;
        rows[k].dispatches.a = static_cast<double>(v.first);
        rows[k].gpu_ns.a = v.second;
    }
    for (const auto& [k, v] : b) {
        rows[k].key = k;
        rows[k].dispatches.b = static_cast<double>(v.first);
        rows[k].gpu_ns.b = v.second;
    }
    std::vector<KeyedTimeDelta> out;
    for (auto& [k, r] : rows) out.push_back(std::move(r));
    return out;
}

// The dispatches matched by (label, occurrence) and those only one side has.
void match_labels(const ComputeGraph& a, const ComputeGraph& b, const DiffOptions& options,
                  CaptureDiff& d) {
    const auto la = label_occurrences(a);
    const auto lb = label_occurrences(b);
    for (const auto& [key, index] : la) {
        if (lb.count(key)) {
            ++d.matched_labels;
        } else if (d.only_in_a_total++ < options.max_listed) {
            d.only_in_a.push_back(describe_key(key));
        }
    }
    for (const auto& [key, index] : lb)
        if (!la.count(key) && d.only_in_b_total++ < options.max_listed)
            d.only_in_b.push_back(describe_key(key));
}

// The captured schedules themselves, then every stage either side stored, by name.
std::vector<StageDelta> stage_deltas(const CaptureDocument& a, const CaptureDocument& b) {
    std::vector<StageDelta> out;
    const ScheduleStats ca = schedule_stats(a.graph), cb = schedule_stats(b.graph);
    out.push_back(stage_delta("captured (as recorded)", &ca, &cb));
    std::vector<std::string> names;
    for (const auto* doc : {&a, &b})
        for (const Snapshot& s : doc->snapshots)
            if (std::find(names.begin(), names.end(), s.stage) == names.end())
                names.push_back(s.stage);
    auto find_stage = [](const CaptureDocument& doc,
                         const std::string& name) -> const ScheduleStats* {
        for (const Snapshot& s : doc.snapshots)
            if (s.stage == name) return &s.stats;
        return nullptr;
    };
    for (const std::string& n : names)
        out.push_back(stage_delta(n, find_stage(a, n), find_stage(b, n)));
    return out;
}

// Every execution mode either side ran, by name; a side's failed run of a mode counts as none.
std::vector<ModeDelta> mode_deltas(const CaptureDocument& a, const CaptureDocument& b) {
    std::vector<std::string> modes;
    for (const auto* doc : {&a, &b})
        if (doc->run)
            for (const ModeResult& m : doc->run->modes)
                if (std::find(modes.begin(), modes.end(), m.mode) == modes.end())
                    modes.push_back(m.mode);
    auto find_mode = [](const CaptureDocument& doc, const std::string& name) -> const ModeResult* {
        if (!doc.run) return nullptr;
        for (const ModeResult& m : doc.run->modes)
            if (m.mode == name && m.error.empty()) return &m;
        return nullptr;
    };
    std::vector<ModeDelta> out;
    for (const std::string& name : modes) {
        ModeDelta md;
        md.mode = name;
        if (const ModeResult* m = find_mode(a, name)) {
            md.gpu_ns.a = m->gpu_ns.median;
            md.wall_ns.a = m->wall_ns.median;
            md.barriers.a = static_cast<double>(m->barriers);
            md.dispatches.a = static_cast<double>(m->dispatches);
        }
        if (const ModeResult* m = find_mode(b, name)) {
            md.gpu_ns.b = m->gpu_ns.median;
            md.wall_ns.b = m->wall_ns.median;
            md.barriers.b = static_cast<double>(m->barriers);
            md.dispatches.b = static_cast<double>(m->dispatches);
        }
        out.push_back(std::move(md));
    }
    return out;
}

// The dispatches both sides timed, largest change of GPU time first, at most `max_listed`.
std::vector<KeyedTimeDelta> biggest_changes(const Times& a, const Times& b, size_t max_listed) {
    std::vector<KeyedTimeDelta> out;
    for (const auto& [key, ns] : a.per_label) {
        auto it = b.per_label.find(key);
        if (it == b.per_label.end()) continue;
        KeyedTimeDelta k;
        k.key = describe_key(key);
        k.gpu_ns.a = ns;
        k.gpu_ns.b = it->second;
        out.push_back(std::move(k));
    }
    std::stable_sort(out.begin(), out.end(), [](const KeyedTimeDelta& x, const KeyedTimeDelta& y) {
        return std::abs(*x.gpu_ns.b - *x.gpu_ns.a) > std::abs(*y.gpu_ns.b - *y.gpu_ns.a);
    });
    if (out.size() > max_listed) out.resize(max_listed);
    return out;
}

}  // namespace

CaptureDiff diff_captures(const CaptureDocument& a, const CaptureDocument& b, std::string a_name,
                          std::string b_name, const DiffOptions& options) {
    CaptureDiff d;
    d.a_name = std::move(a_name);
    d.b_name = std::move(b_name);
    match_labels(a.graph, b.graph, options, d);
    d.stages = stage_deltas(a, b);
    d.modes = mode_deltas(a, b);
    const Times ta = times_of(a), tb = times_of(b);
    if (!ta.per_label.empty() && !tb.per_label.empty()) {
        d.per_op = keyed(ta.per_op, tb.per_op);
        d.per_layer = keyed(ta.per_layer, tb.per_layer);
        d.biggest_changes = biggest_changes(ta, tb, options.max_listed);
    }
    return d;
}

namespace {
using report_detail::format_ns;

std::string count(const std::optional<double>& v) {
    return v ? fmt::format("{:.0f}", *v) : "–";
}
std::string time(const std::optional<double>& v) {
    return v ? format_ns(*v) : "–";
}
std::string change_count(const Delta& d) {
    if (!d.a || !d.b) return "–";
    return fmt::format("{:+.0f}", *d.b - *d.a);
}
std::string change_time(const Delta& d) {
    if (!d.a || !d.b) return "–";
    const auto r = d.ratio();
    return (*d.b >= *d.a ? "+" : "−") + format_ns(std::abs(*d.b - *d.a)) +
           (r ? fmt::format(" ({:.2f}×)", *r) : "");
}
}  // namespace

std::string diff_markdown(const CaptureDiff& d) {
    std::string md;
    auto line = [&](const std::string& l) { md += l + "\n"; };
    line("## GraphLens diff: A = " + d.a_name + ", B = " + d.b_name);
    line("");
    line(fmt::format("Dispatches matched by label: {}; only in A: {}; only in B: {}.",
                     d.matched_labels, d.only_in_a_total, d.only_in_b_total));
    line("");
    line("### Schedule per stage");
    line("");
    line(
        "| stage | dispatches A | dispatches B | barriers A | barriers B | Δ barriers | groups A | "
        "groups B | Δ groups |");
    line("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const StageDelta& s : d.stages)
        line(fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |", s.stage,
                         count(s.dispatches.a), count(s.dispatches.b), count(s.barriers.a),
                         count(s.barriers.b), change_count(s.barriers), count(s.groups.a),
                         count(s.groups.b), change_count(s.groups)));
    line("");
    if (!d.modes.empty()) {
        line("### Timing per mode (GPU and wall medians; B/A < 1 is faster)");
        line("");
        line(
            "| mode | GPU A | GPU B | Δ GPU | wall A | wall B | Δ wall | barriers A | barriers B "
            "|");
        line("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (const ModeDelta& m : d.modes)
            line(fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |", m.mode,
                             time(m.gpu_ns.a), time(m.gpu_ns.b), change_time(m.gpu_ns),
                             time(m.wall_ns.a), time(m.wall_ns.b), change_time(m.wall_ns),
                             count(m.barriers.a), count(m.barriers.b)));
        line("");
    }
    auto keyed_table = [&](const std::string& title, const std::string& key,
                           const std::vector<KeyedTimeDelta>& rows, bool with_counts) {
        if (rows.empty()) return;
        line("### " + title);
        line("");
        if (with_counts) {
            line("| " + key + " | dispatches A | dispatches B | GPU A | GPU B | Δ GPU |");
            line("|---|---:|---:|---:|---:|---:|");
        } else {
            line("| " + key + " | GPU A | GPU B | Δ GPU |");
            line("|---|---:|---:|---:|");
        }
        for (const KeyedTimeDelta& r : rows) {
            if (with_counts)
                line(fmt::format("| {} | {} | {} | {} | {} | {} |", r.key, count(r.dispatches.a),
                                 count(r.dispatches.b), time(r.gpu_ns.a), time(r.gpu_ns.b),
                                 change_time(r.gpu_ns)));
            else
                line(fmt::format("| {} | {} | {} | {} |", r.key, time(r.gpu_ns.a), time(r.gpu_ns.b),
                                 change_time(r.gpu_ns)));
        }
        line("");
    };
    keyed_table("Time per op kind (per-dispatch profiles)", "op", d.per_op, true);
    keyed_table("Time per layer (per-dispatch profiles)", "layer", d.per_layer, true);
    keyed_table("Largest per-dispatch changes", "dispatch", d.biggest_changes, false);
    if (!d.only_in_a.empty() || !d.only_in_b.empty()) {
        line("### Unmatched labels");
        line("");
        if (!d.only_in_a.empty()) line("- only in A: " + report_detail::join(d.only_in_a, ", "));
        if (!d.only_in_b.empty()) line("- only in B: " + report_detail::join(d.only_in_b, ", "));
        line("");
    }
    return md;
}

}  // namespace graphlens
