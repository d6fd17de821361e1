// Specification of the DOT export (edges per hazard, coloured and labelled, selections) and
// of the run diff (matching by label, deltas per stage, mode, op and dispatch).
#include <gtest/gtest.h>

#include "capture_fixtures.h"
#include "graphlens/capture/dot_export.h"
#include "graphlens/capture/run_diff.h"

namespace graphlens {
namespace {

size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t p = 0; (p = text.find(what, p)) != std::string::npos; p += what.size()) ++n;
    return n;
}

TEST(DependencyDot, OneColouredLabelledEdgePerHazard) {
    ComputeGraph g = test::small_graph();
    g.nodes.pop_back();  // no fence: only byte hazards
    const std::string dot = dependency_dot(g);
    EXPECT_EQ(dot.rfind("digraph dependencies {", 0), 0u);
    // norm writes activations [0,1024) that mul reads; mul writes [1024,2048) that add reads
    // (the add reads only [1024,1536)).
    EXPECT_NE(dot.find("n0 -> n1 [color=\"#0072B2\", fontcolor=\"#0072B2\", "
                       "label=\"RAW activations\\n[0, 1024)\"]"),
              std::string::npos)
        << dot;
    EXPECT_NE(dot.find("n1 -> n3 [color=\"#0072B2\", fontcolor=\"#0072B2\", "
                       "label=\"RAW activations\\n[1024, 1536)\"]"),
              std::string::npos)
        << dot;
    EXPECT_EQ(occurrences(dot, " -> "), 2u);
    // The barrier splits two concurrency groups.
    EXPECT_EQ(occurrences(dot, "subgraph cluster_g"), 2u);
}

TEST(DependencyDot, FencesOrderWithDashedEdges) {
    const std::string dot = dependency_dot(test::small_graph());
    EXPECT_NE(dot.find("n3 -> n4 [color=\"#999999\", style=dashed, label=\"fence\"]"),
              std::string::npos)
        << dot;
    EXPECT_NE(dot.find("peripheries=2"), std::string::npos);  // the fence vertex stands out
}

TEST(DependencyDot, SelectionsKeepOnlyEdgesInside) {
    const ComputeGraph g = test::small_graph();
    DotOptions range;
    range.node_range = {{0, 1}};
    const std::string dot = dependency_dot(g, range);
    EXPECT_EQ(occurrences(dot, " -> "), 1u);
    EXPECT_EQ(dot.find("n3 ["), std::string::npos);

    DotOptions layer;
    layer.layer = 0;
    const std::string layer_dot = dependency_dot(g, layer);
    EXPECT_EQ(layer_dot.find("foreign.kernel"), std::string::npos);  // not in blk.0
    EXPECT_NE(layer_dot.find("blk.0.residual"), std::string::npos);

    DotOptions nothing;
    nothing.layer = 7;
    EXPECT_THROW(dependency_dot(g, nothing), std::invalid_argument);
    DotOptions too_many;
    too_many.max_dispatches = 2;
    EXPECT_THROW(dependency_dot(g, too_many), std::invalid_argument);
}

TEST(DependencyDot, QuotesLabels) {
    ComputeGraph g = test::small_graph();
    g.nodes[0].label = "say \"hi\"";
    EXPECT_NE(dependency_dot(g).find("say \\\"hi\\\""), std::string::npos);
}

class RunDiff : public testing::Test {
  protected:
    CaptureDocument before = test::small_document();
    CaptureDocument after = test::small_document();
    void SetUp() override {
        // "after": the elided mode got faster, the residual add slower, and one dispatch
        // was renamed.
        after.run->modes[1].gpu_ns = TimingSummary::from_samples({500, 500, 500});
        after.run->per_dispatch[2].end_ns += 100;
        after.graph.nodes[4].label = "foreign.kernel.v2";
    }
};

TEST_F(RunDiff, MatchesDispatchesByLabel) {
    const CaptureDiff d = diff_captures(before, after);
    EXPECT_EQ(d.matched_labels, 3u);
    EXPECT_EQ(d.only_in_a, std::vector<std::string>{"foreign.kernel"});
    EXPECT_EQ(d.only_in_b, std::vector<std::string>{"foreign.kernel.v2"});
}

TEST_F(RunDiff, ModesAreComparedByName) {
    const CaptureDiff d = diff_captures(before, after);
    ASSERT_EQ(d.modes.size(), 2u);
    EXPECT_EQ(d.modes[1].mode, "elided");
    EXPECT_DOUBLE_EQ(*d.modes[1].gpu_ns.ratio(), 500.0 / 1050.0);
    EXPECT_DOUBLE_EQ(*d.modes[0].gpu_ns.ratio(), 1.0);
}

TEST_F(RunDiff, StagesCompareBarriersAndGroups) {
    const CaptureDiff d = diff_captures(before, after);
    ASSERT_EQ(d.stages.size(), 3u);  // as recorded + captured + fused
    EXPECT_EQ(d.stages[2].stage, "fused");
    EXPECT_EQ(d.stages[2].barriers.a, d.stages[2].barriers.b);
    after.snapshots.pop_back();
    const CaptureDiff missing = diff_captures(before, after);
    EXPECT_TRUE(missing.stages[2].barriers.a.has_value());
    EXPECT_FALSE(missing.stages[2].barriers.b.has_value());
}

TEST_F(RunDiff, PerDispatchChangesAreRankedAndSummedPerOp) {
    const CaptureDiff d = diff_captures(before, after);
    ASSERT_FALSE(d.biggest_changes.empty());
    EXPECT_EQ(d.biggest_changes[0].key, "blk.0.residual");
    EXPECT_DOUBLE_EQ(*d.biggest_changes[0].gpu_ns.b - *d.biggest_changes[0].gpu_ns.a, 100.0);
    const auto add = std::find_if(d.per_op.begin(), d.per_op.end(),
                                  [](const auto& r) { return r.key == "add"; });
    ASSERT_NE(add, d.per_op.end());
    EXPECT_DOUBLE_EQ(*add->gpu_ns.b - *add->gpu_ns.a, 100.0);
    const std::string md = diff_markdown(d);
    EXPECT_NE(md.find("| elided |"), std::string::npos);
    EXPECT_NE(md.find("0.48×"), std::string::npos);
}

TEST(RunDiffWithoutRuns, ComparesSchedulesOnly) {
    CaptureDocument a, b;
    a.graph = test::small_graph();
    b.graph = test::small_graph();
    b.graph.nodes.erase(b.graph.nodes.begin() + 2);  // drop the barrier
    const CaptureDiff d = diff_captures(a, b);
    EXPECT_TRUE(d.modes.empty());
    EXPECT_TRUE(d.per_op.empty());
    EXPECT_EQ(*d.stages[0].barriers.a - *d.stages[0].barriers.b, 1.0);
    EXPECT_EQ(d.matched_labels, 4u);
}

}  // namespace
}  // namespace graphlens
