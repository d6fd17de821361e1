// barrier_between elides exactly the barriers no hazard needs: RAW, WAR and WAW on
// overlapping bytes of one allocation need one; read-read and disjoint sub-ranges do not.
#include <gtest/gtest.h>

#include "gpu_fixture.h"
#include "graphlens/vulkan/graph_session.h"

namespace graphlens::test {
namespace {

struct Access {
    std::vector<ByteRange> reads, writes;
};

struct ElisionCase {
    const char* name;
    Access first, second;
    bool barrier;
};

constexpr AllocationId A = 0, B = 1;
ByteRange r(AllocationId a, uint64_t begin, uint64_t end) {
    return {a, begin, end};
}

void PrintTo(const ElisionCase& c, std::ostream* os) {
    *os << c.name;
}

class BarrierBetweenTest : public GpuTest, public ::testing::WithParamInterface<ElisionCase> {};

TEST_P(BarrierBetweenTest, EmitsABarrierExactlyOnAHazard) {
    const ElisionCase& c = GetParam();
    SessionOptions o;
    o.barriers = BarrierPolicy::manual;
    auto s = executor->begin_recorded(o);
    EXPECT_FALSE(s.barrier_between(c.first.reads, c.first.writes));  // nothing to conflict with yet
    const bool emitted = s.barrier_between(c.second.reads, c.second.writes);
    EXPECT_EQ(emitted, c.barrier) << c.name;
    EXPECT_EQ(s.barrier_count(), c.barrier ? 1u : 0u) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Hazards, BarrierBetweenTest,
    ::testing::Values(
        ElisionCase{"raw", {{}, {r(A, 0, 64)}}, {{r(A, 0, 64)}, {r(B, 0, 64)}}, true},
        ElisionCase{"war", {{r(A, 0, 64)}, {r(B, 0, 64)}}, {{}, {r(A, 0, 64)}}, true},
        ElisionCase{"waw", {{}, {r(A, 0, 64)}}, {{}, {r(A, 32, 96)}}, true},
        ElisionCase{
            "read_read", {{r(A, 0, 64)}, {r(B, 0, 16)}}, {{r(A, 0, 64)}, {r(B, 16, 32)}}, false},
        ElisionCase{
            "disjoint_subranges_write_write", {{}, {r(A, 0, 64)}}, {{}, {r(A, 64, 128)}}, false},
        ElisionCase{"read_after_write_of_other_subrange",
                    {{}, {r(A, 0, 64)}},
                    {{r(A, 64, 128)}, {r(B, 0, 64)}},
                    false},
        ElisionCase{"one_byte_overlap_raw", {{}, {r(A, 0, 64)}}, {{r(A, 63, 128)}, {}}, true},
        ElisionCase{
            "same_offsets_other_allocation", {{}, {r(A, 0, 64)}}, {{r(B, 0, 64)}, {}}, false},
        ElisionCase{
            "empty_range_never_conflicts", {{}, {r(A, 0, 64)}}, {{r(A, 10, 10)}, {}}, false}),
    [](const auto& info) { return std::string(info.param.name); });

TEST_F(GpuTest, BarrierResetsTheGroupSoEarlierRangesNoLongerConflict) {
    SessionOptions o;
    o.barriers = BarrierPolicy::manual;
    auto s = executor->begin_recorded(o);
    const std::vector<ByteRange> none, w{r(A, 0, 64)}, rd{r(A, 0, 64)};
    s.barrier_between(none, w);
    EXPECT_TRUE(s.barrier_between(rd, none));   // RAW: barrier, group = {reader}
    EXPECT_FALSE(s.barrier_between(rd, none));  // read-read within the new group
    EXPECT_TRUE(s.barrier_between(none, w));    // WAR against the two readers
    EXPECT_EQ(s.barrier_count(), 2u);
}

TEST_F(GpuTest, ViewOffsetsDecideConflictsBetweenTensorViews) {
    const AllocationId buf = memory->allocate("buf", 4096);
    const TensorView lo = f32(buf, 256, 0), hi = f32(buf, 256, 1024), mid = f32(buf, 256, 512);
    SessionOptions o;
    o.barriers = BarrierPolicy::manual;
    auto s = executor->begin_recorded(o);
    const std::vector<TensorView> none, lo_v{lo}, hi_v{hi}, mid_v{mid};
    s.barrier_between(none, lo_v);                // writes [0, 1024)
    EXPECT_FALSE(s.barrier_between(none, hi_v));  // writes [1024, 2048): disjoint
    EXPECT_TRUE(s.barrier_between(mid_v, none));  // reads [512, 1536): overlaps both
}

}  // namespace
}  // namespace graphlens::test
