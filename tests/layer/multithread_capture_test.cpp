// Command buffers recorded on four threads at once, submitted together: the capture holds
// every command of every buffer, in submission order, none lost or mixed.
#include <gtest/gtest.h>

#include "layer_test_support.h"
#include "multithread_layout.h"

namespace graphlens {
namespace {

using namespace layer_test;
using namespace multithread;

TEST(MultithreadCapture, EveryCommandOfEveryBufferInSubmissionOrder) {
    const auto r = record("", MULTITHREAD_PROGRAM);
    ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
    const CaptureDocument doc = load_capture(r.capture_path);
    const ComputeGraph& g = doc.graph;
    ASSERT_EQ(g.dispatch_count(), size_t(kThreads * kDispatchesPerThread));
    ASSERT_EQ(g.allocations.size(), 1u);
    size_t k = 0;
    for (const auto& n : g.nodes) {
        if (!n.is_dispatch()) continue;
        const uint32_t t = uint32_t(k / kDispatchesPerThread),
                       i = uint32_t(k % kDispatchesPerThread);
        EXPECT_EQ(std::string(n.label), "t" + std::to_string(t) + ".d" + std::to_string(i));
        ASSERT_EQ(n.writes.size(), 1u);
        const uint64_t begin = kInSize + k * kSlice;
        EXPECT_EQ(n.writes[0], (ByteRange{0, begin, begin + kSlice})) << n.label;
        ++k;
    }
}

}  // namespace
}  // namespace graphlens
