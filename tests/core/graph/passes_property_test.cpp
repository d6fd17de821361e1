// Properties of the reorders and the barrier planner over 10,000 random graphs: every output
// verifies, levels reaches the lower bound, greedy is never worse than the capture order, and
// the planner is optimal for a fixed order (brute force on small graphs) and places no
// redundant barrier.
#include <gtest/gtest.h>

#include <random>

#include "graph/src/stage_order.h"
#include "graph_test_support.h"
#include "graphlens/graph/barrier_planner.h"
#include "graphlens/graph/dependency_dag.h"
#include "graphlens/graph/reorder_greedy.h"
#include "graphlens/graph/reorder_levels.h"
#include "graphlens/graph/schedule_analysis.h"
#include "graphlens/graph/verifier.h"
#include "graphlens/synthetic/synthetic_graphs.h"

namespace graphlens {
namespace {

constexpr uint64_t kGraphs = 10000;

/// Varied shapes: sizes 1..40, 1..4 allocations, fences in a quarter of the graphs, capture
/// barriers in some.
RandomGraphOptions options_for(uint64_t seed) {
    RandomGraphOptions o;
    o.seed = seed;
    o.dispatches = 1 + seed % 40;
    o.allocations = 1 + seed % 4;
    o.allocation_size = 16 * (4 + seed % 13);
    o.fence_probability = seed % 4 == 1 ? 0.08 : 0.0;
    o.barrier_probability = seed % 3 == 0 ? 0.2 : 0.0;
    return o;
}

/// Fewest barriers any placement needs for this fixed order, by trying every subset of cut
/// positions (n <= 12).
size_t brute_force_min_barriers(const ComputeGraph& g) {
    std::vector<const Node*> d;
    for (const Node& n : g.nodes)
        if (n.is_dispatch()) d.push_back(&n);
    const size_t slots = d.empty() ? 0 : d.size() - 1;  // cut after dispatch k
    size_t best = slots;
    for (uint32_t mask = 0; mask < (1u << slots); ++mask) {
        const auto cuts = static_cast<size_t>(__builtin_popcount(mask));
        if (cuts >= best) continue;
        bool valid = true;
        for (size_t i = 0; i < d.size() && valid; ++i)
            for (size_t j = i + 1; j < d.size() && valid; ++j) {
                if (!testing::must_separate(*d[i], *d[j])) continue;
                const uint32_t between = ((1u << j) - 1) & ~((1u << i) - 1);  // cuts i..j-1
                valid = (mask & between) != 0;
            }
        if (valid) best = cuts;
    }
    return best;
}

// The graphs in shards of consecutive seeds, each its own test, so ctest runs them side by
// side: one shard is a minute under ASan, all of them in one test were four.
constexpr uint64_t kShards = 4;
constexpr uint64_t kGraphsPerShard = kGraphs / kShards;

class PassesPropertyShard : public ::testing::TestWithParam<uint64_t> {};

TEST_P(PassesPropertyShard, EveryReorderAndPlanVerifiesAndMeetsItsBound) {
    size_t greedy_better = 0;
    const uint64_t first = 1 + GetParam() * kGraphsPerShard;
    for (uint64_t seed = first; seed < first + kGraphsPerShard; ++seed) {
        const ComputeGraph g = random_graph(options_for(seed));
        const HazardIndex hazards(g);
        const DependencyDag dag(g, hazards);
        const ComputeGraph planned = plan_barriers(g);
        const ReorderResult greedy = reorder_greedy(g);
        const ReorderResult levels = reorder_levels(g);

        for (const ComputeGraph* out : {&planned, &greedy.graph, &levels.graph}) {
            const VerificationReport r = verify_transformation(g, hazards, *out);
            ASSERT_TRUE(r.ok()) << "seed " << seed << ": " << r.summary();
        }
        ASSERT_EQ(levels.graph.barrier_count(), dag.barrier_lower_bound()) << "seed " << seed;
        ASSERT_EQ(plan_barriers(levels.graph).barrier_count(), dag.barrier_lower_bound())
            << "seed " << seed;
        ASSERT_LE(greedy.graph.barrier_count(), planned.barrier_count()) << "seed " << seed;
        ASSERT_GE(greedy.graph.barrier_count(), dag.barrier_lower_bound()) << "seed " << seed;
        // The greedy's own cuts are the planner's for its order.
        ASSERT_EQ(plan_barriers(greedy.graph).nodes.size(), greedy.graph.nodes.size())
            << "seed " << seed;
        for (const auto& e : explain_barriers(planned))
            ASSERT_FALSE(e.redundant)
                << "seed " << seed << ": planned barrier at node " << e.barrier << " is redundant";
        if (greedy.graph.barrier_count() < planned.barrier_count()) ++greedy_better;
    }
    // The property would hold trivially if greedy never moved anything.
    EXPECT_GT(greedy_better, kGraphsPerShard / 20);
}

INSTANTIATE_TEST_SUITE_P(SeedShards, PassesPropertyShard, ::testing::Range<uint64_t>(0, kShards));

TEST(PassesProperty, PlannedBarriersEqualTheBruteForceOptimumForAFixedOrder) {
    for (uint64_t seed = 1; seed <= 3000; ++seed) {
        RandomGraphOptions o = options_for(seed);
        o.dispatches = 1 + seed % 12;
        const ComputeGraph g = random_graph(o);
        ASSERT_EQ(plan_barriers(g).barrier_count(), brute_force_min_barriers(g)) << "seed " << seed;
    }
}

TEST(PassesProperty, ReordersStripBarriersOfTheirInput) {
    testing::TinyGraph t;
    t.dispatch("a", {}, {testing::R(0, 0, 16)});
    t.barrier();
    t.barrier();
    t.dispatch("b", {}, {testing::R(1, 0, 16)});
    EXPECT_EQ(reorder_greedy(t.graph).graph.barrier_count(), 0u);
    EXPECT_EQ(reorder_levels(t.graph).graph.barrier_count(), 0u);
    EXPECT_EQ(plan_barriers(t.graph).barrier_count(), 0u);
}

TEST(GreedyReorderTest, PullsIndependentWorkForwardWithinTheWindowOnly) {
    testing::TinyGraph t;
    using testing::R;
    t.dispatch("w", {}, {R(0, 0, 16)});
    t.dispatch("r", {R(0, 0, 16)}, {R(0, 16, 32)});  // conflicts: new group
    t.dispatch("free1", {}, {R(1, 0, 16)});
    t.dispatch("free2", {}, {R(1, 16, 32)});
    const ReorderResult wide = reorder_greedy(t.graph, {.window = 64});
    ASSERT_EQ(wide.graph.nodes.size(), 5u);
    EXPECT_EQ(wide.graph.nodes[1].label, "free1");
    EXPECT_EQ(wide.graph.nodes[2].label, "free2");
    EXPECT_TRUE(wide.graph.nodes[3].is_barrier());
    EXPECT_EQ(wide.moved, 3u);
    const ReorderResult narrow = reorder_greedy(t.graph, {.window = 2});
    EXPECT_EQ(narrow.graph.nodes[1].label, "free1");
    EXPECT_TRUE(narrow.graph.nodes[2].is_barrier());
}

TEST(GreedyReorderTest, AFenceEndsTheLookaheadAndNothingCrossesIt) {
    testing::TinyGraph t;
    using testing::R;
    t.dispatch("w", {}, {R(0, 0, 16)});
    t.dispatch("r", {R(0, 0, 16)}, {});
    t.fence("foreign");
    t.dispatch("free", {}, {R(1, 0, 16)});
    const ReorderResult r = reorder_greedy(t.graph);
    EXPECT_EQ(r.moved, 0u);
    EXPECT_EQ(r.graph.barrier_count(), 3u);
}

}  // namespace
}  // namespace graphlens

