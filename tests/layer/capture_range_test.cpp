// `record`'s range options select what they say, and a program with nothing to capture makes
// `record` fail with the reason.
#include <gtest/gtest.h>

#include "engine_layout.h"
#include "layer_test_support.h"

namespace graphlens {
namespace {

using namespace layer_test;

std::vector<std::string> dispatch_labels(const ComputeGraph& g) {
    std::vector<std::string> out;
    for (const auto& n : g.nodes)
        if (n.is_dispatch() && g.kernels[n.kernel].stage == kStageCompute) out.push_back(n.label);
    return out;
}

CaptureDocument recorded(const std::string& options) {
    const auto r = record(options, ENGINE_PROGRAM);
    EXPECT_EQ(r.result.exit_code, 0) << r.result.output;
    return load_capture(r.capture_path);
}

TEST(CaptureRange, SubmitsSelectTheirSubmissionsAndStateHowEachWasOrdered) {
    const CaptureDocument doc = recorded("--submits 0..2");
    EXPECT_EQ(dispatch_labels(doc.graph),
              (std::vector<std::string>{engine::kLabels, engine::kLabels + 6}));
    ASSERT_TRUE(doc.source);
    ASSERT_EQ(doc.source->submissions.size(), 3u);
    EXPECT_EQ(doc.source->submissions[1].sync, "host wait");
    EXPECT_EQ(doc.source->submissions[2].sync, "semaphore");
    // The fill is a node of its own, on the transfer pseudo-kernel named after the command.
    const Node& fill = doc.graph.nodes.at(doc.source->submissions[0].first_node);
    EXPECT_EQ(doc.graph.kernels[fill.kernel].name, "vkCmdFillBuffer");
    EXPECT_EQ(doc.graph.kernels[fill.kernel].stage, kStageTransfer);
    // Each synchronised boundary is a barrier node of origin "submission".
    size_t submission_barriers = 0;
    for (const auto& n : doc.graph.nodes)
        if (const BarrierScope* s = doc.graph.scope_of(n);
            n.is_barrier() && s && s->origin == BarrierOrigin::submission)
            ++submission_barriers;
    EXPECT_EQ(submission_barriers, 2u);
}

TEST(CaptureRange, ASingleSubmit) {
    EXPECT_EQ(dispatch_labels(recorded("--submits 2").graph), std::vector<std::string>{"copy.1"});
}

TEST(CaptureRange, ACommandBufferLabelSelectsTheCommandsInsideIt) {
    EXPECT_EQ(dispatch_labels(recorded("--label frame").graph),
              (std::vector<std::string>{engine::kLabels, engine::kLabels + 5}));
    EXPECT_EQ(dispatch_labels(recorded("--label add.1").graph), std::vector<std::string>{"add.1"});
}

TEST(CaptureRange, AQueueLabelSelectsTheSubmissionsInsideIt) {
    EXPECT_EQ(dispatch_labels(recorded("--label finalize").graph),
              std::vector<std::string>{"copy.1"});
}

TEST(CaptureRange, DispatchCountsSelectThoseDispatches) {
    EXPECT_EQ(dispatch_labels(recorded("--after-dispatches 1 --dispatches 3").graph),
              (std::vector<std::string>{"add.0", "copy.0", "scale.1"}));
}

TEST(CaptureRange, AProgramThatNeverDispatchesMakesRecordFailWithTheReason) {
    const auto r = record("", std::string(ENGINE_PROGRAM) + " --no-dispatch");
    EXPECT_NE(r.result.exit_code, 0);
    EXPECT_NE(r.result.output.find("no capture was written"), std::string::npos) << r.result.output;
    EXPECT_NE(r.result.output.find("no submission contained a dispatch"), std::string::npos)
        << r.result.output;
}

TEST(CaptureRange, ARangeBeyondTheProgramSaysWhatThereWas) {
    const auto r = record("--submits 7..9", ENGINE_PROGRAM);
    EXPECT_NE(r.result.exit_code, 0);
    EXPECT_NE(r.result.output.find("made 3 queue submissions"), std::string::npos)
        << r.result.output;
}

TEST(CaptureRange, AProgramThatCannotStartIsReported) {
    const auto r = record("", "/nonexistent/program");
    EXPECT_NE(r.result.exit_code, 0);
    EXPECT_NE(r.result.output.find("cannot start '/nonexistent/program'"), std::string::npos)
        << r.result.output;
}

}  // namespace
}  // namespace graphlens
