// Specification of schedule analysis: concurrency groups, stats, and why each barrier exists.
#include "graphlens/graph/schedule_analysis.h"

#include <gtest/gtest.h>

#include "graph_test_support.h"
#include "graphlens/synthetic/synthetic_graphs.h"
#include "graphlens/graph/verifier.h"

namespace graphlens {
namespace {
using testing::R;
using testing::TinyGraph;

TEST(ScheduleAnalysisTest, GroupsAndStatsOfASchedule) {
    TinyGraph t;
    t.dispatch("a", {}, {R(0, 0, 16)});
    t.dispatch("b", {}, {R(1, 0, 16)});
    t.barrier();
    t.barrier();  // an empty run is not a group
    t.dispatch("c", {R(0, 0, 16), R(1, 0, 16)}, {R(0, 16, 32)});
    const auto groups = concurrency_groups(t.graph);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].dispatches, (std::vector<size_t>{0, 1}));
    EXPECT_EQ(groups[1].dispatches, (std::vector<size_t>{4}));
    const ScheduleStats s = schedule_stats(t.graph);
    EXPECT_EQ(s.dispatches, 3u);
    EXPECT_EQ(s.barriers, 2u);
    EXPECT_EQ(s.groups, 2u);
    EXPECT_DOUBLE_EQ(s.mean_group_size, 1.5);
    EXPECT_EQ(s.group_size_histogram, (std::vector<size_t>{0, 1, 1}));
    EXPECT_EQ(s.dag_depth, 2u);
    EXPECT_EQ(s.barrier_lower_bound, 1u);
    EXPECT_EQ(s.hazards, 2u);
}

TEST(ScheduleAnalysisTest, ExplainsForcedBarriersAndFlagsRedundantOnes) {
    TinyGraph t;
    t.dispatch("w", {}, {R(0, 0, 16)});
    t.barrier();  // forced: r reads what w wrote
    t.dispatch("r", {R(0, 0, 16)}, {R(1, 0, 16)});
    t.barrier();  // redundant: nothing after it conflicts with r
    t.dispatch("x", {}, {R(1, 64, 80)});
    const auto e = explain_barriers(t.graph);
    ASSERT_EQ(e.size(), 2u);
    EXPECT_FALSE(e[0].redundant);
    ASSERT_EQ(e[0].hazards.size(), 1u);
    EXPECT_EQ(e[0].hazards[0].kind, HazardKind::raw);
    EXPECT_TRUE(e[1].redundant);
}

TEST(ScheduleAnalysisTest, EachForcingHazardIsNamedByItsPlaceInTheIndex) {
    // Two hazards of one pair on one allocation, a RAW at a higher offset and a WAR at a
    // lower one: sorted by kind before offset, so a search by (allocation, offset) alone
    // misses one of them.
    TinyGraph t;
    t.dispatch("a", {R(0, 0, 16)}, {R(0, 32, 48)});
    t.barrier();
    t.dispatch("b", {R(0, 32, 48)}, {R(0, 0, 16)});
    const HazardIndex index(t.graph);
    const auto e = explain_barriers(t.graph, index);
    ASSERT_EQ(e.size(), 1u);
    ASSERT_EQ(e[0].hazards.size(), 2u);
    ASSERT_EQ(e[0].hazard_positions.size(), 2u);
    for (size_t k = 0; k < 2; ++k)
        EXPECT_EQ(index.hazards().at(e[0].hazard_positions[k]), e[0].hazards[k]);
}

TEST(ScheduleAnalysisTest, AHazardSpanningTwoBarriersForcesNeither) {
    TinyGraph t;
    t.dispatch("w", {}, {R(0, 0, 16)});
    t.barrier();
    t.dispatch("other", {}, {R(1, 0, 16)});
    t.barrier();
    t.dispatch("r", {R(0, 0, 16)}, {});
    const auto e = explain_barriers(t.graph);
    ASSERT_EQ(e.size(), 2u);
    // Either barrier alone keeps w and r apart.
    EXPECT_TRUE(e[0].redundant);
    EXPECT_TRUE(e[1].redundant);
}

TEST(ScheduleAnalysisTest, BarriersAroundAFenceAreForcedByIt) {
    TinyGraph t;
    t.dispatch("a", {}, {R(0, 0, 16)});
    t.barrier();
    const size_t f = t.fence("foreign");
    t.barrier();
    t.dispatch("b", {}, {R(1, 0, 16)});
    t.barrier();  // at the end: separates nothing
    const auto e = explain_barriers(t.graph);
    ASSERT_EQ(e.size(), 3u);
    EXPECT_EQ(e[0].fences, std::vector<size_t>{f});
    EXPECT_EQ(e[1].fences, std::vector<size_t>{f});
    EXPECT_FALSE(e[0].redundant);
    EXPECT_FALSE(e[1].redundant);
    EXPECT_TRUE(e[2].redundant);
}

}  // namespace
}  // namespace graphlens

namespace graphlens {
namespace {

TEST(ScheduleValidityProperty, AgreesWithTheVerifierOnRandomSchedules) {
    size_t valid_count = 0, invalid_count = 0;
    for (uint64_t seed = 1; seed <= 2000; ++seed) {
        const ComputeGraph g = random_graph({.seed = seed,
                                             .dispatches = 1 + seed % 20,
                                             .allocations = 2,
                                             .allocation_size = 128,
                                             .fence_probability = seed % 3 == 0 ? 0.1 : 0.0,
                                             .barrier_probability = 0.4});
        const HazardIndex h(g);
        const bool valid = schedule_is_valid(g, h);
        ASSERT_EQ(valid, verify_transformation(g, h, g).ok()) << "seed " << seed;
        ++(valid ? valid_count : invalid_count);
    }
    EXPECT_GT(valid_count, 100u);
    EXPECT_GT(invalid_count, 100u);
}

}  // namespace
}  // namespace graphlens
