// RecordingThreads, the workers of SubmitMode::parallel: every job index runs once, index 0 on
// the caller; the lowest failing index's exception comes back; the threads serve the next job.
#include "graphlens/vulkan/recording_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace graphlens {
namespace {

TEST(RecordingThreads, RunsEveryIndexOnceAndTheFirstOnTheCaller) {
    RecordingThreads threads(3);
    ASSERT_EQ(threads.size(), 4u);
    for (size_t n : {4u, 2u, 1u, 0u, 4u}) {  // fewer jobs than threads, none, all again
        std::vector<std::atomic<int>> calls(4);
        std::mutex m;
        std::set<std::thread::id> ids;
        std::thread::id first;
        threads.run(n, [&](size_t i) {
            ++calls[i];
            std::lock_guard lock(m);
            ids.insert(std::this_thread::get_id());
            if (i == 0) first = std::this_thread::get_id();
        });
        for (size_t i = 0; i < 4; ++i) EXPECT_EQ(calls[i].load(), i < n ? 1 : 0) << n << " " << i;
        EXPECT_EQ(ids.size(), n) << "one thread a job";
        if (n > 0) {
            EXPECT_EQ(first, std::this_thread::get_id());
        }
    }
}

TEST(RecordingThreads, RethrowsTheLowestFailingJobAndKeepsWorking) {
    RecordingThreads threads(2);
    try {
        threads.run(3, [](size_t i) {
            if (i > 0) throw std::runtime_error("job " + std::to_string(i));
        });
        ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "job 1");
    }
    std::atomic<int> done = 0;
    threads.run(3, [&](size_t) { ++done; });
    EXPECT_EQ(done.load(), 3);
    EXPECT_THROW(threads.run(4, [](size_t) {}), std::invalid_argument);
}

}  // namespace
}  // namespace graphlens
