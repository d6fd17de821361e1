// Specification of races (hazards nothing orders) and of recorded barriers, which order only
// what their scope covers.
#include "graphlens/graph/race_finder.h"

#include <gtest/gtest.h>

#include "graph_test_support.h"
#include "graphlens/graph/schedule_analysis.h"

namespace graphlens {
namespace {
using testing::R;
using testing::TinyGraph;

// vkCmdPipelineBarrier(COMPUTE -> COMPUTE, SHADER_WRITE -> SHADER_READ), global.
BarrierScope compute_write_to_read() {
    BarrierScope s;
    s.dependencies.push_back(
        {kStageCompute, kStageCompute, kAccessShaderWrite, kAccessShaderRead, std::nullopt});
    return s;
}

// An execution dependency only (no access masks): orders reads before writes, nothing else.
BarrierScope execution_only() {
    BarrierScope s;
    s.dependencies.push_back({kStageCompute, kStageCompute, 0, 0, std::nullopt});
    return s;
}

BarrierScope buffer_barrier(const ByteRange& r) {
    BarrierScope s = compute_write_to_read();
    s.dependencies[0].range = r;
    return s;
}

size_t add_transfer_kernel(ComputeGraph& g) {
    KernelInfo fill;
    fill.name = "vkCmdFillBuffer";
    fill.stage = kStageTransfer;
    return g.add_kernel(fill);
}

TEST(RaceFinder, AHazardWithNoBarrierBetweenIsARace) {
    TinyGraph t;
    t.dispatch("w", {}, {R(0, 0, 16)});
    t.dispatch("r", {R(0, 0, 16)}, {R(1, 0, 16)});
    const auto races = find_races(t.graph);
    ASSERT_EQ(races.size(), 1u);
    EXPECT_EQ(races[0].hazard.kind, HazardKind::raw);
    EXPECT_EQ(races[0].hazard.earlier, 0u);
    EXPECT_EQ(races[0].hazard.later, 1u);
    EXPECT_TRUE(races[0].barriers.empty());
    EXPECT_EQ(races[0].explanation,
              "RAW on 'buf0' bytes 0..16: 'w' (node 0) then 'r' (node 1) with no barrier between");
}

TEST(RaceFinder, AFullBarrierOrdersEveryHazard) {
    TinyGraph t;
    t.dispatch("w", {}, {R(0, 0, 16)});
    t.barrier();
    t.dispatch("r", {R(0, 0, 16)}, {R(0, 0, 16)});
    EXPECT_TRUE(find_races(t.graph).empty());
    EXPECT_TRUE(schedule_is_valid(t.graph, HazardIndex(t.graph)));
}

TEST(RaceFinder, AScopedBarrierOrdersOnlyTheAccessesItNames) {
    TinyGraph t;
    t.dispatch("w", {}, {R(0, 0, 16)});
    t.graph.add_barrier(compute_write_to_read());
    t.dispatch("r", {R(0, 0, 16)}, {});
    EXPECT_TRUE(find_races(t.graph).empty());

    TinyGraph waw;
    waw.dispatch("w1", {}, {R(0, 0, 16)});
    waw.graph.add_barrier(compute_write_to_read());  // makes writes visible to reads only
    waw.dispatch("w2", {}, {R(0, 0, 16)});
    const auto races = find_races(waw.graph);
    ASSERT_EQ(races.size(), 1u);
    EXPECT_EQ(races[0].hazard.kind, HazardKind::waw);
    ASSERT_EQ(races[0].barriers.size(), 1u);
    EXPECT_EQ(races[0].barriers[0].barrier, 1u);
    EXPECT_EQ(races[0].barriers[0].why,
              "no memory dependency makes shader writes visible to shader writes");
    EXPECT_FALSE(schedule_is_valid(waw.graph, HazardIndex(waw.graph)));
}

TEST(RaceFinder, AnExecutionDependencyOrdersAWriteAfterReadButNotAReadAfterWrite) {
    TinyGraph war;
    war.dispatch("r", {R(0, 0, 16)}, {});
    war.graph.add_barrier(execution_only());
    war.dispatch("w", {}, {R(0, 0, 16)});
    EXPECT_TRUE(find_races(war.graph).empty());

    TinyGraph raw;
    raw.dispatch("w", {}, {R(0, 0, 16)});
    raw.graph.add_barrier(execution_only());
    raw.dispatch("r", {R(0, 0, 16)}, {});
    ASSERT_EQ(find_races(raw.graph).size(), 1u);
}

TEST(RaceFinder, ABufferBarrierOrdersOnlyTheBytesItHolds) {
    TinyGraph t;
    t.dispatch("w", {}, {R(0, 0, 64)});
    t.graph.add_barrier(buffer_barrier(R(0, 0, 32)));
    t.dispatch("r_inside", {R(0, 0, 32)}, {});
    t.dispatch("r_across", {R(0, 16, 64)}, {});
    const auto races = find_races(t.graph);
    ASSERT_EQ(races.size(), 1u);
    EXPECT_EQ(races[0].hazard.later, 3u);
    EXPECT_EQ(races[0].barriers[0].why,
              "its buffer barrier covers bytes 0..32 of 'buf0', not 16..64");
}

TEST(RaceFinder, StagesMustMatchTheCommandsOnEitherSide) {
    TinyGraph t;
    Node fill;
    fill.kernel = static_cast<KernelId>(add_transfer_kernel(t.graph));
    fill.label = "fill";
    fill.writes = {R(0, 0, 16)};
    t.graph.add_dispatch(fill);
    t.graph.add_barrier(compute_write_to_read());  // compute -> compute: not the fill
    t.dispatch("r", {R(0, 0, 16)}, {});
    const auto races = find_races(t.graph);
    ASSERT_EQ(races.size(), 1u);
    EXPECT_EQ(races[0].barriers[0].why,
              "its stages order compute before compute, not transfer before compute");

    BarrierScope transfer_to_compute;
    transfer_to_compute.dependencies.push_back(
        {kStageTransfer, kStageCompute, kAccessTransferWrite, kAccessShaderRead, std::nullopt});
    t.graph.barrier_scopes[0] = transfer_to_compute;
    EXPECT_TRUE(find_races(t.graph).empty());
}

TEST(RaceFinder, OneOfSeveralBarriersCoveringTheHazardIsEnough) {
    TinyGraph t;
    t.dispatch("w", {}, {R(0, 0, 16)});
    t.graph.add_barrier(execution_only());
    t.graph.add_barrier(compute_write_to_read());
    t.dispatch("r", {R(0, 0, 16)}, {});
    EXPECT_TRUE(find_races(t.graph).empty());
    EXPECT_TRUE(hazard_is_ordered(t.graph, HazardIndex(t.graph).hazards()[0]));
}

TEST(ScopedBarrierVerdicts, ABarrierIsNeededWhenItAloneCoversAHazard) {
    TinyGraph t;
    t.dispatch("w", {}, {R(0, 0, 16)});
    t.graph.add_barrier(execution_only());         // covers nothing here: redundant
    t.graph.add_barrier(compute_write_to_read());  // alone orders the RAW: needed
    t.dispatch("r", {R(0, 0, 16)}, {});
    t.graph.add_barrier(compute_write_to_read());  // nothing after it: redundant
    const auto e = explain_barriers(t.graph);
    ASSERT_EQ(e.size(), 3u);
    EXPECT_TRUE(e[0].redundant);
    EXPECT_FALSE(e[1].redundant);
    ASSERT_EQ(e[1].hazards.size(), 1u);
    EXPECT_EQ(e[1].hazard_positions, (std::vector<size_t>{0}));
    EXPECT_TRUE(e[2].redundant);
}

TEST(ScopedBarrierVerdicts, TwoBarriersThatBothCoverAHazardAreEachRedundantAlone) {
    TinyGraph t;
    t.dispatch("w", {}, {R(0, 0, 16)});
    t.graph.add_barrier(compute_write_to_read());
    t.graph.add_barrier(compute_write_to_read());
    t.dispatch("r", {R(0, 0, 16)}, {});
    const auto e = explain_barriers(t.graph);
    ASSERT_EQ(e.size(), 2u);
    EXPECT_TRUE(e[0].redundant);
    EXPECT_TRUE(e[1].redundant);
}

TEST(ScopedBarrierVerdicts, AGraphOfFullBarriersGetsTheSameVerdictsAsBefore) {
    // Full barriers: needed exactly when a hazard's ends are in the groups either side.
    TinyGraph t;
    t.dispatch("w", {}, {R(0, 0, 16)});
    t.barrier();
    t.dispatch("x", {}, {R(1, 0, 16)});
    t.barrier();
    t.dispatch("r", {R(0, 0, 16), R(1, 0, 16)}, {});
    const auto e = explain_barriers(t.graph);
    ASSERT_EQ(e.size(), 2u);
    EXPECT_TRUE(e[0].redundant);  // w->r spans both barriers; x->r crosses only the second
    EXPECT_FALSE(e[1].redundant);
    EXPECT_EQ(e[1].hazards.size(), 1u);
}

TEST(ScopedBarrierVerdicts, AScopeIndexOutsideTheGraphIsAValidationError) {
    TinyGraph t;
    t.graph.nodes.push_back(Node::barrier(3));
    const auto errors = t.graph.validate();
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0], "node 0: barrier scope 2 does not exist");
}

}  // namespace
}  // namespace graphlens
