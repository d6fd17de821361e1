// Replay of a captured graph: recomputed barriers, dual command buffers, per-dispatch
// submission, recreated allocations; and the validation oracle catching a planted missing
// barrier.
#include <gtest/gtest.h>

#include "chain_workload.h"
#include "gpu_fixture.h"

namespace graphlens::test {
namespace {

class ReplayTest : public GpuTest {
  protected:
    void SetUp() override {
        GpuTest::SetUp();
        chain.setup(*memory, 99);
        auto s = executor->begin_recorded();
        for (int i = 0; i < kRepeats; ++i) chain.record(s);  // a longer graph of 5-node chains
        graph = s.finish_recording();
    }
    std::vector<float> run(const ExecuteOptions& o, ExecutionTiming* timing = nullptr) {
        chain.poison(*memory);
        const ExecutionTiming t = executor->execute(graph, o);
        if (timing) *timing = t;
        return download(chain.result);
    }
    static constexpr int kRepeats = 4;
    Chain chain;
    ComputeGraph graph;
};

TEST_F(ReplayTest, RecordedRecomputedAndSerialBarriersGiveTheSameResult) {
    ExecutionTiming recorded, recomputed, serial;
    ExecuteOptions o;
    const auto a = run(o, &recorded);
    o.barriers = BarrierSource::recompute;
    const auto b = run(o, &recomputed);
    o.barriers = BarrierSource::every_dispatch;
    const auto c = run(o, &serial);
    EXPECT_TRUE(bitwise_equal(a, chain.expected()));
    EXPECT_TRUE(bitwise_equal(a, b));
    EXPECT_TRUE(bitwise_equal(a, c));
    EXPECT_EQ(recorded.dispatches, 5u * kRepeats);
    EXPECT_EQ(recorded.barriers, graph.barrier_count());
    EXPECT_EQ(recomputed.barriers, graph.barrier_count());  // the session recorded the same plan
    EXPECT_EQ(serial.barriers, 5u * kRepeats - 1);
}

TEST_F(ReplayTest, DualBufferGivesTheSameResultAtEverySplit) {
    ExecuteOptions o;
    const auto reference = run(o);
    o.submit = SubmitMode::dual_buffer;
    for (size_t first : {1u, 3u, 7u, 19u}) {
        for (auto barriers : {BarrierSource::recorded, BarrierSource::recompute}) {
            o.first_dispatches = first;
            o.barriers = barriers;
            ExecutionTiming t;
            EXPECT_TRUE(bitwise_equal(run(o, &t), reference)) << "split after " << first;
            EXPECT_EQ(t.command_buffers, 2u);
            EXPECT_EQ(t.dispatches, 5u * kRepeats);
        }
    }
}

TEST_F(ReplayTest, DualBufferSplitFollowsLlamaCpp) {
    EXPECT_EQ(dual_buffer_split(20), 20u);
    EXPECT_EQ(dual_buffer_split(100), 64u);
    EXPECT_EQ(dual_buffer_split(1000), 100u);
    EXPECT_EQ(dual_buffer_split(1000, 64, 4), 250u);
}

TEST_F(ReplayTest, StreamOfGrowingBuffersGivesTheSameResult) {
    ExecuteOptions o;
    const auto reference = run(o);
    o.submit = SubmitMode::stream;
    for (size_t first : {1u, 2u, 5u}) {
        for (auto barriers : {BarrierSource::recorded, BarrierSource::recompute}) {
            o.stream_first = first;
            o.barriers = barriers;
            ExecutionTiming t;
            EXPECT_TRUE(bitwise_equal(run(o, &t), reference)) << "first buffer " << first;
            const auto chunks = stream_chunk_dispatches(5u * kRepeats, first, o.stream_growth);
            EXPECT_EQ(t.command_buffers, barriers == BarrierSource::recorded
                                             ? align_stream_chunks(graph, chunks).size()
                                             : chunks.size());
            EXPECT_EQ(t.dispatches, 5u * kRepeats);
            // Boundaries replace barriers, never add any.
            EXPECT_LE(t.barriers, graph.barrier_count());
            // Only the first buffer's start and the last one's end are stamped: still a span.
            if (device().facts().timestamps) {
                EXPECT_GT(t.gpu_ns, 0u);
            }
        }
    }
}

TEST_F(ReplayTest, StreamBuffersGrowUntilTheGraphIsCovered) {
    EXPECT_EQ(stream_chunk_dispatches(0), std::vector<size_t>{});
    EXPECT_EQ(stream_chunk_dispatches(5), std::vector<size_t>{5});
    EXPECT_EQ(stream_chunk_dispatches(243), (std::vector<size_t>{8, 32, 128, 75}));
    EXPECT_EQ(stream_chunk_dispatches(243, 8, 2.0), (std::vector<size_t>{8, 16, 32, 64, 123}));
    EXPECT_EQ(stream_chunk_dispatches(10, 3, 1.5), (std::vector<size_t>{3, 5, 2}));
}

// With recorded barriers a buffer ends where a concurrency group ends, at or after its share:
// groups of 2 | 3 | 1 | 4 dispatches and shares 1, 2, 7 give buffers of 2, 3 and 5.
TEST(StreamChunks, BuffersEndWhereGroupsEnd) {
    ComputeGraph g;
    for (size_t group : {2u, 3u, 1u, 4u}) {
        if (!g.nodes.empty()) g.nodes.push_back(Node::barrier());
        for (size_t i = 0; i < group; ++i) g.nodes.push_back(Node{});
    }
    EXPECT_EQ(align_stream_chunks(g, std::vector<size_t>{1, 2, 7}), (std::vector<size_t>{2, 3, 5}));
    EXPECT_EQ(align_stream_chunks(g, std::vector<size_t>{10}), std::vector<size_t>{10});
    EXPECT_EQ(align_stream_chunks(g, std::vector<size_t>{2, 3, 1, 4}),
              (std::vector<size_t>{2, 3, 1, 4}));
}

// Slices recorded at once by several threads into secondary command buffers, one primary
// running them: the same result and the plan's barriers, with synchronization validation
// judging the barriers between the secondaries.
TEST_F(ReplayTest, SlicesRecordedInParallelGiveTheSameResult) {
    ExecuteOptions o;
    ExecutionTiming single;
    const auto reference = run(o, &single);
    o.submit = SubmitMode::parallel;
    for (size_t threads : {1u, 2u, 3u, 7u}) {
        o.parallel_threads = threads;
        for (int round = 0; round < 2; ++round) {  // the threads and buffers are reused
            ExecutionTiming t;
            EXPECT_TRUE(bitwise_equal(run(o, &t), reference)) << threads << " threads";
            EXPECT_EQ(t.dispatches, 5u * kRepeats);
            EXPECT_EQ(t.barriers, single.barriers);
            EXPECT_EQ(t.command_buffers, parallel_slice_bounds(graph, threads).size());
            if (device().facts().timestamps) {
                EXPECT_GT(t.gpu_ns, 0u);
            }
        }
    }
}

// With an early buffer: the first dispatches (to a group end) are submitted before the
// threads record the rest; its submission barrier stands for the plan's barrier there.
TEST_F(ReplayTest, AnEarlyBufferBeforeTheParallelSlicesGivesTheSameResult) {
    ExecuteOptions o;
    ExecutionTiming single;
    const auto reference = run(o, &single);
    o.submit = SubmitMode::parallel;
    o.parallel_threads = 3;
    for (size_t first : {1u, 7u, 5u * kRepeats, 1000u}) {
        o.parallel_first = first;
        ExecutionTiming t;
        EXPECT_TRUE(bitwise_equal(run(o, &t), reference)) << "first " << first;
        EXPECT_EQ(t.dispatches, 5u * kRepeats);
        EXPECT_LE(t.barriers, single.barriers);
        EXPECT_GE(t.barriers + 1, single.barriers);  // at most the one at the boundary
        if (first < 5u * kRepeats) {
            EXPECT_GE(t.command_buffers, 3u);  // early, primary, at least one secondary
        }
        if (device().facts().timestamps) {
            EXPECT_GT(t.gpu_ns, 0u);
        }
    }
}

TEST_F(ReplayTest, ParallelRecordingTakesRecordedBarriersOnly) {
    ExecuteOptions o;
    o.submit = SubmitMode::parallel;
    o.barriers = BarrierSource::recompute;
    EXPECT_THROW(executor->execute(graph, o), std::invalid_argument);
}

// A decode loop's steps: each step is recorded while the one before executes (its recording
// begins before that step's completion is seen) and gives the single run's result; a step's
// wall runs from the previous step's completion to its own.
TEST_F(ReplayTest, StepsRecordedAheadGiveTheSameResultAsSingleRuns) {
    ExecuteOptions o;
    ExecutionTiming single;
    const auto reference = run(o, &single);
    chain.poison(*memory);
    const std::vector<ExecutionTiming> steps = executor->execute_steps(graph, o, 4);
    EXPECT_TRUE(bitwise_equal(download(chain.result), reference));
    ASSERT_EQ(steps.size(), 4u);
    for (size_t i = 0; i < steps.size(); ++i) {
        const ExecutionTiming& t = steps[i];
        EXPECT_EQ(t.dispatches, single.dispatches);
        EXPECT_EQ(t.barriers, single.barriers);
        EXPECT_EQ(t.command_buffers, 1u);
        EXPECT_LE(t.record_begin_ns + t.encode_ns, t.complete_ns);
        const uint64_t since = i == 0 ? t.record_begin_ns : steps[i - 1].complete_ns;
        EXPECT_EQ(t.wall_ns, t.complete_ns - since) << "step " << i;
        if (i > 0) {
            EXPECT_LT(t.record_begin_ns, steps[i - 1].complete_ns) << "step " << i;
        }
        if (device().facts().timestamps) {
            EXPECT_GT(t.gpu_ns, 0u);
        }
    }
    o.submit = SubmitMode::ahead;  // execute() runs one step
    ExecutionTiming one;
    EXPECT_TRUE(bitwise_equal(run(o, &one), reference));
    EXPECT_EQ(one.command_buffers, 1u);
    EXPECT_TRUE(executor->execute_steps(graph, o, 0).empty());
}

// Each step sees every write of the step before: a graph that adds w to an accumulator (through
// a temporary and an add of zeros) run as 5 steps leaves 5 w in it, and synchronization validation
// sees no hazard between the steps' submissions; also when each step is queued behind the one
// before instead of submitted after its completion (queue_steps).
TEST_F(ReplayTest, EachStepSeesTheStepBefore) {
    memory->upload(chain.b, std::vector<float>(Chain::n, 0.0f));
    auto s = executor->begin_recorded();
    s.dispatch(binary_dispatch("add_f32", chain.result, chain.w, chain.t0, "acc.sum"));
    s.dispatch(binary_dispatch("add_f32", chain.t0, chain.b, chain.result, "acc.store"));
    const ComputeGraph acc = s.finish_recording();
    for (bool queued : {false, true}) {
        memory->fill(chain.out, 0);
        ExecuteOptions o;
        o.queue_steps = queued;
        const std::vector<ExecutionTiming> steps = executor->execute_steps(acc, o, 5);
        const std::vector<float> got = download(chain.result);
        for (int64_t i = 0; i < Chain::n; ++i) {
            float want = 0;
            for (int step = 0; step < 5; ++step) want += chain.w_data[i % Chain::nw];
            ASSERT_EQ(got[i], want) << "element " << i << (queued ? ", queued" : "");
        }
        for (size_t i = 1; i < steps.size(); ++i)
            EXPECT_EQ(steps[i].wall_ns, steps[i].complete_ns - steps[i - 1].complete_ns);
    }
}

TEST_F(ReplayTest, StepsRefuseTheProfiles) {
    ExecuteOptions o;
    o.profile_dispatches = true;
    EXPECT_THROW(executor->execute_steps(graph, o, 2), std::invalid_argument);
}

// A slice ends where a concurrency group ends, at or after its share of the dispatches:
// groups of 2 | 3 | 1 | 4 dispatches.
TEST(ParallelSlices, CutAtTheFirstBarrierPastEachShare) {
    ComputeGraph g;
    std::vector<size_t> barrier_at;
    for (size_t group : {2u, 3u, 1u, 4u}) {
        if (!g.nodes.empty()) {
            barrier_at.push_back(g.nodes.size());
            g.nodes.push_back(Node::barrier());
        }
        for (size_t i = 0; i < group; ++i) g.nodes.push_back(Node{});
    }
    const size_t end = g.nodes.size();
    EXPECT_EQ(parallel_slice_bounds(g, 1), (std::vector<size_t>{0, end}));
    // Shares of 3.3 and 6.7 dispatches: cut after 5; no barrier follows 7 dispatches.
    EXPECT_EQ(parallel_slice_bounds(g, 3), (std::vector<size_t>{0, barrier_at[1], end}));
    // More threads than groups: one slice a group.
    EXPECT_EQ(parallel_slice_bounds(g, 10),
              (std::vector<size_t>{0, barrier_at[0], barrier_at[1], barrier_at[2], end}));
    EXPECT_EQ(parallel_slice_bounds(ComputeGraph{}, 4), std::vector<size_t>{0});
    // From a node on, the shares are of the dispatches left: 1 | 4 after the second barrier.
    // Halves of 2.5 put no cut after the group of 1; fifths of 1 do.
    EXPECT_EQ(parallel_slice_bounds(g, 2, barrier_at[1]),
              (std::vector<size_t>{barrier_at[1], end}));
    EXPECT_EQ(parallel_slice_bounds(g, 5, barrier_at[1]),
              (std::vector<size_t>{barrier_at[1], barrier_at[2], end}));
    EXPECT_EQ(parallel_slice_bounds(g, 4, end), std::vector<size_t>{end});
}

// Two barriers in a row are one cut: no slice without a dispatch, even where the dispatches
// before them already fill two shares (groups of 3 | 1, thirds of 1.3 dispatches).
TEST(ParallelSlices, NeverCutASliceWithoutDispatches) {
    ComputeGraph g;
    for (int i = 0; i < 3; ++i) g.nodes.push_back(Node{});
    const size_t first_barrier = g.nodes.size();
    g.nodes.push_back(Node::barrier());
    g.nodes.push_back(Node::barrier());
    g.nodes.push_back(Node{});
    EXPECT_EQ(parallel_slice_bounds(g, 3), (std::vector<size_t>{0, first_barrier, g.nodes.size()}));
}

TEST_F(ReplayTest, PerDispatchSubmissionGivesTheSameResult) {
    const auto reference = run({});
    ExecuteOptions o;
    o.submit = SubmitMode::per_dispatch;
    ExecutionTiming t;
    EXPECT_TRUE(bitwise_equal(run(o, &t), reference));
    EXPECT_EQ(t.command_buffers, 5u * kRepeats);
    EXPECT_EQ(t.barriers, 0u);
}

TEST_F(ReplayTest, PerDispatchProfileGivesOrderedIntervals) {
    ExecuteOptions o;
    o.barriers = BarrierSource::every_dispatch;
    o.profile_dispatches = true;
    ExecutionTiming t;
    EXPECT_TRUE(bitwise_equal(run(o, &t), chain.expected()));
    if (!device().facts().timestamps) GTEST_SKIP() << "device has no timestamps";
    ASSERT_EQ(t.per_dispatch.size(), 5u * kRepeats);
    for (size_t i = 0; i < t.per_dispatch.size(); ++i) {
        EXPECT_LE(t.per_dispatch[i].start_ns, t.per_dispatch[i].end_ns);
        if (i > 0) {
            EXPECT_EQ(t.per_dispatch[i].start_ns, t.per_dispatch[i - 1].end_ns);
        }
    }
    EXPECT_EQ(t.per_dispatch[2].label, "chain.t2");
    EXPECT_EQ(t.per_dispatch[2].op, OpKind::add);
}

TEST_F(ReplayTest, ACaptureReplaysOnRecreatedAllocations) {
    const auto reference = run({});
    DeviceMemory other(device());
    other.recreate(graph);
    ASSERT_EQ(other.allocations(), graph.allocations);
    other.upload(chain.a, chain.a_data);
    other.upload(chain.b, chain.b_data);
    other.upload(chain.w, chain.w_data);
    other.fill(chain.out, 0xFF);
    GraphExecutor exec(device(), other);
    exec.execute(graph);
    EXPECT_TRUE(bitwise_equal(other.download_as<float>(chain.result), reference));
}

TEST_F(ReplayTest, ValidationIsOnUnderTheTestRunner) {
    if (!std::getenv("GRAPHLENS_VALIDATION")) GTEST_SKIP() << "GRAPHLENS_VALIDATION not set";
    EXPECT_TRUE(device().validation_enabled());
}

TEST_F(ReplayTest, SynchronizationValidationReportsAPlantedMissingBarrier) {
    if (!device().validation_enabled()) GTEST_SKIP() << "needs GRAPHLENS_VALIDATION=1";
    ExecuteOptions o;
    o.barriers = BarrierSource::none;  // drop every barrier: RAW hazards inside the buffer
    run(o);
    const auto messages = device().validation_messages();
    const bool hazard = std::any_of(messages.begin(), messages.end(), [](const auto& m) {
        return m.error && m.id.find("SYNC-HAZARD") != std::string::npos;
    });
    EXPECT_TRUE(hazard) << describe_messages();
    device().clear_validation_messages();  // expected errors; the fixture checks the rest
}

}  // namespace
}  // namespace graphlens::test

namespace graphlens::test {
namespace {

// Pooled descriptor sets and classic barriers instead of push descriptors and
// synchronization2: the fallback for devices without those extensions.
TEST(FallbackPaths, PooledDescriptorSetsAndClassicBarriersGiveTheSameResult) {
    Device::Options o;
    o.allow_push_descriptor = false;
    o.allow_synchronization2 = false;
    Device dev(o);
    EXPECT_FALSE(dev.uses_push_descriptor());
    EXPECT_FALSE(dev.uses_synchronization2());
    {
        DeviceMemory mem(dev);
        GraphExecutor exec(dev, mem);
        Chain chain;
        chain.setup(mem, 7);
        auto s = exec.begin_recorded();
        // More dispatches than one descriptor pool holds, so the pool has to grow.
        for (int i = 0; i < 60; ++i) chain.record(s);
        const ComputeGraph g = s.finish_recording();
        exec.execute(g);
        EXPECT_TRUE(bitwise_equal(mem.download_as<float>(chain.result), chain.expected()));
    }
    EXPECT_EQ(dev.validation_errors(), 0u);
}

}  // namespace
}  // namespace graphlens::test
