// Specification of the capture format's round trip: what is saved loads back equal, and
// saving the loaded document again gives the same bytes.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "capture_fixtures.h"

namespace graphlens {
namespace {

void expect_same_graph(const ComputeGraph& a, const ComputeGraph& b) {
    EXPECT_EQ(a.metadata, b.metadata);
    EXPECT_EQ(a.allocations, b.allocations);
    EXPECT_EQ(a.kernels, b.kernels);
    ASSERT_EQ(a.nodes.size(), b.nodes.size());
    for (size_t i = 0; i < a.nodes.size(); ++i) {
        SCOPED_TRACE("node " + std::to_string(i));
        const Node& x = a.nodes[i];
        const Node& y = b.nodes[i];
        EXPECT_EQ(x.kind, y.kind);
        if (x.is_barrier()) continue;
        EXPECT_EQ(x.id, y.id);
        EXPECT_EQ(x.kernel, y.kernel);
        EXPECT_EQ(x.op, y.op);
        EXPECT_EQ(x.label, y.label);
        EXPECT_EQ(x.bindings, y.bindings);
        EXPECT_EQ(x.push_constants, y.push_constants);
        EXPECT_EQ(x.workgroups, y.workgroups);
        EXPECT_EQ(x.reads, y.reads);
        EXPECT_EQ(x.writes, y.writes);
        EXPECT_EQ(x.ranges_known, y.ranges_known);
        EXPECT_EQ(x.fence, y.fence);
        EXPECT_EQ(x.origin, y.origin);
    }
}

void expect_same_timing(const TimingSummary& a, const TimingSummary& b) {
    EXPECT_EQ(a.median, b.median);
    EXPECT_EQ(a.min, b.min);
    EXPECT_EQ(a.max, b.max);
    EXPECT_EQ(a.samples, b.samples);
}

TEST(CaptureRoundTrip, LoadGivesBackEverySavedField) {
    const CaptureDocument doc = test::small_document();
    const CaptureDocument loaded = load_capture_from_string(save_capture_to_string(doc));
    EXPECT_EQ(loaded.format_version, kCaptureFormatVersion);
    EXPECT_EQ(loaded.generator, doc.generator);
    EXPECT_EQ(loaded.device, doc.device);
    expect_same_graph(loaded.graph, doc.graph);
    ASSERT_EQ(loaded.snapshots.size(), doc.snapshots.size());
    for (size_t i = 0; i < doc.snapshots.size(); ++i) {
        const Snapshot& a = doc.snapshots[i];
        const Snapshot& b = loaded.snapshots[i];
        EXPECT_EQ(a.stage, b.stage);
        expect_same_graph(a.graph, b.graph);
        EXPECT_EQ(a.stats.group_size_histogram, b.stats.group_size_histogram);
        EXPECT_EQ(a.stats.mean_group_size, b.stats.mean_group_size);
        EXPECT_EQ(a.diff.fused, b.diff.fused);
        EXPECT_EQ(a.diff.removed, b.diff.removed);
        ASSERT_EQ(a.fusions.size(), b.fusions.size());
        for (size_t f = 0; f < a.fusions.size(); ++f) {
            EXPECT_EQ(a.fusions[f].pattern, b.fusions[f].pattern);
            EXPECT_EQ(a.fusions[f].nodes, b.fusions[f].nodes);
            EXPECT_EQ(a.fusions[f].applied, b.fusions[f].applied);
            EXPECT_EQ(a.fusions[f].fused_id, b.fusions[f].fused_id);
            EXPECT_EQ(a.fusions[f].reason, b.fusions[f].reason);
        }
        EXPECT_EQ(a.diagnostics, b.diagnostics);
        EXPECT_EQ(a.pass_ms, b.pass_ms);
    }
    ASSERT_TRUE(loaded.run.has_value());
    const RunResult& r = *loaded.run;
    EXPECT_EQ(r.device, doc.run->device);
    EXPECT_EQ(r.date, doc.run->date);
    ASSERT_EQ(r.modes.size(), doc.run->modes.size());
    for (size_t i = 0; i < r.modes.size(); ++i) {
        EXPECT_EQ(r.modes[i].mode, doc.run->modes[i].mode);
        EXPECT_EQ(r.modes[i].barriers, doc.run->modes[i].barriers);
        EXPECT_EQ(r.modes[i].comparison, doc.run->modes[i].comparison);
        EXPECT_EQ(r.modes[i].mismatch, doc.run->modes[i].mismatch);
        expect_same_timing(r.modes[i].gpu_ns, doc.run->modes[i].gpu_ns);
        expect_same_timing(r.modes[i].wall_ns, doc.run->modes[i].wall_ns);
    }
    ASSERT_EQ(r.per_dispatch.size(), doc.run->per_dispatch.size());
    EXPECT_EQ(r.per_dispatch[1].end_ns, doc.run->per_dispatch[1].end_ns);
    EXPECT_EQ(r.per_dispatch[1].op, doc.run->per_dispatch[1].op);
    EXPECT_EQ(r.per_group_mode, doc.run->per_group_mode);
    ASSERT_EQ(r.per_group.size(), doc.run->per_group.size());
    EXPECT_EQ(r.per_group[1].first_dispatch, doc.run->per_group[1].first_dispatch);
    EXPECT_EQ(r.per_group[1].first_label, doc.run->per_group[1].first_label);
    EXPECT_EQ(r.per_group[0].end_ns, doc.run->per_group[0].end_ns);
}

TEST(CaptureRoundTrip, SaveLoadSaveIsByteIdentical) {
    const std::string first = save_capture_to_string(test::small_document());
    const std::string second = save_capture_to_string(load_capture_from_string(first));
    EXPECT_EQ(first, second);
}

TEST(CaptureRoundTrip, FileRoundTripIsByteIdentical) {
    const auto dir = std::filesystem::temp_directory_path() / "graphlens_capture_roundtrip";
    std::filesystem::create_directories(dir);
    const auto path = dir / "small.json";
    save_capture(test::small_document(), path);
    const CaptureDocument loaded = load_capture(path);
    const auto path2 = dir / "small2.json";
    save_capture(loaded, path2);
    auto slurp = [](const std::filesystem::path& p) {
        std::ifstream f(p, std::ios::binary);
        std::stringstream s;
        s << f.rdbuf();
        return s.str();
    };
    EXPECT_EQ(slurp(path), slurp(path2));
    std::filesystem::remove_all(dir);
}

TEST(CaptureRoundTrip, EqualDocumentsGiveEqualBytesAndOneNodePerLine) {
    const std::string text = save_capture_to_string(test::small_document());
    EXPECT_EQ(text, save_capture_to_string(test::small_document()));
    // Each node (and each per-dispatch timing) is one complete JSON object on its own line:
    // the top-level graph, both snapshots and the run each hold blk.0.residual once.
    size_t node_lines = 0;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.find("\"label\":\"blk.0.residual\"") == std::string::npos) continue;
        ++node_lines;
        const auto first = line.find_first_not_of(' ');
        EXPECT_EQ(line[first], '{') << line;
        EXPECT_TRUE(line.ends_with("}") || line.ends_with("},")) << line;
    }
    EXPECT_EQ(node_lines, 4u);
}

