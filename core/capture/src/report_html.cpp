// HTML report: one self-contained file (inline CSS and SVG, no scripts, no network) with the
// schedule strips, the group-size histogram and the mode bars, plus the Markdown report's
// tables. Colours are the Okabe–Ito colour-blind-safe palette.
#include <fmt/format.h>

#include <algorithm>

#include "capture/src/report_text.h"
#include "capture/src/xml_escaped.h"
#include "graphlens/capture/report.h"
#include "graphlens/graph/op_family.h"
#include "graphlens/graph/palette.h"

namespace graphlens {
namespace {
using namespace report_detail;

// The report marks barriers in the colour the GUI gives a redundant one: a strip shows where
// the barriers are, and the eye should find them.
std::string barrier_mark_colour() {
    return redundant_barrier_colour().hex();
}

std::string strip_svg(const std::string& stage, const std::vector<StripNode>& nodes) {
    const double width = 1000, height = 34;
    const double w = nodes.empty() ? width : width / static_cast<double>(nodes.size());
    std::string svg = fmt::format(
        "<svg class=\"strip\" viewBox=\"0 0 {} {}\" width=\"100%\" height=\"{}\" "
        "preserveAspectRatio=\"none\" role=\"img\" aria-label=\"schedule of {}\">",
        width, height, height, capture_detail::xml_escaped(stage));
    for (size_t i = 0; i < nodes.size(); ++i) {
        const double x = static_cast<double>(i) * w;
        if (nodes[i].barrier) {
            svg += fmt::format(
                "<rect x=\"{:.2f}\" y=\"0\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\"><title>"
                "barrier (node {})</title></rect>",
                x, std::max(w, 1.0), height, barrier_mark_colour(), i);
        } else {
            const OpFamily f = op_family(nodes[i].op);
            svg += fmt::format(
                "<rect x=\"{:.2f}\" y=\"6\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\"><title>{} "
                "({}, node {})</title></rect>",
                x, w, height - 12, op_family_colour(f).hex(),
                capture_detail::xml_escaped(nodes[i].label), op_kind_name(nodes[i].op), i);
        }
    }
    return svg + "</svg>";
}

std::string histogram_svg(const std::vector<size_t>& histogram) {
    const auto rows = histogram_rows(histogram);
    if (rows.empty()) return "<p>No groups.</p>";
    size_t max_count = 1;
    for (const auto& r : rows) max_count = std::max(max_count, r.second);
    const double bar = 36, gap = 8, plot_h = 160, top = 18, bottom = 22;
    const double width = static_cast<double>(rows.size()) * (bar + gap) + gap;
    std::string svg = fmt::format(
        "<svg viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" "
        "aria-label=\"group size histogram\">",
        width, plot_h + top + bottom, width, plot_h + top + bottom);
    for (size_t i = 0; i < rows.size(); ++i) {
        const double h =
            plot_h * static_cast<double>(rows[i].second) / static_cast<double>(max_count);
        const double x = gap + static_cast<double>(i) * (bar + gap);
        svg += fmt::format(
            "<rect x=\"{}\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" fill=\"#0072B2\"><title>"
            "{} groups of {} dispatches</title></rect>"
            "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>"
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            x, top + plot_h - h, bar, h, rows[i].second, rows[i].first, x + bar / 2,
            top + plot_h - h - 4, rows[i].second, x + bar / 2, top + plot_h + 16, rows[i].first);
    }
    return svg + "</svg>";
}

std::string mode_bars_svg(const ReportSummary& s) {
    double max_ns = 0;
    for (const ModeRow& m : s.modes) max_ns = std::max(max_ns, m.result.gpu_ns.median);
    if (max_ns <= 0) return {};
    const double label_w = 130, plot_w = 560, row_h = 26;
    const double height = row_h * static_cast<double>(s.modes.size()) + 8;
    std::string svg = fmt::format(
        "<svg viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" "
        "aria-label=\"GPU time per mode\">",
        label_w + plot_w + 170, height, label_w + plot_w + 170, height);
    for (size_t i = 0; i < s.modes.size(); ++i) {
        const ModeRow& m = s.modes[i];
        const double y = 4 + static_cast<double>(i) * row_h;
        const double w = plot_w * m.result.gpu_ns.median / max_ns;
        const bool bad = !m.result.error.empty() || !m.result.outputs_match;
        svg += fmt::format(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>"
            "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>"
            "<text x=\"{:.1f}\" y=\"{}\">{} · {}</text>",
            label_w - 8, y + 16, capture_detail::xml_escaped(m.result.mode), label_w, y + 3, w,
            row_h - 8, bad ? barrier_mark_colour() : "#009E73", label_w + w + 6, y + 16,
            capture_detail::xml_escaped(format_ns(m.result.gpu_ns.median)),
            capture_detail::xml_escaped(format_speedup(m.gpu_speedup)));
    }
    return svg + "</svg>";
}

std::string legend() {
    std::string html = "<p class=\"legend\">";
    for (OpFamily f : kOpFamilies)
        html += fmt::format("<span><i style=\"background:{}\"></i>{}</span>",
                            op_family_colour(f).hex(), op_family_name(f));
    html += fmt::format("<span><i style=\"background:{}\"></i>barrier</span></p>",
                        barrier_mark_colour());
    return html;
}

struct Table {
    std::string html;
    explicit Table(std::initializer_list<const char*> headers) {
        html = "<table><thead><tr>";
        for (const char* h : headers) html += std::string("<th>") + h + "</th>";
        html += "</tr></thead><tbody>";
    }
    void row(std::initializer_list<std::string> cells) {
        html += "<tr>";
        for (const auto& c : cells) html += "<td>" + capture_detail::xml_escaped(c) + "</td>";
        html += "</tr>";
    }
    std::string done() { return html + "</tbody></table>"; }
};

}  // namespace

// One function, top to bottom as the page reads (style, header, tables, strips): each section
// is a few lines over the summary's fields (all computed in summarize_capture), so the page's
// order stays visible in one place.
std::string report_html(const ReportSummary& s) {
    std::string h;
    h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
    h += "<title>GraphLens report: " + capture_detail::xml_escaped(s.workload) + "</title><style>";
    h += "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}"
         "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;"
         "padding:3px 8px;text-align:left}th{background:#f3f3f3}td:not(:first-child){"
         "font-variant-numeric:tabular-nums}svg text{font:12px system-ui,sans-serif}"
         ".strip{border:1px solid #ccc;background:#fff}.legend span{margin-right:1.2em}"
         ".legend i{display:inline-block;width:.9em;height:.9em;margin-right:.3em;"
         "vertical-align:middle}h2{margin-top:1.6em}.note{color:#666}";
    h += "</style></head><body>\n";
    h += "<h1>GraphLens report: " + capture_detail::xml_escaped(s.workload) + "</h1>\n";
    h += "<p><b>Device:</b> " + capture_detail::xml_escaped(device_line(s)) + "<br>";
    if (!s.generator.empty())
        h += "<b>Captured by:</b> " + capture_detail::xml_escaped(s.generator) + "<br>";
    for (const auto& [k, v] : s.metadata)
        h += "<b>" + capture_detail::xml_escaped(k) + ":</b> " + capture_detail::xml_escaped(v) +
             "<br>";
    h += "</p>\n";
    if (s.pipeline_run_by_report)
        h += "<p class=\"note\">The capture held no pass snapshots; this report ran the default "
             "pass pipeline.</p>\n";

    h += "<h2>Schedule per pass stage</h2>\n";
    Table stages({"stage", "dispatches", "barriers", "races", "groups", "mean group", "reordered",
                  "fusions", "near misses", "pass time"});
    for (const StageRow& r : s.stages)
        stages.row({r.stage, std::to_string(r.stats.dispatches), std::to_string(r.stats.barriers),
                    std::to_string(r.races), std::to_string(r.stats.groups),
                    fmt::format("{:.2f}", r.stats.mean_group_size), std::to_string(r.reordered),
                    std::to_string(r.fusions_applied), std::to_string(r.near_misses),
                    fmt::format("{:.2f} ms", r.pass_ms)});
    h += stages.done();
    h += fmt::format(
        "<p>Barrier lower bound of the captured graph: <b>{}</b> (hazard DAG depth "
        "− 1).</p>\n",
        s.barrier_lower_bound);
    for (const auto& [stage, nodes] : s.strips) {
        h += "<h3>Schedule: " + capture_detail::xml_escaped(stage) + "</h3>";
        if (nodes.size() < s.strip_total_nodes)
            h += fmt::format("<p class=\"note\">First {} nodes.</p>", nodes.size());
        h += strip_svg(stage, nodes) + "\n";
    }
    h += legend();

    h += "<h2>Group sizes (" + capture_detail::xml_escaped(s.final_stage) + ")</h2>\n" +
         histogram_svg(s.final_histogram);

    h += fmt::format("<h2>Fusions: {} applied, {} near misses</h2>\n", s.fusions_applied.size(),
                     s.near_miss_total);
    if (!s.fusions_applied.empty() || !s.near_misses.empty()) {
        Table t({"pattern", "dispatches", "applied", "reason"});
        for (const auto* list : {&s.fusions_applied, &s.near_misses})
            for (const FusionRow& f : *list)
                t.row({f.pattern, join(f.labels, ", "), f.applied ? "yes" : "no", f.reason});
        h += t.done();
        if (s.near_miss_total > s.near_misses.size())
            h += fmt::format("<p class=\"note\">{} more near misses not listed.</p>\n",
                             s.near_miss_total - s.near_misses.size());
    }

    h += fmt::format("<h2>Barriers that cost most ({}: {} necessary barriers)</h2>\n",
                     capture_detail::xml_escaped(s.final_stage), s.final_barriers_explained);
    if (s.barrier_causes.empty()) {
        h += "<p>No barrier is forced by a hazard.</p>";
    } else {
        Table t({"cause", "barriers", "share", "example"});
        for (const BarrierCause& c : s.barrier_causes)
            t.row({cause_text(c), std::to_string(c.barriers),
                   format_percent(static_cast<double>(c.barriers),
                                  static_cast<double>(s.final_barriers_explained)),
                   c.example});
        h += t.done();
    }

    h += fmt::format("<h2>Races (hazards no barrier orders): {}</h2>\n", s.race_total);
    if (!s.races.empty()) {
        Table t({"hazard", "allocation", "bytes", "earlier", "later", "why"});
        for (const RaceRow& r : s.races)
            t.row({std::string(hazard_kind_name(r.kind)), r.allocation,
                   fmt::format("{}..{}", r.begin, r.end),
                   fmt::format("{} (node {})", r.earlier_label, r.earlier),
                   fmt::format("{} (node {})", r.later_label, r.later), r.explanation});
        h += t.done();
    }

    h += fmt::format("<h2>Redundant barriers: {}</h2>\n", s.redundant_total);
    if (!s.redundant_barriers.empty()) {
        Table t({"stage", "node", "between"});
        for (const RedundantBarrier& b : s.redundant_barriers)
            t.row({b.stage, std::to_string(b.node),
                   (b.before.empty() ? "(start)" : b.before) + " → " +
                       (b.after.empty() ? "(end)" : b.after)});
        h += t.done();
    }

    if (!s.modes.empty()) {
        h += "<h2>Timing per mode (speed-up vs " + capture_detail::xml_escaped(s.reference_mode) +
             ")</h2>\n";
        h += "<p>" + capture_detail::xml_escaped(run_line(s)) + "</p>\n";
        h += mode_bars_svg(s);
        Table t({"mode", "GPU median", "GPU min", "GPU max", "speed-up", "wall median",
                 "wall speed-up", "dispatches", "barriers", "cmd buffers", "outputs"});
        for (const ModeRow& m : s.modes) {
            const ModeResult& r = m.result;
            t.row({r.mode, format_ns(r.gpu_ns.median), format_ns(r.gpu_ns.min),
                   format_ns(r.gpu_ns.max), format_speedup(m.gpu_speedup),
                   format_ns(r.wall_ns.median), format_speedup(m.wall_speedup),
                   std::to_string(r.dispatches), std::to_string(r.barriers),
                   std::to_string(r.command_buffers),
                   !r.error.empty() ? "error: " + r.error
                                    : (r.outputs_match ? "match" : "DIFFER") +
                                          (r.comparison.empty() ? "" : " (" + r.comparison + ")")});
        }
        h += t.done();
    }
    auto shares = [&](const char* title, const char* key, const std::vector<TimeShare>& rows) {
        if (rows.empty()) return;
        double total = 0;
        for (const auto& r : rows) total += r.gpu_ns;
        h += std::string("<h2>") + title + " (per-dispatch profile, serialised)</h2>\n";
        Table t({key, "dispatches", "GPU time", "share"});
        for (const auto& r : rows)
            t.row({r.key, std::to_string(r.dispatches), format_ns(r.gpu_ns),
                   format_percent(r.gpu_ns, total)});
        h += t.done();
    };
    shares("Time per op kind", "op", s.time_per_op);
    shares("Time per layer", "layer", s.time_per_layer);
    h += "</body></html>\n";
    return h;
}

}  // namespace graphlens
