// Specification of the reports: what the summary computes from a capture and what each
// format must (and must not) contain.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "capture_fixtures.h"
#include "graphlens/capture/report.h"

namespace graphlens {
namespace {

class ReportOfSmallCapture : public testing::Test {
  protected:
    CaptureDocument doc = test::small_document();
    ReportSummary summary = summarize_capture(doc);
};

TEST_F(ReportOfSmallCapture, StagesComeFromTheStoredSnapshots) {
    EXPECT_FALSE(summary.pipeline_run_by_report);
    ASSERT_EQ(summary.stages.size(), 2u);
    EXPECT_EQ(summary.stages[0].stage, "captured");
    EXPECT_EQ(summary.stages[1].stage, "fused");
    EXPECT_EQ(summary.stages[1].fusions_applied, 1u);
    EXPECT_EQ(summary.stages[1].near_misses, 1u);
    EXPECT_EQ(summary.final_stage, "fused");
}

TEST_F(ReportOfSmallCapture, TimingsNameTheDeviceTheRunWasOn) {
    doc.device.name = "the capture's device";
    const ReportSummary s = summarize_capture(doc);
    EXPECT_EQ(s.run_device, doc.run->device);
    for (ReportFormat f : {ReportFormat::html, ReportFormat::markdown}) {
        const std::string text = render_report(s, f);
        EXPECT_NE(text.find("Run on " + doc.run->device), std::string::npos)
            << report_format_name(f);
        EXPECT_NE(text.find("the capture's device"), std::string::npos) << report_format_name(f);
    }
}

TEST_F(ReportOfSmallCapture, FusionsNameTheirDispatchesByLabel) {
    ASSERT_EQ(summary.fusions_applied.size(), 1u);
    EXPECT_EQ(summary.fusions_applied[0].labels,
              (std::vector<std::string>{"blk.0.attn_norm", "blk.0.attn_norm_mul"}));
    ASSERT_EQ(summary.near_misses.size(), 1u);
    EXPECT_EQ(summary.near_misses[0].reason, "no second add reads blk.0.residual");
}

TEST_F(ReportOfSmallCapture, ListsAreCappedButTotalsAreNot) {
    ReportOptions options;
    options.max_listed = 0;
    const ReportSummary capped = summarize_capture(doc, options);
    EXPECT_TRUE(capped.near_misses.empty());
    EXPECT_EQ(capped.near_miss_total, 1u);
    EXPECT_NE(report_markdown(capped).find("Fusions: 1 applied, 1 near misses"), std::string::npos);
    EXPECT_NE(report_markdown(capped).find("(1 more near misses not listed)"), std::string::npos);
}

TEST_F(ReportOfSmallCapture, TheNecessaryBarrierIsExplainedByItsHazard) {
    // In the fused stage the residual add reads activations [1024, 1536) that the fused
    // norm+mul writes: a RAW forces the barrier between them; the range-less dispatch in the
    // group after it (a fence) forces it too.
    ASSERT_EQ(summary.final_barriers_explained, 1u);
    ASSERT_EQ(summary.barrier_causes.size(), 2u);
    EXPECT_TRUE(summary.barrier_causes[1].fence);
    const BarrierCause& c = summary.barrier_causes[0];
    EXPECT_FALSE(c.fence);
    EXPECT_EQ(c.kind, HazardKind::raw);
    EXPECT_EQ(c.allocation, "activations");
    EXPECT_EQ(c.earlier_op, "rms_norm_mul");
    EXPECT_EQ(c.later_op, "add");
    EXPECT_NE(c.example.find("blk.0.attn_norm+mul → blk.0.residual"), std::string::npos);
}

TEST_F(ReportOfSmallCapture, SpeedUpsAreRelativeToSerial) {
    EXPECT_EQ(summary.reference_mode, "serial");
    ASSERT_EQ(summary.modes.size(), 2u);
    EXPECT_DOUBLE_EQ(summary.modes[0].gpu_speedup, 1.0);
    EXPECT_DOUBLE_EQ(summary.modes[1].gpu_speedup,
                     doc.run->modes[0].gpu_ns.median / doc.run->modes[1].gpu_ns.median);
}

TEST_F(ReportOfSmallCapture, PerDispatchTimingsAddUpPerOpAndPerLayer) {
    double total = 0;
    for (const auto& d : doc.run->per_dispatch) total += d.end_ns - d.start_ns;
    double by_op = 0;
    for (const auto& t : summary.time_per_op) by_op += t.gpu_ns;
    EXPECT_DOUBLE_EQ(by_op, total);
    ASSERT_EQ(summary.time_per_layer.size(), 1u);
    EXPECT_EQ(summary.time_per_layer[0].key, "blk.0");
    EXPECT_EQ(summary.time_per_layer[0].dispatches, 3u);
    EXPECT_DOUBLE_EQ(summary.time_per_layer[0].gpu_ns, total);
}

TEST_F(ReportOfSmallCapture, DispatchRowsFollowEachCapturedDispatchToTheFinalStage) {
    ASSERT_EQ(summary.dispatches.size(), doc.graph.dispatch_count());
    EXPECT_EQ(summary.dispatches[0].fused_into, std::optional<NodeId>(100));
    EXPECT_EQ(summary.dispatches[1].fused_into, std::optional<NodeId>(100));
    EXPECT_EQ(summary.dispatches[2].label, "blk.0.residual");
    EXPECT_FALSE(summary.dispatches[2].fused_into.has_value());
    EXPECT_EQ(summary.dispatches[2].captured_group, 1u);
    EXPECT_EQ(summary.dispatches[2].final_position, std::optional<size_t>(2));
    EXPECT_EQ(summary.dispatches[2].read_bytes, 512u + 1024u);
    EXPECT_EQ(summary.dispatches[2].gpu_ns, std::optional<double>(280.0));
    EXPECT_FALSE(summary.dispatches[3].ranges_known);
}

TEST(Report, WithoutSnapshotsTheReportRunsThePassPipeline) {
    CaptureDocument doc;
    doc.graph = test::small_graph();
    doc.graph.nodes.pop_back();  // the range-less fence; keep the graph fully reorderable
    const ReportSummary s = summarize_capture(doc);
    EXPECT_TRUE(s.pipeline_run_by_report);
    ASSERT_GE(s.stages.size(), 2u);
    EXPECT_EQ(s.stages.front().stage, "captured");
    EXPECT_EQ(s.stages.front().stats.dispatches, doc.graph.dispatch_count());
}

TEST(Report, RedundantBarriersAreCountedAndLocated) {
    CaptureDocument doc;
    doc.graph = test::small_graph();
    doc.graph.nodes.pop_back();
    // A barrier between two dispatches that share no bytes protects nothing.
    doc.graph.nodes.insert(doc.graph.nodes.begin() + 1, Node::barrier());
    doc.graph.nodes[2] = doc.graph.nodes[0];
    doc.graph.nodes[2].id = 50;
    doc.graph.nodes[2].origin = {50};
    doc.graph.nodes[2].label = "independent";
    doc.graph.nodes[2].bindings[1].view.offset = 4096;
    doc.graph.derive_ranges(doc.graph.nodes[2]);
    const ReportSummary s = summarize_capture(doc);
    ASSERT_GE(s.redundant_total, 1u);
    EXPECT_EQ(s.redundant_barriers[0].stage, "captured");
    EXPECT_EQ(s.redundant_barriers[0].node, 1u);
    EXPECT_EQ(s.redundant_barriers[0].before, "blk.0.attn_norm");
    EXPECT_EQ(s.redundant_barriers[0].after, "independent");
}

TEST(Report, LayerOfLabelIsTheBlkPrefix) {
    EXPECT_EQ(layer_of_label("blk.12.attn_q"), "blk.12");
    EXPECT_EQ(layer_of_label("blk.3"), "blk.3");
    EXPECT_EQ(layer_of_label("output_norm"), "");
    EXPECT_EQ(layer_of_label("blk.x"), "");
}

TEST_F(ReportOfSmallCapture, HtmlIsOneSelfContainedFileWithInlineCharts) {
    const std::string html = report_html(summary);
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_EQ(html.find("http://"), std::string::npos);
    EXPECT_EQ(html.find("https://"), std::string::npos);
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_EQ(html.find("<link"), std::string::npos);
    size_t svgs = 0;
    for (size_t p = 0; (p = html.find("<svg", p)) != std::string::npos; ++p) ++svgs;
    EXPECT_EQ(svgs, 2u /* strips */ + 1u /* histogram */ + 1u /* mode bars */);
    EXPECT_NE(html.find("blk.0.attn_norm+mul"), std::string::npos);
}

TEST(Report, HtmlEscapesLabels) {
    CaptureDocument doc = test::small_document();
    ComputeGraph fused = doc.snapshots[1].graph;
    fused.nodes[0].label = "<script>alert(1)</script>";
    doc.snapshots[1].graph = std::move(fused);
    const std::string html = report_html(summarize_capture(doc));
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
}

TEST_F(ReportOfSmallCapture, MarkdownTablesHaveAHeaderRuleAndEscapedPipes) {
    doc.graph.metadata["note"] = "a|b";
    const std::string md = report_markdown(summarize_capture(doc));
    EXPECT_NE(md.find("| stage | dispatches | barriers |"), std::string::npos);
    EXPECT_NE(md.find("a\\|b"), std::string::npos);
    EXPECT_EQ(md.find('<'), std::string::npos);  // plain Markdown, no HTML
    // Every table row has as many cells as its header.
    std::istringstream lines(md);
    size_t columns = 0;
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line[0] != '|') {
            columns = 0;
            continue;
        }
        size_t cells = 0;
        for (size_t i = 0; i < line.size(); ++i)
            if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++cells;
        if (columns == 0) columns = cells;
        EXPECT_EQ(cells, columns) << line;
    }
}

