// Specification of the pass pipeline: its stages, what each snapshot records, the unknown
// ranges policy; and the whole pipeline verified on many random and model-shaped graphs.
#include "graphlens/graph/pass_pipeline.h"

#include <gtest/gtest.h>

#include <thread>

#include "graph_test_support.h"
#include "graphlens/graph/barrier_planner.h"
#include "graphlens/graph/dependency_dag.h"
#include "graphlens/graph/pipeline_stage.h"
#include "graphlens/graph/reorder_greedy.h"
#include "graphlens/graph/reorder_levels.h"
#include "graphlens/synthetic/synthetic_graphs.h"
#include "graphlens/graph/verifier.h"

namespace graphlens {
namespace {

TransformerGraphOptions small_model(size_t layers) {
    TransformerGraphOptions o;
    o.layers = layers;
    o.hidden = 256;
    o.ffn = 512;
    o.heads = 4;
    o.kv_heads = 2;
    o.context = 32;
    o.vocab = 1000;
    return o;
}

std::vector<std::string> stage_names(const std::vector<Snapshot>& s) {
    std::vector<std::string> names;
    for (const auto& x : s) names.push_back(x.stage);
    return names;
}

TEST(PassPipelineTest, StagesInOrderWithStatsAndDiffs) {
    const ComputeGraph g = transformer_graph(small_model(8));
    PassOptions o;
    o.recipes = testing::pattern_recipes();
    o.reorder = ReorderMode::levels;
    const auto s = PassPipeline::run(g, o);
    ASSERT_EQ(stage_names(s), (std::vector<std::string>{"captured", "fused", "reordered (levels)",
                                                        "barriers planned", "split"}));
    EXPECT_EQ(s[0].stats.dispatches, g.dispatch_count());
    EXPECT_EQ(s[0].stats.barriers, g.barrier_count());
    // No builders: matched, reported, not applied.
    EXPECT_EQ(s[1].fusions.size(), testing::transformer_fusions(8).reported);
    EXPECT_TRUE(s[1].diff.fused.empty());
    EXPECT_EQ(s[2].stats.barriers, s[0].stats.barrier_lower_bound);
    EXPECT_LT(s[2].stats.barriers, s[0].stats.barriers);
    EXPECT_GT(s[2].reordered, 0u);
    EXPECT_EQ(s[2].diff.barriers_removed, s[0].stats.barriers - s[2].stats.barriers);
    EXPECT_EQ(s[3].stats.barriers, s[2].stats.barriers);
    EXPECT_EQ(s[4].split_first_dispatches, 64u);  // max(64, n/10) with n < 640
    for (const auto& snap : s) EXPECT_GE(snap.pass_ms, 0.0);
}

TEST(PassPipelineTest, StagesAreFoundByTheirEnumAndNamedAsFilesStoreThem) {
    const ComputeGraph g = transformer_graph(small_model(2));
    PassOptions o;
    o.reorder = ReorderMode::greedy;
    const auto s = PassPipeline::run(g, o);
    for (const Snapshot& snap : s) {
        const auto stage = pipeline_stage_from_name(snap.stage);
        ASSERT_TRUE(stage.has_value()) << snap.stage;
        EXPECT_EQ(find_stage(s, *stage), &snap);
        EXPECT_EQ(pipeline_stage_name(*stage), snap.stage);
    }
    EXPECT_EQ(find_reordered_stage(s), find_stage(s, PipelineStage::reordered_greedy));
    EXPECT_EQ(find_stage(s, PipelineStage::reordered_levels), nullptr);
    EXPECT_FALSE(pipeline_stage_from_name("reordered").has_value());
}

TEST(PassPipelineTest, GreedyWithFusionBuildersFusesAndSplitsAtATenth) {
    const ComputeGraph g = transformer_graph(small_model(40));
    PassOptions o;
    o.recipes = testing::recipes_with_test_builders();
    o.reorder = ReorderMode::greedy;
    const auto s = PassPipeline::run(g, o);
    ASSERT_EQ(s.size(), 5u);
    EXPECT_EQ(s[1].diff.fused.size(), testing::transformer_fusions(40).chains);
    EXPECT_EQ(s[1].diff.removed.size(), testing::transformer_fusions(40).members);
    const size_t n = s[4].stats.dispatches;
    EXPECT_EQ(s[4].split_first_dispatches, std::max<size_t>(64, n / 10));
    EXPECT_LE(s[2].stats.barriers, s[1].stats.barriers);
}

TEST(PassPipelineTest, UnknownRangesAreFencesOrRefused) {
    testing::TinyGraph t;
    using testing::R;
    t.dispatch("a", {}, {R(0, 0, 16)});
    t.fence("foreign.kernel");
    t.dispatch("b", {}, {R(1, 0, 16)});
    PassOptions o;
    o.reorder = ReorderMode::levels;
    const auto s = PassPipeline::run(t.graph, o);
    EXPECT_EQ(s.back().stats.fences, 1u);
    EXPECT_EQ(s.back().stats.barriers, 2u);
    o.unknown_ranges = UnknownRanges::refuse;
    try {
        PassPipeline::run(t.graph, o);
        FAIL() << "expected a refusal";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'foreign.kernel'"), std::string::npos) << e.what();
    }
    o.reorder = ReorderMode::none;  // nothing to refuse without a reorder
    EXPECT_EQ(PassPipeline::run(t.graph, o).size(), 4u);
}

TEST(PassPipelineTest, EmptyGraphsAndBarrierOnlyGraphsPassThrough) {
    ComputeGraph empty;
    for (ReorderMode m : {ReorderMode::none, ReorderMode::greedy, ReorderMode::levels}) {
        PassOptions o;
        o.reorder = m;
        const auto s = PassPipeline::run(empty, o);
        EXPECT_EQ(s.back().stats.dispatches, 0u);
        EXPECT_EQ(s.back().split_first_dispatches, 0u);
    }
    ComputeGraph barriers;
    barriers.add_barrier();
    barriers.add_barrier();
    PassOptions o;
    o.reorder = ReorderMode::levels;
    EXPECT_EQ(PassPipeline::run(barriers, o).back().stats.barriers, 0u);
}

TEST(PassPipelineTest, CapturedDiagnosticsBeginWithWhatValidateReports) {
    // The pipeline makes validate()'s checks inside the hazard index's walk: the same reports
    // in the same order, on graphs with ranges outside their allocation, ranges of allocations
    // that do not exist, dispatch ids used twice and allocations with the wrong id.
    for (uint64_t seed = 1; seed <= 40; ++seed) {
        RandomGraphOptions r;
        r.seed = seed;
        r.dispatches = 20 + seed * 5;
        r.allocations = 1 + seed % 5;
        r.allocation_size = 256;
        ComputeGraph g = plan_barriers(random_graph(r));
        for (size_t i = seed % 7; i < g.nodes.size(); i += 9) {
            Node& n = g.nodes[i];
            if (!n.is_dispatch()) continue;
            switch ((i + seed) % 4) {
                case 0:
                    n.reads.push_back({0, 200, 300});  // past the end of 256 bytes
                    break;
                case 1:
                    n.writes.push_back({static_cast<AllocationId>(g.allocations.size() + 2), 0, 8});
                    break;
                case 2:
                    n.id = g.nodes[0].is_dispatch() ? g.nodes[0].id : n.id;  // used twice
                    break;
                default:
                    n.reads.push_back({0, 64, 32});  // begin after end
                    break;
            }
        }
        if (seed % 5 == 0) g.allocations[0].id = 7;
        const std::vector<std::string> expected = g.validate();
        ASSERT_FALSE(expected.empty());
        PassOptions o;
        o.fuse = false;
        o.reorder = ReorderMode::none;
        o.verify = false;
        const auto s = PassPipeline::run(g, o);
        const std::vector<std::string>& got = s.front().diagnostics;
        ASSERT_GE(got.size(), expected.size()) << "seed " << seed;
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(), got.begin())) << "seed " << seed;
    }
}

