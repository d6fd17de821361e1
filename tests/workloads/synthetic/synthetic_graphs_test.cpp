// Specification of the synthetic graph generators used by tests, benchmarks and the GUI.
#include "graphlens/synthetic/synthetic_graphs.h"

#include <gtest/gtest.h>

#include "graphlens/graph/dependency_dag.h"

namespace graphlens {
namespace {

TEST(SyntheticGraphsTest, RandomGraphsAreValidAndReproducible) {
    RandomGraphOptions o;
    o.seed = 42;
    o.dispatches = 200;
    o.fence_probability = 0.05;
    o.barrier_probability = 0.1;
    const ComputeGraph a = random_graph(o);
    EXPECT_TRUE(a.validate().empty());
    EXPECT_EQ(a.dispatch_count(), 200u);
    EXPECT_GT(a.barrier_count(), 0u);
    // The same seed gives the same graph, node for node and range for range.
    const ComputeGraph again = random_graph(o);
    ASSERT_EQ(again.nodes.size(), a.nodes.size());
    for (size_t i = 0; i < a.nodes.size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(again.nodes[i].kind, a.nodes[i].kind);
        EXPECT_EQ(again.nodes[i].id, a.nodes[i].id);
        EXPECT_EQ(again.nodes[i].op, a.nodes[i].op);
        EXPECT_EQ(std::string(again.nodes[i].label), std::string(a.nodes[i].label));
        EXPECT_EQ(again.nodes[i].reads, a.nodes[i].reads);
        EXPECT_EQ(again.nodes[i].writes, a.nodes[i].writes);
    }
    ASSERT_EQ(again.allocations.size(), a.allocations.size());
    for (size_t k = 0; k < a.allocations.size(); ++k)
        EXPECT_EQ(again.allocations[k].size, a.allocations[k].size);
    o.seed = 43;
    EXPECT_NE(random_graph(o).nodes[0].reads, a.nodes[0].reads);
}

TEST(SyntheticGraphsTest, TransformerGraphHasTheDecodeShape) {
    TransformerGraphOptions o;
    o.layers = 3;
    const ComputeGraph g = transformer_graph(o);
    EXPECT_TRUE(g.validate().empty()) << g.validate().front();
    EXPECT_EQ(g.dispatch_count(), 3 * kTransformerDispatchesPerLayer + kTransformerExtraDispatches);
    size_t q = 0, fences = 0;
    for (const Node& n : g.nodes) {
        if (n.label == "blk.1.attn_q") ++q;
        if (n.is_fence()) ++fences;
    }
    EXPECT_EQ(q, 1u);
    EXPECT_EQ(fences, 0u);  // built-in kernels have reflected ranges
    // Capture barriers make every group conflict-free, yet q/k/v and gate/up run together.
    EXPECT_LT(g.barrier_count(), g.dispatch_count());
    const DependencyDag dag(g);
    EXPECT_LT(dag.barrier_lower_bound(), g.barrier_count());
}

}  // namespace
}  // namespace graphlens
