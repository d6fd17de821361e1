// A recorded compute pipeline's create flags in a replay: those valid without state the replay
// lacks are passed on, each other one is named with why it is left out.
#include <gtest/gtest.h>

#include "vulkan/src/replayed_pipeline_flags.h"

namespace graphlens {
namespace {

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
    for (const auto& l : lines)
        if (l.find(text) != std::string::npos) return true;
    return false;
}

TEST(ReplayedPipelineFlags, FlagsThatChangeNothingComputedAreReplayed) {
    const VkPipelineCreateFlags recorded = VK_PIPELINE_CREATE_DISABLE_OPTIMIZATION_BIT |
                                           VK_PIPELINE_CREATE_ALLOW_DERIVATIVES_BIT |
                                           VK_PIPELINE_CREATE_DISPATCH_BASE_BIT;
    const ReplayedPipelineFlags r = replayed_pipeline_flags(recorded, false);
    EXPECT_EQ(r.flags, recorded);
    EXPECT_TRUE(r.dropped.empty());
}

TEST(ReplayedPipelineFlags, StatisticsAreCapturedWhereTheDeviceHasExecutableInfo) {
    const VkPipelineCreateFlags recorded =
        VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR |
        VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
    const ReplayedPipelineFlags with = replayed_pipeline_flags(recorded, true);
    EXPECT_EQ(with.flags, recorded);
    EXPECT_TRUE(with.dropped.empty());
    const ReplayedPipelineFlags without = replayed_pipeline_flags(recorded, false);
    EXPECT_EQ(without.flags, 0u);
    ASSERT_EQ(without.dropped.size(), 2u);
    EXPECT_TRUE(mentions(without.dropped,
                         "0x40 (CAPTURE_STATISTICS) is not replayed: it needs "
                         "the pipelineExecutableInfo feature"));
    EXPECT_TRUE(mentions(without.dropped, "0x80 (CAPTURE_INTERNAL_REPRESENTATIONS)"));
}

TEST(ReplayedPipelineFlags, FlagsNeedingStateTheReplayLacksAreNamedWithWhy) {
    const ReplayedPipelineFlags r =
        replayed_pipeline_flags(VK_PIPELINE_CREATE_DERIVATIVE_BIT |
                                    VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT |
                                    VK_PIPELINE_CREATE_DISABLE_OPTIMIZATION_BIT | 0x40000000u,
                                true);
    EXPECT_EQ(r.flags, VkPipelineCreateFlags{VK_PIPELINE_CREATE_DISABLE_OPTIMIZATION_BIT});
    ASSERT_EQ(r.dropped.size(), 3u);
    EXPECT_TRUE(mentions(r.dropped,
                         "0x4 (DERIVATIVE) is not replayed: it needs the program's "
                         "base pipeline"));
    EXPECT_TRUE(mentions(r.dropped, "0x100 (FAIL_ON_PIPELINE_COMPILE_REQUIRED) is not replayed"));
    EXPECT_TRUE(mentions(r.dropped, "0x40000000 is not replayed: not a flag"));
}

}  // namespace
}  // namespace graphlens