TEST(PassPipelineTest, DiffNamesMovedFusedAndRemovedIds) {
    testing::TinyGraph t;
    using testing::R;
    t.dispatch("a", {}, {R(0, 0, 16)});
    t.dispatch("b", {}, {R(1, 0, 16)});
    ComputeGraph after = t.graph;
    std::swap(after.nodes[0], after.nodes[1]);
    after.nodes.insert(after.nodes.begin() + 1, Node::barrier());
    const StageDiff d = diff_stages(t.graph, after);
    EXPECT_EQ(d.moved, (std::vector<NodeId>{1, 0}));
    EXPECT_EQ(d.barriers_added, 1u);
    EXPECT_TRUE(d.fused.empty());
}

TEST(PassPipelineProperty, WholePipelineVerifiesOnRandomGraphsWithFusionBuilders) {
    PassOptions o;
    o.recipes = testing::recipes_with_test_builders();
    o.split.min_first = 4;
    size_t fused = 0;
    for (uint64_t seed = 1; seed <= 1000; ++seed) {
        RandomGraphOptions r;
        r.seed = seed;
        r.dispatches = 2 + seed % 30;
        r.allocations = 1 + seed % 3;
        r.allocation_size = 64;  // small buffers: chains line up often
        r.fence_probability = seed % 6 == 0 ? 0.1 : 0.0;
        const ComputeGraph g = random_graph(r);
        o.reorder = seed % 2 ? ReorderMode::levels : ReorderMode::greedy;
        std::vector<Snapshot> s;
        ASSERT_NO_THROW(s = PassPipeline::run(g, o)) << "seed " << seed;
        fused += s[1].diff.fused.size();
        if (o.reorder == ReorderMode::levels) {
            ASSERT_EQ(s[2].stats.barriers, s[2].stats.barrier_lower_bound) << "seed " << seed;
        }
    }
    EXPECT_GT(fused, 0u);
}

