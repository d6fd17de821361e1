// Event waits in a recorded program (event_layout.h): the wait orders the commands before the
// vkCmdSetEvent, not those between the set and the wait. A dispatch between them whose write
// the dispatch after the wait reads is a race, and synchronization validation says the same;
// a correct use of vkCmdSetEvent2 / vkCmdWaitEvents2 has none.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "event_layout.h"
#include "graphlens/graph/race_finder.h"
#include "graphlens/graph/schedule_analysis.h"
#include "layer_test_support.h"

namespace graphlens {
namespace {

using namespace layer_test;

CaptureDocument recorded(const std::string& which) {
    const Recording r = record("", std::string(EVENT_PROGRAM) + " --case " + which);
    EXPECT_EQ(r.result.exit_code, 0) << r.result.output;
    return load_capture(r.capture_path);
}

size_t node_labelled(const ComputeGraph& g, const std::string& label) {
    for (size_t i = 0; i < g.nodes.size(); ++i)
        if (g.nodes[i].is_dispatch() && g.nodes[i].label == label) return i;
    throw std::runtime_error("no dispatch labelled " + label);
}

size_t the_wait(const ComputeGraph& g) {
    for (size_t i = 0; i < g.nodes.size(); ++i)
        if (const BarrierScope* s = g.scope_of(g.nodes[i]);
            s && s->origin == BarrierOrigin::wait_events)
            return i;
    throw std::runtime_error("no event wait in the capture");
}

ByteRange buffer_bytes(event_program::BufferIndex b) {
    return {0, b * event_program::kBytes, (b + 1) * event_program::kBytes};
}

TEST(EventCapture, TheWaitKeepsWhereItsEventWasSet) {
    for (const char* which : {"racy", "ordered"}) {
        SCOPED_TRACE(which);
        const CaptureDocument doc = recorded(which);
        const ComputeGraph& g = doc.graph;
        const size_t wait = the_wait(g);
        EXPECT_LT(node_labelled(g, event_program::kBetween), wait);
        const BarrierScope& scope = *g.scope_of(g.nodes[wait]);
        ASSERT_EQ(scope.dependencies.size(), 1u);
        // Set right after "before_set", so before "between".
        EXPECT_EQ(scope.dependencies[0].event_set_at,
                  node_labelled(g, event_program::kBeforeSet) + 1);
    }
}

TEST(EventCapture, AWriteBetweenSetAndWaitReadAfterTheWaitIsARace) {
    const CaptureDocument doc = recorded("racy");
    const ComputeGraph& g = doc.graph;
    const auto races = find_races(g);
    ASSERT_EQ(races.size(), 1u);
    const Hazard& h = races[0].hazard;
    EXPECT_EQ(h.kind, HazardKind::raw);
    EXPECT_EQ(h.earlier, node_labelled(g, event_program::kBetween));
    EXPECT_EQ(h.later, node_labelled(g, event_program::kAfter));
    EXPECT_EQ(h.overlap(), buffer_bytes(event_program::kY));
    ASSERT_EQ(races[0].barriers.size(), 1u);
    EXPECT_NE(races[0].barriers[0].why.find("after the vkCmdSetEvent"), std::string::npos)
        << races[0].explanation;
    // The write of x before the set is what the wait orders: the wait is needed for it.
    const auto verdicts = explain_barriers(g);
    ASSERT_EQ(verdicts.size(), 1u);
    EXPECT_FALSE(verdicts[0].redundant);
    ASSERT_EQ(verdicts[0].hazards.size(), 1u);
    EXPECT_EQ(verdicts[0].hazards[0].overlap(), buffer_bytes(event_program::kX));
}

TEST(EventCapture, ACorrectEventUseHasNoRaceAndItsWaitIsNeeded) {
    const CaptureDocument doc = recorded("ordered");
    const ComputeGraph& g = doc.graph;
    for (const Race& r : find_races(g)) ADD_FAILURE() << r.explanation;
    const auto verdicts = explain_barriers(g);
    ASSERT_EQ(verdicts.size(), 1u);
    EXPECT_FALSE(verdicts[0].redundant);
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

TEST(EventUnderValidation, SyncValidationReportsTheRaceOnYAndNothingForTheCorrectUse) {
    const auto racy = run(std::string(EVENT_PROGRAM) + " --case racy --validate");
    EXPECT_EQ(racy.exit_code, 3) << racy.output;
    EXPECT_EQ(count(racy.output, "validation error"), 1u) << racy.output;
    EXPECT_EQ(count(racy.output, "[SYNC-HAZARD-READ-AFTER-WRITE]"), 1u) << racy.output;
    EXPECT_NE(racy.output.find("[y]"), std::string::npos) << racy.output;

    const auto ordered = run(std::string(EVENT_PROGRAM) + " --case ordered --validate");
    EXPECT_EQ(ordered.exit_code, 0) << ordered.output;
    EXPECT_EQ(count(ordered.output, "SYNC-HAZARD"), 0u) << ordered.output;
}

}  // namespace
}  // namespace graphlens
