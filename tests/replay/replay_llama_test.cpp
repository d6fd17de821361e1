// The kept capture of llama.cpp's own Vulkan decode step (tests/data/captures), replayed on
// lavapipe with synchronization validation: llama.cpp's plan and every GraphLens plan leave
// the same bytes, and none of them has a hazard.
#include <gtest/gtest.h>

#include "replay_test_support.h"

namespace graphlens {
namespace {

using namespace replay_test;

TEST(LlamaReplay, EveryModeEqualsLlamaCppsOwnPlanWithoutHazards) {
    const auto r = run_capture(std::string(CAPTURES_DIR) + "/llama_tiny_decode_recorded.json");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const char* mode : kModes) {
        const auto line = mode_line(r.output, mode);
        ASSERT_TRUE(line) << mode << " missing:\n" << r.output;
        EXPECT_NE(line->find("bitwise"), std::string::npos) << *line;
        EXPECT_EQ(validation_errors(*line), 0) << *line;
    }
    // 36 commands: llama.cpp's own 25 barriers against the 23 the byte ranges need.
    EXPECT_NE(mode_line(r.output, "as-recorded")->find(" 36     25 "), std::string::npos)
        << r.output;
    EXPECT_NE(mode_line(r.output, "elided")->find(" 36     23 "), std::string::npos) << r.output;
}

}  // namespace
}  // namespace graphlens
