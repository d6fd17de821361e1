// GraphSession: direct vs recorded execution, finishing variants, dropping unfinished sessions.
#include <gtest/gtest.h>

#include "chain_workload.h"
#include "gpu_fixture.h"
#include "graphlens/vulkan/graph_session.h"
#include "graphlens/graph/pass_pipeline.h"

namespace graphlens::test {
namespace {

class GraphSessionTest : public GpuTest {
  protected:
    void SetUp() override {
        GpuTest::SetUp();
        chain.setup(*memory, 1234);
    }
    Chain chain;
};

TEST_F(GraphSessionTest, DirectDispatchMatchesCpuReference) {
    auto s = executor->begin();
    chain.record(s);
    s.finish();
    EXPECT_TRUE(bitwise_equal(download(chain.result), chain.expected()));
}

TEST_F(GraphSessionTest, RecordThenReplayIsBitwiseIdenticalToDirect) {
    {
        auto s = executor->begin();
        chain.record(s);
        s.finish();
    }
    const auto direct = download(chain.result);
    chain.poison(*memory);
    ASSERT_FALSE(bitwise_equal(download(chain.result), direct));  // the poison is visible

    auto s = executor->begin_recorded();
    chain.record(s);
    EXPECT_EQ(s.graph().dispatch_count(), 5u);
    s.finish();
    EXPECT_TRUE(bitwise_equal(download(chain.result), direct));
}

TEST_F(GraphSessionTest, RecordedNodesCarryReflectedRangesWithViewOffsets) {
    auto s = executor->begin_recorded();
    chain.record(s);
    const ComputeGraph g = s.finish_recording();
    const Node& t2 = g.nodes[3];  // nodes: t0, t1, barrier, t2, ...
    ASSERT_TRUE(t2.is_dispatch());
    EXPECT_EQ(t2.label, "chain.t2");
    ASSERT_EQ(t2.reads.size(), 2u);
    EXPECT_EQ(t2.reads[0], chain.t0.range());
    EXPECT_EQ(t2.reads[1], chain.t1.range());
    ASSERT_EQ(t2.writes.size(), 1u);
    EXPECT_EQ(t2.writes[0], (ByteRange{chain.tmp, 2 * Chain::n * 4, 3 * Chain::n * 4}));
    EXPECT_TRUE(g.validate().empty());
    EXPECT_EQ(g.allocations, memory->allocations());
}

TEST_F(GraphSessionTest, AutomaticBarriersFollowHazardsAndCountGroups) {
    auto s = executor->begin_recorded();
    chain.record(s);
    EXPECT_EQ(s.dispatch_count(), 5u);
    EXPECT_EQ(s.barrier_count(), 3u);
    EXPECT_EQ(s.group_size_histogram(), (std::vector<size_t>{0, 3, 1}));
    s.finish();
}

TEST_F(GraphSessionTest, EveryDispatchPolicyPutsABarrierBetweenAllDispatches) {
    SessionOptions o;
    o.barriers = BarrierPolicy::every_dispatch;
    auto s = executor->begin(o);
    chain.record(s);
    EXPECT_EQ(s.barrier_count(), 4u);
    s.finish();
    EXPECT_TRUE(bitwise_equal(download(chain.result), chain.expected()));
}

TEST_F(GraphSessionTest, FinishWithTimingReportsGpuEncodeAndWallTime) {
    auto s = executor->begin();
    chain.record(s);
    const SessionTiming t = s.finish_with_timing();
    EXPECT_EQ(t.dispatches, 5u);
    EXPECT_EQ(t.barriers, 3u);
    EXPECT_GT(t.encode_ns, 0u);
    EXPECT_GE(t.wall_ns, t.encode_ns);
    if (device().facts().timestamps) {
        EXPECT_GT(t.gpu_ns, 0u);
    }
    EXPECT_TRUE(bitwise_equal(download(chain.result), chain.expected()));
}

TEST_F(GraphSessionTest, CommitRunsWithoutWaitingUntilAsked) {
    auto s = executor->begin_recorded();
    chain.record(s);
    PendingWork work = s.commit();
    EXPECT_TRUE(work.valid());
    work.wait();
    EXPECT_TRUE(bitwise_equal(download(chain.result), chain.expected()));
}

TEST_F(GraphSessionTest, DroppingUnfinishedSessionsIsSafe) {
    {
        auto direct = executor->begin();
        chain.record(direct);
    }  // never submitted
    {
        auto recorded = executor->begin_recorded();
        chain.record(recorded);
    }
    {
        auto s = executor->begin();
        chain.record(s);
        PendingWork dropped = s.commit();
    }  // waits in the destructor
    // Nothing above ran (or it finished): a fresh session still works on poisoned outputs.
    chain.poison(*memory);
    auto s = executor->begin();
    chain.record(s);
    s.finish();
    EXPECT_TRUE(bitwise_equal(download(chain.result), chain.expected()));
}

TEST_F(GraphSessionTest, UsingAFinishedSessionIsAClearError) {
    auto s = executor->begin();
    chain.record(s);
    s.finish();
    EXPECT_THROW(s.barrier(), std::logic_error);
    EXPECT_THROW(s.finish(), std::logic_error);
}

TEST_F(GraphSessionTest, FinishTransformedRunsTheTransformedGraph) {
    auto s = executor->begin_recorded();
    chain.record(s);
    ExecuteOptions o;
    o.barriers = BarrierSource::every_dispatch;
    size_t seen = 0;
    const ExecutionTiming t = s.finish_transformed(
        [&](ComputeGraph g) {
            seen = g.dispatch_count();
            return g.without_barriers();
        },
        o);
    EXPECT_EQ(seen, 5u);
    EXPECT_EQ(t.barriers, 4u);
    EXPECT_TRUE(bitwise_equal(download(chain.result), chain.expected()));
}

TEST_F(GraphSessionTest, FinishOptimizedRunsThePassPipelineInTwoCommandBuffers) {
    auto s = executor->begin_recorded();
    for (int i = 0; i < 3; ++i) chain.record(s);
    PassOptions passes;
    passes.reorder = ReorderMode::levels;
    passes.split.first_dispatches = 4;
    const OptimizedFinish r = s.finish_optimized(passes);
    ASSERT_FALSE(r.stages.empty());
    EXPECT_EQ(r.stages.front().stage, "captured");
    EXPECT_EQ(r.stages.back().stage, "split");
    EXPECT_EQ(r.timing.command_buffers, 2u);
    EXPECT_EQ(r.timing.dispatches, 15u);
    EXPECT_TRUE(bitwise_equal(download(chain.result), chain.expected()));
}

}  // namespace
}  // namespace graphlens::test
