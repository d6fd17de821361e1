// Specification of event waits (vkCmdWaitEvents[2]): the wait is a barrier node whose
// dependencies order only the commands recorded before the event's vkCmdSetEvent
// (MemoryDependency::event_set_at), never those between the set and the wait.
#include <gtest/gtest.h>

#include "graph_test_support.h"
#include "graphlens/graph/race_finder.h"
#include "graphlens/graph/schedule_analysis.h"

namespace graphlens {
namespace {
using testing::R;
using testing::TinyGraph;

// vkCmdWaitEvents(COMPUTE -> COMPUTE, SHADER_WRITE -> SHADER_READ) for an event set right
// before node `set_at`.
BarrierScope wait_for_event_set_at(uint32_t set_at) {
    BarrierScope s;
    s.origin = BarrierOrigin::wait_events;
    MemoryDependency d;
    d.src_stages = kStageCompute;
    d.dst_stages = kStageCompute;
    d.src_access = kAccessShaderWrite;
    d.dst_access = kAccessShaderRead;
    d.event_set_at = set_at;
    s.dependencies.push_back(d);
    return s;
}

// before_set writes x; the event is set; between writes y; the wait; after reads x and y.
TinyGraph set_between_wait(uint32_t set_at = 1) {
    TinyGraph t(3);
    t.dispatch("before_set", {}, {R(0, 0, 16)});
    t.dispatch("between", {}, {R(1, 0, 16)});
    t.graph.add_barrier(wait_for_event_set_at(set_at));
    t.dispatch("after", {R(0, 0, 16), R(1, 0, 16)}, {R(2, 0, 16)});
    return t;
}

TEST(EventWait, OrdersTheCommandsBeforeTheSetAgainstThoseAfterTheWait) {
    const TinyGraph t = set_between_wait();
    const auto races = find_races(t.graph);
    for (const Race& r : races) EXPECT_NE(r.hazard.earlier, 0u) << r.explanation;
}

TEST(EventWait, ACommandBetweenTheSetAndTheWaitRacesWithTheCommandsAfterTheWait) {
    const TinyGraph t = set_between_wait();
    const auto races = find_races(t.graph);
    ASSERT_EQ(races.size(), 1u);
    EXPECT_EQ(races[0].hazard.kind, HazardKind::raw);
    EXPECT_EQ(races[0].hazard.earlier, 1u);
    EXPECT_EQ(races[0].hazard.later, 3u);
    ASSERT_EQ(races[0].barriers.size(), 1u);
    EXPECT_EQ(races[0].barriers[0].barrier, 2u);
    EXPECT_EQ(races[0].barriers[0].why,
              "node 1 is recorded after the vkCmdSetEvent its wait waits for (set after node "
              "0): an event orders only the commands before its set");
    EXPECT_FALSE(schedule_is_valid(t.graph, HazardIndex(t.graph)));
}

TEST(EventWait, SetAfterBothCommandsOrdersBoth) {
    const TinyGraph t = set_between_wait(2);
    EXPECT_TRUE(find_races(t.graph).empty());
    EXPECT_TRUE(schedule_is_valid(t.graph, HazardIndex(t.graph)));
}

TEST(EventWait, SetBeforeEveryCommandOrdersNoneAndSaysSo) {
    const TinyGraph t = set_between_wait(0);
    const auto races = find_races(t.graph);
    ASSERT_EQ(races.size(), 2u);
    EXPECT_NE(races[0].barriers[0].why.find("set before the captured commands"), std::string::npos)
        << races[0].barriers[0].why;
}

TEST(EventWait, AWriteAfterReadNeedsTheReadBeforeTheSetToo) {
    TinyGraph t;
    t.dispatch("read_between", {R(0, 0, 16)}, {});
    BarrierScope s = wait_for_event_set_at(0);
    s.dependencies[0].src_access = 0;  // an execution dependency orders a read before a write
    s.dependencies[0].dst_access = 0;
    t.graph.add_barrier(s);
    t.dispatch("write_after", {}, {R(0, 0, 16)});
    ASSERT_EQ(find_races(t.graph).size(), 1u);
    t.graph.barrier_scopes[0].dependencies[0].event_set_at = 1;
    EXPECT_TRUE(find_races(t.graph).empty());
}

TEST(EventWaitVerdicts, AWaitWhoseSetFollowsTheHazardsEarlierEndIsRedundantForIt) {
    // A pipeline barrier before the wait orders "between"; the wait orders "before_set" alone.
    TinyGraph t(3);
    t.dispatch("before_set", {}, {R(0, 0, 16)});
    t.dispatch("between", {}, {R(1, 0, 16)});
    BarrierScope pipeline_barrier = wait_for_event_set_at(0);
    pipeline_barrier.origin = BarrierOrigin::pipeline_barrier;
    pipeline_barrier.dependencies[0].event_set_at.reset();
    pipeline_barrier.dependencies[0].range = R(1, 0, 16);  // only y: leaves x to the wait
    t.graph.add_barrier(pipeline_barrier);
    t.graph.add_barrier(wait_for_event_set_at(1));
    t.dispatch("after", {R(0, 0, 16), R(1, 0, 16)}, {R(2, 0, 16)});
    EXPECT_TRUE(find_races(t.graph).empty());
    const auto e = explain_barriers(t.graph);
    ASSERT_EQ(e.size(), 2u);
    ASSERT_EQ(e[0].hazards.size(), 1u);  // between -> after on y: only the pipeline barrier
    EXPECT_EQ(e[0].hazards[0].earlier, 1u);
    ASSERT_EQ(e[1].hazards.size(), 1u);  // before_set -> after on x: only the wait
    EXPECT_EQ(e[1].hazards[0].earlier, 0u);
    EXPECT_FALSE(e[0].redundant);
    EXPECT_FALSE(e[1].redundant);

    // Moved after "between", the set lets the wait order y too: the buffer barrier is then
    // redundant.
    t.graph.barrier_scopes[1].dependencies[0].event_set_at = 2;
    const auto moved = explain_barriers(t.graph);
    EXPECT_TRUE(moved[0].redundant);
    EXPECT_FALSE(moved[1].redundant);
}

TEST(EventWaitVerdicts, ASetAfterItsWaitIsAValidationError) {
    TinyGraph t = set_between_wait();
    t.graph.barrier_scopes[0].dependencies[0].event_set_at = 3;
    const auto errors = t.graph.validate();
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0], "node 2: its event was set at node 3, after the wait");
}

}  // namespace
}  // namespace graphlens
