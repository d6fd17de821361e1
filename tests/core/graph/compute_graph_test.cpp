// Specification of the graph IR's bookkeeping: ids, derived ranges, structural validation.
#include <gtest/gtest.h>

#include "graphlens/graph/compute_graph.h"

namespace graphlens {
namespace {

KernelInfo two_in_one_out() {
    KernelInfo k;
    k.name = "add_f32";
    k.bindings = {{0, BindingAccess::read, "a"},
                  {1, BindingAccess::read, "b"},
                  {2, BindingAccess::write, "out"}};
    return k;
}

TensorView view(AllocationId a, uint64_t offset, uint64_t size) {
    TensorView v;
    v.allocation = a;
    v.offset = offset;
    v.size = size;
    v.shape = {static_cast<int64_t>(size / 4), 1, 1, 1};
    return v;
}

TEST(ComputeGraphTest, DispatchRangesFollowBindingAccessAndViewOffsets) {
    ComputeGraph g;
    const auto buf = g.add_allocation("buf", 4096, AllocationUsage::activations);
    Node n;
    n.kernel = g.add_kernel(two_in_one_out());
    n.bindings = {{0, view(buf, 0, 256)}, {1, view(buf, 256, 256)}, {2, view(buf, 1024, 256)}};
    g.add_dispatch(n);
    const Node& d = g.nodes.back();
    ASSERT_EQ(d.reads.size(), 2u);
    ASSERT_EQ(d.writes.size(), 1u);
    EXPECT_EQ(d.reads[1], (ByteRange{buf, 256, 512}));
    EXPECT_EQ(d.writes[0], (ByteRange{buf, 1024, 1280}));
    EXPECT_EQ(d.origin, std::vector<NodeId>{d.id});
}

TEST(ComputeGraphTest, IdsAreUniqueAndCountsSeparateBarriers) {
    ComputeGraph g;
    g.add_allocation("buf", 64, AllocationUsage::scratch);
    Node n;
    n.kernel = g.add_kernel(two_in_one_out());
    g.add_dispatch(n);
    g.add_barrier();
    g.add_dispatch(n);
    EXPECT_EQ(g.dispatch_count(), 2u);
    EXPECT_EQ(g.barrier_count(), 1u);
    EXPECT_NE(g.nodes[0].id, g.nodes[2].id);
    EXPECT_TRUE(g.validate().empty());
    EXPECT_EQ(g.without_barriers().nodes.size(), 2u);
}

TEST(ComputeGraphTest, ValidateNamesRangesOutsideTheirAllocation) {
    ComputeGraph g;
    const auto buf = g.add_allocation("small", 100, AllocationUsage::scratch);
    Node n;
    n.kernel = g.add_kernel(two_in_one_out());
    n.bindings = {{2, view(buf, 64, 64)}};
    g.add_dispatch(n);
    const auto errors = g.validate();
    ASSERT_EQ(errors.size(), 2u);  // the write range and the binding itself
    EXPECT_NE(errors[0].find("outside allocation 'small'"), std::string::npos) << errors[0];
}

TEST(ByteRangeTest, ZeroLengthAndOtherAllocationsNeverOverlap) {
    EXPECT_TRUE((ByteRange{0, 0, 8}).overlaps({0, 7, 9}));
    EXPECT_FALSE((ByteRange{0, 0, 8}).overlaps({0, 8, 9}));
    EXPECT_FALSE((ByteRange{0, 0, 8}).overlaps({1, 0, 8}));
    EXPECT_FALSE((ByteRange{0, 4, 4}).overlaps({0, 0, 8}));
    EXPECT_EQ((ByteRange{0, 0, 8}).intersect({0, 4, 12}), (ByteRange{0, 4, 8}));
}

}  // namespace
}  // namespace graphlens
