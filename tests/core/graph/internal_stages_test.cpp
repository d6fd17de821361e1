// Specification of a kernel's internal stages: a declaration checked against the reflected
// bindings, and a node's stages with their byte ranges and the hazards the in-kernel ordering
// keeps, by the barrier planner's hazard rule.
#include "graphlens/graph/internal_stages.h"

#include <gtest/gtest.h>

#include "graphlens/graph/kernel_stage_check.h"

namespace graphlens {
namespace {

using A = BindingAccess;

// A kernel shaped like the split-k mat-vec's _anq8 variant: every workgroup writes rows of y
// (binding 2) from w and x (0, 1) and counts its arrival (8); the last one reads y and the
// residual (9), writes the sum (10) and its normed q8x row (12) with the norm's weights (11).
KernelInfo add_norm_kernel() {
    KernelInfo k;
    k.name = "matvec_anq8_like";
    k.bindings = {{0, A::read, "W"},         {1, A::read, "X"},       {2, A::read_write, "Y"},
                  {8, A::read_write, "Arr"}, {9, A::read, "Res"},     {10, A::write, "Sum"},
                  {11, A::read, "NormMul"},  {12, A::write, "NormQ8"}};
    k.stages = {
        {"rows of y", {{0, 0}, {0, 1}}, {{0, 2}}, StageOrder::first, {}, {}},
        {"add + norm + q8",
         {{0, 2}, {0, 9}, {0, 11}},
         {{0, 10}, {0, 12}},
         StageOrder::last_arrival,
         {0, 8},
         {}},
    };
    return k;
}

// One node of that kernel; every binding its own allocation of 256 bytes but the residual,
// which is the sum's bytes (an in-place residual stream), and y, which is x's allocation
// after x's bytes.
struct AddNormGraph {
    AddNormGraph() {
        for (const char* name : {"w", "x_and_y", "arrivals", "residual", "norm_mul", "q8"})
            g.add_allocation(name, 256, AllocationUsage::scratch);
        Node n;
        n.label = "blk.0.ffn_down";
        n.kernel = g.add_kernel(add_norm_kernel());
        n.bindings = {{0, {0, 0, 256}}, {1, {1, 0, 128}}, {2, {1, 128, 128}}, {8, {2, 0, 4}},
                      {9, {3, 0, 64}},  {10, {3, 0, 64}}, {11, {4, 0, 64}},   {12, {5, 0, 80}}};
        node = g.add_dispatch(std::move(n));
    }
    ComputeGraph g;
    size_t node = 0;
};

TEST(KernelStageCheck, AcceptsADeclarationTheReflectionAllows) {
    EXPECT_TRUE(kernel_stage_problems(add_norm_kernel()).empty());
}

TEST(KernelStageCheck, AcceptsAKernelWithoutStages) {
    KernelInfo k = add_norm_kernel();
    k.stages.clear();
    EXPECT_TRUE(kernel_stage_problems(k).empty());
}

TEST(KernelStageCheck, NamesTheKernelAndBindingAStageWritesThatTheShaderOnlyReads) {
    KernelInfo k = add_norm_kernel();
    k.stages[1].writes.push_back({0, 9});
    const auto problems = kernel_stage_problems(k);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0],
              "kernel 'matvec_anq8_like' stage 'add + norm + q8' writes binding 9 ('Res'), which "
              "its SPIR-V declares read");
}

TEST(KernelStageCheck, NamesAReflectedBindingThatNoStageCovers) {
    KernelInfo k = add_norm_kernel();
    k.stages[1].writes = {{0, 10}};  // the q8x row left out
    const auto problems = kernel_stage_problems(k);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0],
              "kernel 'matvec_anq8_like': binding 12 ('NormQ8') is written by its SPIR-V but by "
              "no declared stage");
}

TEST(KernelStageCheck, NamesABindingTheKernelDoesNotHaveAndACounterItCannotCountAt) {
    KernelInfo k = add_norm_kernel();
    k.stages[0].reads.push_back({0, 5});
    k.stages[1].counter = {0, 9};  // read-only: no atomics
    const auto problems = kernel_stage_problems(k);
    ASSERT_EQ(problems.size(), 4u);
    EXPECT_EQ(problems[0],
              "kernel 'matvec_anq8_like' stage 'rows of y' reads binding 5, which the kernel "
              "does not have");
    EXPECT_EQ(problems[1],
              "kernel 'matvec_anq8_like' stage 'add + norm + q8' counts its arrivals at "
              "binding 9 ('Res'), which its SPIR-V declares read");
    // Binding 8 is then neither a counter nor in a stage: its reads and writes are uncovered.
    EXPECT_NE(problems[2].find("binding 8 ('Arr') is read by its SPIR-V but by no declared"),
              std::string::npos);
    EXPECT_NE(problems[3].find("binding 8 ('Arr') is written by its SPIR-V but by no declared"),
              std::string::npos);
}