/// The same nodes in the same order (and the same allocations and kernels).
void expect_same_graph(const ComputeGraph& a, const ComputeGraph& b, const std::string& what) {
    EXPECT_EQ(a.allocations.size(), b.allocations.size()) << what;
    EXPECT_EQ(a.kernels.size(), b.kernels.size()) << what;
    EXPECT_EQ(a.metadata, b.metadata) << what;
    ASSERT_EQ(a.nodes.size(), b.nodes.size()) << what;
    for (size_t i = 0; i < a.nodes.size(); ++i) {
        const Node& x = a.nodes[i];
        const Node& y = b.nodes[i];
        ASSERT_EQ(x.kind, y.kind) << what << ", node " << i;
        if (x.is_barrier()) continue;
        EXPECT_EQ(x.id, y.id) << what << ", node " << i;
        EXPECT_EQ(x.label, y.label) << what << ", node " << i;
        EXPECT_EQ(x.kernel, y.kernel) << what << ", node " << i;
        EXPECT_TRUE(x.reads == y.reads && x.writes == y.writes) << what << ", node " << i;
        EXPECT_EQ(x.origin, y.origin) << what << ", node " << i;
    }
}

/// The stages share nodes instead of copying them (snapshot.h), which must not show: each
/// stage's graph is the graph its pass makes from the stage before, run on its own.
TEST(PassPipelineProperty, EachStageIsTheGraphItsPassMakesAlone) {
    PassOptions o;
    o.split.min_first = 4;
    for (uint64_t seed = 1; seed <= 300; ++seed) {
        RandomGraphOptions r;
        r.seed = seed;
        r.dispatches = 2 + seed % 30;
        r.allocations = 1 + seed % 3;
        r.allocation_size = 64;
        r.fence_probability = seed % 6 == 0 ? 0.1 : 0.0;
        r.barrier_probability = seed % 4 == 0 ? 0.2 : 0.0;
        const ComputeGraph g = random_graph(r);
        o.recipes = seed % 3 ? testing::recipes_with_test_builders() : testing::pattern_recipes();
        o.reorder = static_cast<ReorderMode>(seed % 3);  // none, greedy, levels
        const std::vector<Snapshot> s = PassPipeline::run(g, o);
        const std::string at = "seed " + std::to_string(seed);
        expect_same_graph(*s[0].graph, g, at + ", captured");
        const ComputeGraph fused = fuse(g, o.recipes).graph;
        expect_same_graph(*s[1].graph, fused, at + ", fused");
        size_t k = 2;
        ComputeGraph ordered = fused;
        if (o.reorder != ReorderMode::none) {
            ordered = o.reorder == ReorderMode::greedy ? reorder_greedy(fused).graph
                                                       : reorder_levels(fused).graph;
            expect_same_graph(*s[k++].graph, ordered, at + ", reordered");
        }
        const ComputeGraph planned = plan_barriers(ordered);
        expect_same_graph(*s[k].graph, planned, at + ", planned");
        expect_same_graph(*s[k + 1].graph, planned, at + ", split");
        EXPECT_EQ(s[k + 1].split_first_dispatches, split_point(planned, o.split).first_dispatches)
            << at;
    }
}