namespace graphlens {
namespace {

/// The greedy reorder as llama.cpp and the seed write it: range trackers for the current
/// group and for the dispatches the lookahead skipped.
std::vector<NodeId> tracker_greedy_order(const ComputeGraph& g, size_t window) {
    std::vector<const Node*> nodes;
    for (const Node& n : g.nodes)
        if (n.is_dispatch()) nodes.push_back(&n);
    std::vector<bool> used(nodes.size(), false);
    std::vector<NodeId> order;
    GroupTracker group, skipped;
    for (size_t i0 = 0; i0 < nodes.size(); ++i0) {
        if (used[i0]) continue;
        if (group.conflicts(*nodes[i0])) {
            if (!nodes[i0]->is_fence()) {
                skipped.reset();
                skipped.add(*nodes[i0]);
                for (size_t i1 = i0 + 1; i1 < std::min(nodes.size(), i0 + window); ++i1) {
                    if (used[i1]) continue;
                    if (nodes[i1]->is_fence()) break;
                    if (!group.conflicts(*nodes[i1]) && !skipped.conflicts(*nodes[i1])) {
                        group.add(*nodes[i1]);
                        used[i1] = true;
                        order.push_back(nodes[i1]->id);
                    } else {
                        skipped.add(*nodes[i1]);
                    }
                }
            }
            group.reset();
        }
        group.add(*nodes[i0]);
        used[i0] = true;
        order.push_back(nodes[i0]->id);
    }
    return order;
}

TEST(GreedyReorderProperty, DagDecisionsEqualTheRangeTrackingWalk) {
    for (uint64_t seed = 1; seed <= 3000; ++seed) {
        const ComputeGraph g = random_graph(options_for(seed));
        const size_t window = 2 + seed % 70;
        std::vector<NodeId> got;
        for (const Node& n : reorder_greedy(g, {.window = window}).graph.nodes)
            if (n.is_dispatch()) got.push_back(n.id);
        ASSERT_EQ(got, tracker_greedy_order(g, window)) << "seed " << seed;
    }
}

}  // namespace
}  // namespace graphlens