TEST(CaptureRoundTrip, SnapshotsStoreOnlyTheKernelListsThatDiffer) {
    const std::string text = save_capture_to_string(test::small_document());
    // The fused snapshot adds a kernel; the captured one shares the top-level list.
    size_t kernel_lists = 0;
    for (size_t pos = 0; (pos = text.find("\"kernels\": [", pos)) != std::string::npos; ++pos)
        ++kernel_lists;
    EXPECT_EQ(kernel_lists, 2u);
    const CaptureDocument loaded = load_capture_from_string(text);
    EXPECT_EQ(loaded.snapshots[0].graph->kernels, loaded.graph.kernels);
    EXPECT_EQ(loaded.snapshots[1].graph->kernels.size(), loaded.graph.kernels.size() + 1);
}

TEST(CaptureRoundTrip, DerivableRangesAreOmittedAndDerivedAgain) {
    CaptureDocument doc;
    doc.graph = test::small_graph();
    const std::string text = save_capture_to_string(doc);
    const CaptureDocument loaded = load_capture_from_string(text);
    // node 0 states no reads/writes in the file but gets them from bindings + kernel access.
    EXPECT_EQ(loaded.graph.nodes[0].reads, doc.graph.nodes[0].reads);
    EXPECT_EQ(loaded.graph.nodes[0].writes, doc.graph.nodes[0].writes);
    EXPECT_EQ(text.find("\"reads\""), text.find("\"reads\":[{\"allocation\":2,\"begin\":1024"));
}

// A snapshot may leave its statistics out; the loader takes the counts from its graph, so the
// file the writer makes of it loads again (found by fuzz_capture_loader).
TEST(CaptureRoundTrip, ASnapshotWithoutStatisticsGetsThemFromItsGraph) {
    nlohmann::json j = nlohmann::json::parse(save_capture_to_string(test::small_document()));
    ASSERT_TRUE(j["snapshots"][0].contains("stats"));
    j["snapshots"][0].erase("stats");
    const CaptureDocument loaded = load_capture_from_string(j.dump());
    const Snapshot& s = loaded.snapshots[0];
    EXPECT_EQ(s.stats.dispatches, s.graph->dispatch_count());
    EXPECT_EQ(s.stats.barriers, s.graph->barrier_count());
    const std::string saved = save_capture_to_string(loaded);
    EXPECT_EQ(save_capture_to_string(load_capture_from_string(saved)), saved);
}

TEST(CaptureRoundTrip, AModesOutputMismatchIsKept) {
    CaptureDocument doc = test::small_document();
    ModeResult& m = doc.run->modes.back();
    m.outputs_match = false;
    m.mismatch = OutputMismatch{"act", 1028, "0.5", "-1.25", 2, "blk.0.residual"};
    const CaptureDocument loaded = load_capture_from_string(save_capture_to_string(doc));
    ASSERT_TRUE(loaded.run.has_value());
    EXPECT_EQ(loaded.run->modes.back().mismatch, m.mismatch);
    EXPECT_FALSE(loaded.run->modes.front().mismatch.has_value());
}

TEST(CaptureRoundTrip, NonFiniteTimingsAreRefusedOnSave) {
    CaptureDocument doc = test::small_document();
    doc.run->modes[1].gpu_ns.samples[2] = std::numeric_limits<double>::quiet_NaN();
    try {
        save_capture_to_string(doc);
        FAIL() << "saving a NaN must fail";
    } catch (const CaptureError& e) {
        EXPECT_EQ(e.json_path(), "/run/modes/1/gpu_ns/samples/2");
    }
}

}  // namespace
}  // namespace graphlens
