// Specification of DependencyDag: edges from hazards and fences, ASAP levels, depth, the
// barrier lower bound and the transitively reduced view.
#include "graphlens/graph/dependency_dag.h"

#include <gtest/gtest.h>

#include "graph_test_support.h"
#include "graphlens/synthetic/synthetic_graphs.h"

namespace graphlens {
namespace {
using testing::R;
using testing::TinyGraph;

TEST(DependencyDagTest, LevelsDepthAndLowerBoundOfAChainAndAFan) {
    TinyGraph t;
    t.dispatch("a", {}, {R(0, 0, 16)});
    t.dispatch("b1", {R(0, 0, 16)}, {R(0, 16, 32)});
    t.dispatch("b2", {R(0, 0, 16)}, {R(0, 32, 48)});
    t.dispatch("c", {R(0, 16, 48)}, {R(1, 0, 16)});
    const DependencyDag dag(t.graph);
    EXPECT_EQ(dag.levels(), (std::vector<uint32_t>{0, 1, 1, 2}));
    EXPECT_EQ(dag.depth(), 3u);
    EXPECT_EQ(dag.barrier_lower_bound(), 2u);
    EXPECT_EQ(std::vector<uint32_t>(dag.predecessors(3).begin(), dag.predecessors(3).end()),
              (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(dag.successors(0).size(), 2u);
}

TEST(DependencyDagTest, AFenceOrdersEverythingAroundIt) {
    TinyGraph t;
    t.dispatch("a", {}, {R(0, 0, 16)});
    t.dispatch("b", {}, {R(1, 0, 16)});
    t.fence("foreign");
    t.dispatch("c", {}, {R(0, 64, 80)});
    t.dispatch("d", {}, {R(1, 64, 80)});
    const DependencyDag dag(t.graph);
    // Independent pairs on each side, the fence alone between: 3 levels, 2 barriers.
    EXPECT_EQ(dag.levels(), (std::vector<uint32_t>{0, 0, 1, 2, 2}));
    EXPECT_EQ(dag.barrier_lower_bound(), 2u);
    EXPECT_EQ(dag.fence_count(), 1u);
}

TEST(DependencyDagTest, BarrierNodesAreNotVertices) {
    TinyGraph t;
    t.dispatch("a", {}, {R(0, 0, 16)});
    t.barrier();
    t.dispatch("b", {}, {R(1, 0, 16)});
    const DependencyDag dag(t.graph);
    EXPECT_EQ(dag.depth(), 1u);
    EXPECT_TRUE(dag.predecessors(1).empty());
}

TEST(DependencyDagProperty, ReducedEdgesKeepReachabilityAndDropEveryImpliedEdge) {
    for (uint64_t seed = 1; seed <= 500; ++seed) {
        const ComputeGraph g = random_graph({.seed = seed,
                                             .dispatches = 3 + seed % 14,
                                             .allocations = 2,
                                             .allocation_size = 96,
                                             .fence_probability = seed % 4 == 0 ? 0.1 : 0.0});
        const DependencyDag dag(g);
        const size_t n = g.nodes.size();
        std::vector<std::pair<size_t, size_t>> all, reduced;
        for (size_t v = 0; v < n; ++v)
            for (uint32_t p : dag.predecessors(v)) all.emplace_back(p, v);
        for (auto [a, b] : dag.reduced_edges()) reduced.emplace_back(a, b);
        const auto reach_all = testing::reachability(n, all);
        const auto reach_reduced = testing::reachability(n, reduced);
        ASSERT_EQ(reach_all, reach_reduced) << "seed " << seed;
        for (auto [a, b] : reduced) {
            // No other path a -> ... -> b: no successor s of a (s != b) reaches b.
            for (auto [x, s] : all) {
                if (x == a && s != b) {
                    ASSERT_FALSE(reach_all[s][b]) << "seed " << seed;
                }
            }
        }
    }
}

}  // namespace
}  // namespace graphlens
