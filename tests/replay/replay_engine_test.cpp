// engine_program (tests/layer/programs) recorded and replayed: every GraphLens plan computes
// the bytes the program's own plan computes, and synchronization validation finds the
// program's planted missing barrier in its own plan only.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "graphlens/capture/capture_file.h"
#include "replay_test_support.h"

namespace graphlens {
namespace {

using namespace layer_test;
using namespace replay_test;

class EngineReplay : public testing::Test {
  protected:
    // Each test of the suite runs in a process of its own, in parallel with the others: each
    // records into a file of its own.
    static void SetUpTestSuite() {
        recording_ = new Recording;
        recording_->capture_path = scratch_path("." + std::to_string(getpid()) + ".json");
        recording_->result = run(std::string(GRAPHLENS_CLI) + " record -o " +
                                 recording_->capture_path + " -- " + ENGINE_PROGRAM);
    }
    static void TearDownTestSuite() { delete recording_; }
    void SetUp() override {
        ASSERT_EQ(recording_->result.exit_code, 0) << recording_->result.output;
    }
    static Recording* recording_;
};
Recording* EngineReplay::recording_ = nullptr;

TEST_F(EngineReplay, EveryModeLeavesTheBytesAsRecordedLeaves) {
    const auto r = run_capture(recording_->capture_path);
    for (const char* mode : kModes) {
        const auto line = mode_line(r.output, mode);
        ASSERT_TRUE(line) << mode << " missing:\n" << r.output;
        EXPECT_NE(line->find("bitwise"), std::string::npos) << *line;
    }
    EXPECT_NE(r.output.find("every buffer starts zeroed"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("fusion: off"), std::string::npos) << r.output;
}

TEST_F(EngineReplay, OnlyTheProgramsOwnPlanHasTheMissingBarrier) {
    // Dispatch 3 reads what dispatch 2 wrote with no barrier between (planted): replayed as
    // the program recorded it, synchronization validation reports the hazard, and `run` exits
    // non-zero; every plan of GraphLens's orders the two.
    const auto r = run_capture(recording_->capture_path);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("the validation layer reported errors"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("SYNC-HAZARD-READ-AFTER-WRITE"), std::string::npos) << r.output;
    for (const char* mode : kModes) {
        const auto line = mode_line(r.output, mode);
        ASSERT_TRUE(line) << mode;
        const bool own_plan =
            std::string(mode) == "as-recorded" || std::string(mode) == "one-submission";
        if (own_plan)
            EXPECT_GT(validation_errors(*line), 0) << *line;
        else
            EXPECT_EQ(validation_errors(*line), 0) << *line;
    }
}

}  // namespace
}  // namespace graphlens
