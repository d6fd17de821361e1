// The environment variables `record` sets and the layer reads: one parser for both.
#include <gtest/gtest.h>

#include <map>

#include "graphlens/layer/capture_settings.h"

namespace graphlens::layer {
namespace {

CaptureSettings parse(std::map<std::string, std::string> env) {
    return parse_capture_settings([&](const char* n) {
        auto it = env.find(n);
        return it == env.end() ? nullptr : it->second.c_str();
    });
}

TEST(CaptureSettings, WithoutARangeTheFirstSubmissionWithADispatchIsCaptured) {
    const auto s = parse({{kEnvOutput, "x.json"}});
    EXPECT_EQ(s.output, "x.json");
    EXPECT_EQ(s.range.kind, RangeKind::first_dispatch_submission);
    EXPECT_EQ(s.range.describe(), "first submission with a dispatch");
}

TEST(CaptureSettings, RangesReadAsTheUserWroteThem) {
    EXPECT_EQ(parse({{kEnvSubmits, "2..5"}}).range.describe(), "submits 2..5");
    EXPECT_EQ(parse({{kEnvSubmits, "3"}}).range.describe(), "submit 3");
    EXPECT_EQ(parse({{kEnvAfterDispatches, "100"}, {kEnvDispatches, "100"}}).range.describe(),
              "dispatches 100..199");
    EXPECT_EQ(parse({{kEnvLabel, "decode"}}).range.describe(), "label decode");
}

TEST(CaptureSettings, MalformedOrConflictingRangesAreRefused) {
    EXPECT_THROW(parse({{kEnvSubmits, "5..2"}}), std::invalid_argument);
    EXPECT_THROW(parse({{kEnvSubmits, "a..b"}}), std::invalid_argument);
    EXPECT_THROW(parse({{kEnvDispatches, "0"}}), std::invalid_argument);
    EXPECT_THROW(parse({{kEnvSubmits, "1"}, {kEnvLabel, "x"}}), std::invalid_argument);
}

}  // namespace
}  // namespace graphlens::layer