TEST(KernelStageCheck, WantsTheFirstStageFirstAndTheLaterOnesOrdered) {
    KernelInfo k = add_norm_kernel();
    std::swap(k.stages[0].order, k.stages[1].order);
    const auto problems = kernel_stage_problems(k);
    ASSERT_GE(problems.size(), 2u);
    EXPECT_NE(problems[0].find("the first stage is ordered 'last_arrival'"), std::string::npos);
    EXPECT_NE(problems[1].find("stage 2 says it is first"), std::string::npos);
}

TEST(InternalStages, GivesEachStageTheNodesBytesAtItsBindings) {
    const AddNormGraph t;
    const NodeInternalStages s = internal_stages(t.g, t.node);
    ASSERT_EQ(s.stages.size(), 2u);
    EXPECT_EQ(s.stages[0].declared.name, "rows of y");
    EXPECT_EQ(s.stages[0].reads,
              (std::vector<StageAccess>{{{0, 0}, {0, 0, 256}}, {{0, 1}, {1, 0, 128}}}));
    EXPECT_EQ(s.stages[0].writes, (std::vector<StageAccess>{{{0, 2}, {1, 128, 256}}}));
    EXPECT_FALSE(s.stages[0].counter);
    EXPECT_EQ(s.stages[1].counter, (ByteRange{2, 0, 4}));
    EXPECT_EQ(s.stages[1].writes,
              (std::vector<StageAccess>{{{0, 10}, {3, 0, 64}}, {{0, 12}, {5, 0, 80}}}));
}

TEST(InternalStages, ListsTheBytesTheCounterOrdersAndNotTheCounterItself) {
    const AddNormGraph t;
    const NodeInternalStages s = internal_stages(t.g, t.node);
    // y crosses the boundary; x (same allocation, other bytes), the counter and the in-place
    // residual (read and written by the same stage) do not.
    EXPECT_EQ(s.hazards, (std::vector<StageHazard>{{HazardKind::raw, 0, 1, {1, 128, 256}}}));
}

TEST(InternalStages, ListsWriteAfterReadAndWriteAfterWriteAcrossTheBoundary) {
    AddNormGraph t;
    // The last stage writes its sum over x (which the first stage read) and its q8x row over
    // the first stage's y: WAR on x's bytes, WAW on y's first 80 bytes (the first stage wrote
    // them and did not read them).
    Node& n = t.g.nodes[t.node];
    n.bindings[5].view = {1, 0, 64};    // binding 10 (sum) over x's first 64 bytes
    n.bindings[7].view = {1, 128, 80};  // binding 12 (q8) over y's first 80 bytes
    const NodeInternalStages s = internal_stages(t.g, t.node);
    EXPECT_EQ(s.hazards, (std::vector<StageHazard>{{HazardKind::raw, 0, 1, {1, 128, 256}},
                                                   {HazardKind::war, 0, 1, {1, 0, 64}},
                                                   {HazardKind::waw, 0, 1, {1, 128, 208}}}));
}

TEST(InternalStages, IsEmptyForAKernelOfOneStageABarrierAndAnIndexPastTheEnd) {
    AddNormGraph t;
    t.g.add_barrier();
    EXPECT_TRUE(internal_stages(t.g, t.node + 1).stages.empty());
    EXPECT_TRUE(internal_stages(t.g, t.node + 2).stages.empty());
    EXPECT_FALSE(has_internal_stages(t.g, t.node + 1));
    EXPECT_TRUE(has_internal_stages(t.g, t.node));
    t.g.kernels[0].stages.clear();
    EXPECT_TRUE(internal_stages(t.g, t.node).stages.empty());
}

TEST(InternalStages, NamesTheNodeAndBindingAStageNamesButTheNodeDoesNotBind) {
    AddNormGraph t;
    t.g.kernels[0].stages[1].reads.push_back({0, 13});
    try {
        internal_stages(t.g, t.node);
        FAIL() << "a stage naming an unbound binding must be refused";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(),
                     "node 'blk.0.ffn_down' (id 0) of kernel 'matvec_anq8_like': its stages name "
                     "set 0 binding 13, which the node does not bind");
    }
}

TEST(InternalStages, DescribesBytesByAllocationName) {
    const AddNormGraph t;
    EXPECT_EQ(describe_bytes(t.g, {1, 128, 256}), "x_and_y[128, 256)");
    EXPECT_EQ(describe_stage_order(t.g.kernels[0].stages[1]),
              "after the last workgroup to arrive at binding 8");
}

}  // namespace
}  // namespace graphlens
