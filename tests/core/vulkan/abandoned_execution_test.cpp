// An execution cancelled while the GPU runs it, in every way GraphExecutor submits: the wait
// gives up within a second, the abandoned submissions' objects and the memory they use outlive
// them (the validation layer, with synchronization validation, reports nothing), and the
// device runs the next execution with correct results.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "gpu_fixture.h"
#include "long_chain.h"

namespace graphlens::test {
namespace {

using Clock = std::chrono::steady_clock;

struct SubmitCase {
    const char* name;
    SubmitMode submit;
    bool queue_steps = false;  ///< ahead: the next step in flight behind the cancelled one
};

class AbandonedExecutionTest : public GpuTest, public ::testing::WithParamInterface<SubmitCase> {
  protected:
    /// Waits until the device has destroyed everything the abandoned execution left.
    static bool retired_work_done(std::chrono::seconds limit) {
        const auto until = Clock::now() + limit;
        for (; Clock::now() < until; std::this_thread::sleep_for(std::chrono::milliseconds(20))) {
            device().retired_work().reap();
            if (device().retired_work().pending() == 0) return true;
        }
        return false;
    }
};

TEST_P(AbandonedExecutionTest, ACancelReturnsWithinASecondAndTheNextExecutionIsRight) {
    LongChain chain;
    chain.setup(*memory, 7);
    // About three seconds of GPU work, cancelled after a third of a second.
    const size_t dispatches = chain.dispatches_for(*executor, 3.0);
    const ComputeGraph graph = chain.record(*executor, dispatches);
    ExecuteOptions o;
    o.submit = GetParam().submit;
    o.queue_steps = GetParam().queue_steps;
    std::atomic<bool> cancel{false};
    std::atomic<int64_t> cancelled_at{0};
    o.cancelled = [&] { return cancel.load(); };
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        cancelled_at = Clock::now().time_since_epoch().count();
        cancel = true;
    });
    bool threw = false;
    try {
        if (o.submit == SubmitMode::ahead)
            executor->execute_steps(graph, o, 3);
        else
            executor->execute(graph, o);
    } catch (const RunCancelled&) {
        threw = true;
    }
    const auto returned = Clock::now();
    canceller.join();
    ASSERT_TRUE(threw) << "the execution of " << dispatches
                       << " dispatches ended before the cancel";
    const auto after_cancel = returned - Clock::time_point(Clock::duration(cancelled_at.load()));
    EXPECT_LT(after_cancel, std::chrono::seconds(1))
        << std::chrono::duration<double>(after_cancel).count() << " s after the cancel";
    // It gave up on a submission the GPU still runs: its objects wait for it.
    EXPECT_GT(device().retired_work().pending(), 0u);

    // What a cancelled run's caller does next: drop its executor and memory (destroyed after
    // the abandoned work), then run again on the same device in fresh memory.
    executor.reset();
    memory.reset();
    DeviceMemory fresh(device());
    GraphExecutor next(device(), fresh);
    LongChain short_chain;
    short_chain.setup(fresh, 11);
    const ComputeGraph short_graph = short_chain.record(next, 6);
    next.execute(short_graph);
    EXPECT_TRUE(bitwise_equal(fresh.download_as<float>(short_chain.result(fresh, 6)),
                              short_chain.expected(6)));
    EXPECT_TRUE(retired_work_done(std::chrono::seconds(120)));
    expect_no_validation_messages();
}

INSTANTIATE_TEST_SUITE_P(EverySubmitMode, AbandonedExecutionTest,
                         ::testing::Values(SubmitCase{"single", SubmitMode::single},
                                           SubmitCase{"dual_buffer", SubmitMode::dual_buffer},
                                           SubmitCase{"stream", SubmitMode::stream},
                                           SubmitCase{"per_dispatch", SubmitMode::per_dispatch},
                                           SubmitCase{"parallel", SubmitMode::parallel},
                                           SubmitCase{"ahead", SubmitMode::ahead},
                                           SubmitCase{"ahead_queued", SubmitMode::ahead, true}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace graphlens::test
