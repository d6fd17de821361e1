// A kernel with a descriptor array (descriptor_array_layout.h) dispatched directly and then
// indirectly with the same set: the capture states every array element's bytes for both, the
// indirect one also its arguments, so the barrier between them orders the result's write.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>

#include "descriptor_array_layout.h"
#include "graphlens/graph/race_finder.h"
#include "graphlens/graph/schedule_analysis.h"
#include "layer_test_support.h"

namespace graphlens {
namespace {

using namespace layer_test;
using namespace descriptor_array_program;

class DescriptorArrayCapture : public testing::Test {
  protected:
    // Recorded with the buffer contents (the indirect counts are read from them) and with the
    // program's own validation, synchronization validation included: exit 0 means no message.
    static void SetUpTestSuite() {
        recording_ =
            new Recording(record("--data", std::string(DESCRIPTOR_ARRAY_PROGRAM) + " --validate"));
        if (recording_->result.exit_code == 0)
            doc_ = new CaptureDocument(load_capture(recording_->capture_path));
    }
    static void TearDownTestSuite() {
        delete doc_;
        delete recording_;
    }
    void SetUp() override {
        ASSERT_EQ(recording_->result.exit_code, 0) << recording_->result.output;
        ASSERT_NE(doc_, nullptr);
    }
    static const ComputeGraph& graph() { return doc_->graph; }
    static const Node& dispatch_labelled(const std::string& label) {
        for (const Node& n : graph().nodes)
            if (n.is_dispatch() && n.label == label) return n;
        throw std::runtime_error("no dispatch labelled " + label);
    }
    static ByteRange bytes_of(BufferIndex b) {
        const uint64_t size = b == kArgs ? kArgsBytes : kBytes;
        return {0, b * kBytes, b * kBytes + size};
    }
    static std::vector<ByteRange> sorted(std::span<const ByteRange> ranges) {
        std::vector<ByteRange> v(ranges.begin(), ranges.end());
        std::sort(v.begin(), v.end(), [](const ByteRange& a, const ByteRange& b) {
            return std::tie(a.allocation, a.begin, a.end) < std::tie(b.allocation, b.begin, b.end);
        });
        return v;
    }

    static inline Recording* recording_ = nullptr;
    static inline CaptureDocument* doc_ = nullptr;
};

TEST_F(DescriptorArrayCapture, ADirectDispatchReadsEveryElementOfTheArray) {
    ASSERT_EQ(graph().allocations.size(), 1u);
    const Node& direct = dispatch_labelled(kDirect);
    EXPECT_TRUE(direct.ranges_known);
    EXPECT_EQ(sorted(direct.reads), (std::vector{bytes_of(kInput0), bytes_of(kInput1)}));
    EXPECT_EQ(sorted(direct.writes), (std::vector{bytes_of(kResult)}));
}

TEST_F(DescriptorArrayCapture, AnIndirectDispatchKeepsEveryElementAndReadsItsArguments) {
    const Node& direct = dispatch_labelled(kDirect);
    const Node& indirect = dispatch_labelled(kIndirect);
    EXPECT_TRUE(indirect.ranges_known);
    EXPECT_EQ(indirect.kernel, direct.kernel);
    std::vector<ByteRange> expected_reads = sorted(direct.reads);
    expected_reads.push_back(bytes_of(kArgs));
    EXPECT_EQ(sorted(indirect.reads), expected_reads);
    EXPECT_EQ(sorted(indirect.writes), sorted(direct.writes));
    EXPECT_EQ(indirect.workgroups, (std::array<uint32_t, 3>{kIndirectGroups[0], kIndirectGroups[1],
                                                            kIndirectGroups[2]}));
}

TEST_F(DescriptorArrayCapture, TheBarrierBetweenThemOrdersTheResultAndNothingRaces) {
    for (const Race& r : find_races(graph())) ADD_FAILURE() << r.explanation;
    const auto verdicts = explain_barriers(graph());
    ASSERT_EQ(verdicts.size(), 1u);
    EXPECT_FALSE(verdicts[0].redundant);
    ASSERT_EQ(verdicts[0].hazards.size(), 1u);
    EXPECT_EQ(verdicts[0].hazards[0].kind, HazardKind::waw);
    EXPECT_EQ(verdicts[0].hazards[0].overlap(), bytes_of(kResult));
}

TEST_F(DescriptorArrayCapture, ItsDispatchesAreAnalysedButNotReplayed) {
    // The capture states a descriptor array's elements as ranges, not as bound views (a view
    // names one buffer), so a replay would leave the array's descriptors unwritten: `run`
    // refuses rather than run the kernel on whatever the driver finds there.
    const CommandResult passes =
        run(std::string(GRAPHLENS_CLI) + " passes " + recording_->capture_path);
    EXPECT_EQ(passes.exit_code, 0) << passes.output;
    const CommandResult replay =
        run(std::string(GRAPHLENS_CLI) + " run " + recording_->capture_path + " --repeat 1");
    EXPECT_EQ(replay.exit_code, 1) << replay.output;
    EXPECT_NE(replay.output.find("'direct'): the capture states no buffers bound to sum_array"),
              std::string::npos)
        << replay.output;
    EXPECT_NE(replay.output.find("cannot be replayed"), std::string::npos) << replay.output;
    EXPECT_EQ(replay.output.find("as-recorded "), std::string::npos) << replay.output;
}

}  // namespace
}  // namespace graphlens
