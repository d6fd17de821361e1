// Markdown report: GitHub-flavoured tables that paste cleanly into a pull request (pipes in
// labels escaped, no HTML).
#include <fmt/format.h>

#include "capture/src/report_text.h"
#include "graphlens/capture/report.h"

namespace graphlens {
namespace {
using namespace report_detail;

std::string cell(std::string s) {
    std::string out;
    for (char c : s) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n')
            out += ' ';
        else
            out += c;
    }
    return out;
}
}  // namespace

// One function, top to bottom as the page reads: each section is a few lines over the summary's
// fields (all computed in summarize_capture), so the page's order stays visible in one place.
std::string report_markdown(const ReportSummary& s) {
    std::string md;
    auto line = [&](const std::string& l) { md += l + "\n"; };
    line("## GraphLens report: " + cell(s.workload));
    line("");
    line("- **Device:** " + cell(device_line(s)));
    if (!s.generator.empty()) line("- **Captured by:** " + cell(s.generator));
    for (const auto& [k, v] : s.metadata) line("- **" + cell(k) + ":** " + cell(v));
    if (s.pipeline_run_by_report)
        line("- The capture held no pass snapshots; this report ran the default pass pipeline.");
    line("");

    line("### Schedule per pass stage");
    line("");
    line(
        "| stage | dispatches | barriers | races | groups | mean group | reordered | fusions "
        "| near misses | pass time |");
    line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const StageRow& r : s.stages)
        line(fmt::format("| {} | {} | {} | {} | {} | {:.2f} | {} | {} | {} | {:.2f} ms |",
                         cell(r.stage), r.stats.dispatches, r.stats.barriers, r.races,
                         r.stats.groups, r.stats.mean_group_size, r.reordered, r.fusions_applied,
                         r.near_misses, r.pass_ms));
    line("");
    line(fmt::format("Barrier lower bound of the captured graph: **{}** (hazard DAG depth − 1).",
                     s.barrier_lower_bound));
    line("");

    line("### Group sizes (" + cell(s.final_stage) + ")");
    line("");
    line("| dispatches per group | groups |");
    line("|---:|---:|");
    for (const auto& [size, count] : histogram_rows(s.final_histogram))
        line(fmt::format("| {} | {} |", size, count));
    line("");

    line(fmt::format("### Fusions: {} applied, {} near misses", s.fusions_applied.size(),
                     s.near_miss_total));
    line("");
    if (!s.fusions_applied.empty() || !s.near_misses.empty()) {
        line("| pattern | dispatches | applied | reason |");
        line("|---|---|---|---|");
        for (const auto* list : {&s.fusions_applied, &s.near_misses})
            for (const FusionRow& f : *list)
                line("| " + cell(f.pattern) + " | " + cell(join(f.labels, ", ")) + " | " +
                     (f.applied ? "yes" : "no") + " | " + cell(f.reason) + " |");
        if (s.near_miss_total > s.near_misses.size())
            line(fmt::format("\n({} more near misses not listed)",
                             s.near_miss_total - s.near_misses.size()));
        line("");
    }

    line(fmt::format("### Barriers that cost most ({}: {} necessary barriers)", cell(s.final_stage),
                     s.final_barriers_explained));
    line("");
    if (s.barrier_causes.empty()) {
        line("No barrier is forced by a hazard.");
    } else {
        line("| cause | barriers | share | example |");
        line("|---|---:|---:|---|");
        for (const BarrierCause& c : s.barrier_causes)
            line(fmt::format("| {} | {} | {} | {} |", cell(cause_text(c)), c.barriers,
                             format_percent(static_cast<double>(c.barriers),
                                            static_cast<double>(s.final_barriers_explained)),
                             cell(c.example)));
    }
    line("");

    line(fmt::format("### Races (hazards no barrier orders): {}", s.race_total));
    line("");
    if (!s.races.empty()) {
        line("| hazard | allocation | bytes | earlier | later | why |");
        line("|---|---|---|---|---|---|");
        for (const RaceRow& r : s.races)
            line(fmt::format("| {} | {} | {}..{} | {} (node {}) | {} (node {}) | {} |",
                             hazard_kind_name(r.kind), cell(r.allocation), r.begin, r.end,
                             cell(r.earlier_label), r.earlier, cell(r.later_label), r.later,
                             cell(r.explanation)));
        if (s.race_total > s.races.size())
            line(fmt::format("\n({} more not listed)", s.race_total - s.races.size()));
        line("");
    }

    line(fmt::format("### Redundant barriers: {}", s.redundant_total));
    line("");
    if (!s.redundant_barriers.empty()) {
        line("| stage | node | between |");
        line("|---|---:|---|");
        for (const RedundantBarrier& b : s.redundant_barriers)
            line(fmt::format("| {} | {} | {} → {} |", cell(b.stage), b.node,
                             cell(b.before.empty() ? "(start)" : b.before),
                             cell(b.after.empty() ? "(end)" : b.after)));
        if (s.redundant_total > s.redundant_barriers.size())
            line(fmt::format("\n({} more not listed)",
                             s.redundant_total - s.redundant_barriers.size()));
        line("");
    }

    if (!s.modes.empty()) {
        line("### Timing per mode (speed-up vs " + cell(s.reference_mode) + ")");
        line("");
        line(run_line(s));
        line("");
        line(
            "| mode | GPU median | GPU min | GPU max | speed-up | wall median | wall speed-up | "
            "dispatches | barriers | cmd buffers | outputs |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        for (const ModeRow& m : s.modes) {
            const ModeResult& r = m.result;
            const std::string outputs =
                !r.error.empty() ? "error: " + r.error
                                 : (r.outputs_match ? "match" : "DIFFER") +
                                       (r.comparison.empty() ? "" : " (" + r.comparison + ")");
            line("| " + cell(r.mode) + " | " + format_ns(r.gpu_ns.median) + " | " +
                 format_ns(r.gpu_ns.min) + " | " + format_ns(r.gpu_ns.max) + " | " +
                 format_speedup(m.gpu_speedup) + " | " + format_ns(r.wall_ns.median) + " | " +
                 format_speedup(m.wall_speedup) + " | " + std::to_string(r.dispatches) + " | " +
                 std::to_string(r.barriers) + " | " + std::to_string(r.command_buffers) + " | " +
                 cell(outputs) + " |");
        }
        line("");
    }
    auto shares = [&](const std::string& title, const std::vector<TimeShare>& rows) {
        if (rows.empty()) return;
        double total = 0;
        for (const auto& r : rows) total += r.gpu_ns;
        line("### " + title + " (per-dispatch profile, serialised)");
        line("");
        line("| " + std::string(title.find("layer") != std::string::npos ? "layer" : "op") +
             " | dispatches | GPU time | share |");
        line("|---|---:|---:|---:|");
        for (const auto& r : rows)
            line("| " + cell(r.key) + " | " + std::to_string(r.dispatches) + " | " +
                 format_ns(r.gpu_ns) + " | " + format_percent(r.gpu_ns, total) + " |");
        line("");
    };
    shares("Time per op kind", s.time_per_op);
    shares("Time per layer", s.time_per_layer);
    return md;
}

}  // namespace graphlens