TEST_F(ReportOfSmallCapture, CsvHasOneRowPerCapturedDispatchAndQuotesCommas) {
    doc.graph.nodes[0].label = "norm, \"first\"";
    const std::string csv = report_csv(summarize_capture(doc));
    size_t rows = 0;
    for (char c : csv) rows += c == '\n';
    EXPECT_EQ(rows, 1 + doc.graph.dispatch_count());
    EXPECT_NE(csv.find("\"norm, \"\"first\"\"\""), std::string::npos);
    EXPECT_EQ(csv.rfind("position,id,label,op,", 0), 0u);
}

TEST_F(ReportOfSmallCapture, JsonIsTheSummaryAsData) {
    const auto j = nlohmann::json::parse(report_json(summary));
    EXPECT_EQ(j["stages"].size(), 2u);
    EXPECT_EQ(j["barrier_lower_bound"], summary.barrier_lower_bound);
    EXPECT_EQ(j["modes"][1]["mode"], "elided");
    EXPECT_DOUBLE_EQ(j["modes"][1]["gpu_speedup"].get<double>(), summary.modes[1].gpu_speedup);
    EXPECT_EQ(j["barrier_causes"][0]["hazard"], "RAW");
    EXPECT_EQ(j["dispatches"], doc.graph.dispatch_count());
}

TEST(Report, FormatNames) {
    EXPECT_EQ(report_format_from_name("md"), ReportFormat::markdown);
    EXPECT_EQ(report_format_from_name("html"), ReportFormat::html);
    EXPECT_EQ(report_format_from_name("pdf"), std::nullopt);
}

}  // namespace
}  // namespace graphlens