namespace graphlens {
namespace {

/// A group tracker keeps small groups in flat lists and large ones per allocation; either
/// way it decides exactly as the encoder's ConflictTracker fed the same dispatches.
TEST(GroupTrackerProperty, DecidesLikeTheEncodersConflictTrackerForSmallAndLargeGroups) {
    size_t large_groups = 0;
    for (uint64_t seed = 1; seed <= 300; ++seed) {
        const ComputeGraph g = random_graph({.seed = seed,
                                             .dispatches = 120,
                                             .allocations = 2 + seed % 40,
                                             .allocation_size = 4096});
        GroupTracker group;
        ConflictTracker reference;
        size_t ranges = 0;
        for (const Node& n : g.nodes) {
            if (!n.is_dispatch()) continue;
            const bool expected = ranges > 0 && reference.conflicts(n.reads, n.writes);
            ASSERT_EQ(group.conflicts(n), expected) << "seed " << seed << " node " << n.id;
            if (expected) {
                large_groups += ranges > 32;
                group.reset();
                reference = ConflictTracker();
                ranges = 0;
            }
            group.add(n);
            reference.add(n.reads, n.writes);
            ranges += n.reads.size() + n.writes.size();
        }
    }
    EXPECT_GT(large_groups, 50u);  // groups past the flat lists were exercised
}

// The pipeline plans from the hazard index; every order must get exactly the barriers the
// range-tracking planner gives: orders that keep the hazards (the capture's, greedy, levels)
// and orders that do not or take a node twice (planned from the ranges).
TEST(PlannerProperty, PlanningFromTheHazardsEqualsPlanningFromTheRanges) {
    for (uint64_t seed = 1; seed <= 400; ++seed) {
        const ComputeGraph g = random_graph({.seed = seed,
                                             .dispatches = 10 + seed % 90,
                                             .allocations = 1 + seed % 12,
                                             .allocation_size = 1024,
                                             .fence_probability = seed % 4 == 0 ? 0.05 : 0.0,
                                             .barrier_probability = 0.1});
        const HazardIndex hazards(g);
        const DependencyDag dag(g, hazards);
        std::vector<std::vector<uint32_t>> orders{
            {},
            detail::greedy_order(g, dag, {}).order,
            detail::levels_order(g, dag).order,
        };
        std::vector<uint32_t> shuffled(g.nodes.size());
        for (uint32_t i = 0; i < shuffled.size(); ++i) shuffled[i] = i;
        std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(seed));
        orders.push_back(shuffled);
        std::vector<uint32_t> twice = orders[1];
        twice.push_back(twice.front() == StageGraph::kBarrier ? twice.back() : twice.front());
        orders.push_back(twice);
        for (size_t o = 0; o < orders.size(); ++o)
            ASSERT_EQ(detail::planned_order(g, orders[o], hazards),
                      detail::planned_order(g, orders[o]))
                << "seed " << seed << " order " << o;
    }
}

}  // namespace
}  // namespace graphlens
