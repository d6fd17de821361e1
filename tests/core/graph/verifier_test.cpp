// Specification of the verifier: it accepts valid schedules and rejects broken ones with a
// message that names the nodes, the allocation and the bytes.
#include "graphlens/graph/verifier.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "graph/src/stage_order.h"
#include "graph/src/verifier_detail.h"
#include "graph_test_support.h"
#include "graphlens/graph/barrier_planner.h"
#include "graphlens/graph/schedule_analysis.h"
#include "graphlens/synthetic/synthetic_graphs.h"

namespace graphlens {
namespace {
using testing::R;
using testing::TinyGraph;

class VerifierTest : public ::testing::Test {
  protected:
    VerifierTest() {
        t.dispatch("blk.0.attn_q", {R(1, 0, 64)}, {R(0, 0, 64)});
        t.dispatch("blk.0.rope_q", {R(0, 0, 64)}, {R(0, 64, 128)});
        t.dispatch("blk.0.other", {}, {R(1, 512, 576)});
        planned = plan_barriers(t.graph);
    }
    bool has(const VerificationReport& r, ViolationKind k) {
        return std::any_of(r.violations.begin(), r.violations.end(),
                           [&](const Violation& v) { return v.kind == k; });
    }
    TinyGraph t;
    ComputeGraph planned;
};

TEST_F(VerifierTest, AcceptsThePlannedSchedule) {
    const auto r = verify_transformation(t.graph, planned);
    EXPECT_TRUE(r.ok()) << r.summary();
    EXPECT_EQ(r.hazards_checked, 1u);
}

TEST_F(VerifierTest, DroppedBarrierIsReportedWithNodesAllocationAndBytes) {
    const auto r = verify_transformation(t.graph, t.graph.without_barriers());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.violations[0].kind, ViolationKind::missing_barrier);
    const std::string& m = r.violations[0].message;
    EXPECT_NE(m.find("RAW"), std::string::npos) << m;
    EXPECT_NE(m.find("'blk.0.attn_q'"), std::string::npos) << m;
    EXPECT_NE(m.find("'blk.0.rope_q'"), std::string::npos) << m;
    EXPECT_NE(m.find("'buf0' bytes [0, 64)"), std::string::npos) << m;
}

TEST_F(VerifierTest, SwappedDependentPairIsAnOrderViolation) {
    ComputeGraph swapped = planned;
    std::swap(swapped.nodes[0], swapped.nodes[2]);  // rope before attn_q, barrier between
    const auto r = verify_transformation(t.graph, swapped);
    EXPECT_TRUE(has(r, ViolationKind::order)) << r.summary();
}

TEST_F(VerifierTest, DuplicatedLostAndUnknownNodesAreReported) {
    ComputeGraph dup = planned;
    dup.nodes.push_back(Node::barrier());
    dup.nodes.push_back(planned.nodes.back());
    EXPECT_TRUE(has(verify_transformation(t.graph, dup), ViolationKind::duplicated));

    ComputeGraph lost = planned;
    lost.nodes.pop_back();
    const auto r = verify_transformation(t.graph, lost);
    ASSERT_TRUE(has(r, ViolationKind::lost));
    EXPECT_NE(r.summary().find("'blk.0.other'"), std::string::npos) << r.summary();

    ComputeGraph unknown = planned;
    unknown.nodes.back().origin = {99};
    EXPECT_TRUE(has(verify_transformation(t.graph, unknown), ViolationKind::unknown));
}

TEST_F(VerifierTest, CopiedDispatchesAreMappedByTheOriginTheyCarry) {
    // Pass outputs copy the original nodes, so their origin lists are the original's own
    // (shared, not re-read). A copy whose origin was then changed is checked by its new list.
    ComputeGraph copied = planned;
    EXPECT_TRUE(verify_transformation(t.graph, copied).ok());
    Node& other = copied.nodes.back();  // blk.0.other, origin {2}
    ASSERT_TRUE(other.origin.shares_with(t.graph.nodes.back().origin));
    other.origin.push_back(t.graph.nodes[0].id);  // now also claims attn_q
    const auto r = verify_transformation(t.graph, copied);
    EXPECT_TRUE(has(r, ViolationKind::duplicated)) << r.summary();
}

TEST_F(VerifierTest, ADispatchMovedAcrossAFenceIsReported) {
    TinyGraph f;
    f.dispatch("a", {}, {R(0, 0, 16)});
    f.fence("foreign");
    f.dispatch("b", {}, {R(1, 0, 16)});
    ComputeGraph moved = plan_barriers(f.graph);  // a | fence | b
    std::swap(moved.nodes[0], moved.nodes[4]);    // b | fence | a
    const auto r = verify_transformation(f.graph, moved);
    EXPECT_TRUE(has(r, ViolationKind::fence)) << r.summary();
}

/// Random graphs, planned, then broken in each of the four ways: every break is caught.
TEST(VerifierProperty, RejectsEveryDeliberatelyBrokenSchedule) {
    size_t dropped = 0, swapped = 0;
    for (uint64_t seed = 1; seed <= 1500; ++seed) {
        const ComputeGraph g = random_graph({.seed = seed,
                                             .dispatches = 2 + seed % 25,
                                             .allocations = 2,
                                             .allocation_size = 128,
                                             .fence_probability = seed % 5 == 0 ? 0.1 : 0});
        const HazardIndex hazards(g);
        const ComputeGraph planned = plan_barriers(g);
        ASSERT_TRUE(verify_transformation(g, hazards, planned).ok());

        // Drop a barrier that some hazard or fence needs.
        for (const auto& e : explain_barriers(planned)) {
            if (e.redundant) continue;
            ComputeGraph broken = planned;
            broken.nodes.erase(broken.nodes.begin() + static_cast<ptrdiff_t>(e.barrier));
            ASSERT_FALSE(verify_transformation(g, hazards, broken).ok()) << "seed " << seed;
            ++dropped;
            break;
        }
        // Swap the two ends of a hazard.
        if (!hazards.hazards().empty()) {
            const Hazard& h = hazards.hazards()[seed % hazards.size()];
            ComputeGraph broken = g;
            std::swap(broken.nodes[h.earlier], broken.nodes[h.later]);
            ASSERT_FALSE(verify_transformation(g, hazards, plan_barriers(broken)).ok())
                << "seed " << seed;
            ++swapped;
        }
        // Duplicate a dispatch, lose a dispatch.
        ComputeGraph dup = planned;
        dup.nodes.push_back(Node::barrier());
        dup.nodes.push_back(*std::find_if(planned.nodes.begin(), planned.nodes.end(),
                                          [](const Node& n) { return n.is_dispatch(); }));
        ASSERT_FALSE(verify_transformation(g, hazards, dup).ok()) << "seed " << seed;
        ComputeGraph lost = planned;
        lost.nodes.erase(std::find_if(lost.nodes.begin(), lost.nodes.end(),
                                      [](const Node& n) { return n.is_dispatch(); }));
        ASSERT_FALSE(verify_transformation(g, hazards, lost).ok()) << "seed " << seed;
    }
    EXPECT_GT(dropped, 500u);
    EXPECT_GT(swapped, 500u);
}

/// The pass pipeline checks its reordered and planned stages as orders over the nodes of one
/// graph, mapped through that graph's tables (detail::BaseMap) instead of the nodes' ids and
/// origins. On valid and on broken orders, that check must report exactly what checking the
/// graph the order makes reports.
TEST(VerifierProperty, AnOrderOverAGraphIsJudgedLikeTheGraphItMakes) {
    constexpr uint32_t kBarrier = StageGraph::kBarrier;
    size_t broken_orders = 0;
    for (uint64_t seed = 1; seed <= 1500; ++seed) {
        const ComputeGraph g = random_graph({.seed = seed,
                                             .dispatches = 2 + seed % 25,
                                             .allocations = 2,
                                             .allocation_size = 128,
                                             .fence_probability = seed % 5 == 0 ? 0.1 : 0,
                                             .barrier_probability = seed % 3 == 0 ? 0.2 : 0});
        const HazardIndex hazards(g);
        const detail::OriginalTables tables(g);
        ASSERT_TRUE(tables.identity) << "seed " << seed;  // captured ids are unique and plain
        // The map read from the nodes (what the pipeline computes for a fused graph) equals
        // the one the tables give a copy of the graph.
        const std::optional<detail::BaseMap> read = detail::map_base(g, g, tables);
        ASSERT_TRUE(read) << "seed " << seed;
        EXPECT_EQ(read->holder, tables.identity->holder) << "seed " << seed;
        EXPECT_EQ(read->kind, tables.identity->kind) << "seed " << seed;

        const VerifyOptions all{.max_violations = 1000};
        auto messages = [](const VerificationReport& r) {
            std::vector<std::string> m;
            for (const Violation& v : r.violations)
                m.push_back(std::to_string(static_cast<int>(v.kind)) + " " + v.message);
            std::sort(m.begin(), m.end());
            return m;
        };
        auto judge_alike = [&](const std::vector<uint32_t>& order, bool expect_ok) {
            const detail::Schedule schedule{g, &order};
            const VerificationReport by_map = detail::verify_transformation(
                g, hazards, schedule, nullptr, all, &tables, &*tables.identity);
            const VerificationReport by_graph =
                verify_transformation(g, hazards, detail::graph_of_order(g, order), all);
            EXPECT_EQ(by_map.ok(), expect_ok) << "seed " << seed << "\n" << by_map.summary();
            EXPECT_EQ(messages(by_map), messages(by_graph)) << "seed " << seed;
            EXPECT_EQ(by_map.hazards_checked, by_graph.hazards_checked) << "seed " << seed;
        };
        const std::vector<uint32_t> planned = detail::planned_order(g, {});
        judge_alike(planned, true);
        // The graph's own order, barriers and all, checked without an order.
        {
            const VerificationReport by_map = detail::verify_transformation(
                g, hazards, detail::Schedule{g}, nullptr, all, &tables, &*tables.identity);
            const VerificationReport by_graph = verify_transformation(g, hazards, g, all);
            EXPECT_EQ(messages(by_map), messages(by_graph)) << "seed " << seed;
        }
        // A needed barrier dropped.
        const ComputeGraph planned_graph = detail::graph_of_order(g, planned);
        for (const auto& e : explain_barriers(planned_graph)) {
            if (e.redundant) continue;
            std::vector<uint32_t> broken = planned;
            broken.erase(broken.begin() + static_cast<ptrdiff_t>(e.barrier));
            judge_alike(broken, false);
            ++broken_orders;
            break;
        }
        // A dispatch taken twice; a dispatch left out.
        const auto first_dispatch =
            std::find_if(planned.begin(), planned.end(), [](uint32_t i) { return i != kBarrier; });
        std::vector<uint32_t> twice = planned;
        twice.push_back(kBarrier);
        twice.push_back(*first_dispatch);
        judge_alike(twice, false);
        std::vector<uint32_t> lost = planned;
        lost.erase(lost.begin() + (first_dispatch - planned.begin()));
        judge_alike(lost, false);
        // The ends of a hazard swapped (barriers planned for the swapped order).
        if (!hazards.hazards().empty()) {
            const Hazard& h = hazards.hazards()[seed % hazards.size()];
            std::vector<uint32_t> swapped(g.nodes.size());
            for (size_t i = 0; i < swapped.size(); ++i) swapped[i] = static_cast<uint32_t>(i);
            std::swap(swapped[h.earlier], swapped[h.later]);
            judge_alike(detail::planned_order(g, swapped), false);
            ++broken_orders;
        }
    }
    EXPECT_GT(broken_orders, 1000u);
}

}  // namespace
}  // namespace graphlens