TEST(PassPipelineTest, SnapshotCopiesShareTheirGraphWhichIsMadeOnceForAllThreads) {
    const ComputeGraph g = transformer_graph(small_model(4));
    PassOptions o;
    o.reorder = ReorderMode::levels;
    const std::vector<Snapshot> s = PassPipeline::run(g, o);
    ASSERT_EQ(s.size(), 5u);
    // Nothing fuses without builders: the fused stage is the captured graph itself.
    ASSERT_EQ(s[1].stage, "fused");
    EXPECT_EQ(&*s[1].graph, &*s[0].graph);
    // The split stage only chooses a boundary: it is the planned graph itself.
    EXPECT_EQ(&*s[4].graph, &*s[3].graph);
    // A copy of a snapshot reads the same graph, not a copy of it.
    const std::vector<Snapshot> copies = s;
    for (size_t i = 0; i < s.size(); ++i) EXPECT_EQ(&*copies[i].graph, &*s[i].graph) << i;
    // Several threads reading the reordered stage's graph for the first time get one graph.
    const std::vector<Snapshot> fresh = PassPipeline::run(g, o);
    std::vector<const ComputeGraph*> seen(4, nullptr);
    std::vector<std::thread> readers;
    for (size_t t = 0; t < seen.size(); ++t)
        readers.emplace_back([&, t] { seen[t] = &*fresh[2].graph; });
    for (std::thread& t : readers) t.join();
    for (const ComputeGraph* p : seen) EXPECT_EQ(p, seen.front());
    EXPECT_EQ(fresh[2].graph->dispatch_count(), g.dispatch_count());
    // Assigning a graph replaces it.
    Snapshot edited = s[2];
    ComputeGraph changed = *s[2].graph;
    changed.nodes.pop_back();
    edited.graph = std::move(changed);
    EXPECT_EQ(edited.graph->nodes.size() + 1, s[2].graph->nodes.size());
}

TEST(PassPipelineTest, ASharedCaptureIsTheCapturedStageAndGivesTheSameStages) {
    PassOptions o;
    o.reorder = ReorderMode::greedy;
    for (const bool builders : {false, true}) {
        o.recipes = builders ? testing::recipes_with_test_builders() : testing::pattern_recipes();
        const auto shared = std::make_shared<const ComputeGraph>(transformer_graph(small_model(4)));
        const std::vector<Snapshot> s = PassPipeline::run(shared, o);
        const std::vector<Snapshot> copied = PassPipeline::run(*shared, o);
        ASSERT_EQ(s.size(), copied.size());
        // Not copied: the captured stage is the caller's graph; so is the fused stage when
        // nothing fused (no builders).
        EXPECT_EQ(&*s[0].graph, shared.get());
        EXPECT_NE(&*copied[0].graph, shared.get());
        EXPECT_EQ(&*s[1].graph == shared.get(), !builders);
        EXPECT_EQ(s[1].diff.fused.empty(), !builders);
        for (size_t k = 0; k < s.size(); ++k) {
            EXPECT_EQ(s[k].stage, copied[k].stage);
            expect_same_graph(*s[k].graph, *copied[k].graph, s[k].stage);
            EXPECT_EQ(s[k].stats.barriers, copied[k].stats.barriers) << k;
            EXPECT_EQ(s[k].diagnostics, copied[k].diagnostics) << k;
            EXPECT_EQ(s[k].diff.moved, copied[k].diff.moved) << k;
            EXPECT_EQ(s[k].fusions.size(), copied[k].fusions.size()) << k;
        }
    }
    EXPECT_THROW(PassPipeline::run(std::shared_ptr<const ComputeGraph>(), o),
                 std::invalid_argument);
}

}  // namespace
}  // namespace graphlens
