// greedy_next_token (a decode loop's sampler) against the host's argmax: the lowest index among
// equal largest logits, NaN never chosen, all NaN or -inf giving token 0, over vocabularies
// that span many workgroups (the last one partial) and one that fits a single workgroup.
#include <algorithm>
#include <cmath>
#include <limits>

#include "graphlens/ops/ops.h"
#include "graphlens/ops/params.h"
#include "ops_test_support.h"

namespace graphlens::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// The host's greedy choice: the first index of the largest non-NaN logit above -inf, else 0.
int32_t host_argmax(const std::vector<float>& logits) {
    int32_t best = -1;
    for (size_t i = 0; i < logits.size(); ++i)
        if (logits[i] > (best < 0 ? -kInf : logits[size_t(best)])) best = int32_t(i);
    return best < 0 ? 0 : best;
}

class GreedyNextTokenTest : public OpsTest {
  protected:
    struct Operands {
        TensorView logits, token, position, generated, scratch;
    };
    Operands operands(const std::vector<float>& logits, int64_t slots) {
        Operands o;
        o.logits = input(logits, {int64_t(logits.size())}, "logits");
        o.token = tensor(DType::i32, {1}, "token");
        o.position = tensor(DType::i32, {1}, "position");
        o.generated = tensor(DType::i32, {slots}, "generated");
        const auto n = int64_t(greedy_next_token_scratch_elements(uint32_t(logits.size())));
        o.scratch = tensor(DType::u32, {n}, "scratch");
        memory->upload(o.scratch, std::vector<uint32_t>(size_t(n), 0));
        return o;
    }
    /// Records the sampler once and runs that graph for slots 0, 1, 2: each run writes the token,
    /// its slot and the position, and leaves the arrival counter zero for the next.
    void expect_sampler_picks(const std::vector<float>& logits, int32_t expected) {
        const Operands o = operands(logits, 3);
        auto recorded = executor->begin_recorded();
        ops::greedy_next_token(recorded, o.logits, o.token, o.position, o.generated, o.scratch, 0,
                               7, "sampler");
        ComputeGraph g = recorded.finish_recording();
        ASSERT_EQ(g.dispatch_count(), 1u);
        Node& n = *std::find_if(g.nodes.begin(), g.nodes.end(),
                                [](const Node& x) { return x.is_dispatch(); });
        EXPECT_EQ(n.workgroups[0], greedy_next_token_workgroups(uint32_t(logits.size())));
        for (uint32_t slot = 0; slot < 3; ++slot) {
            GreedyNextTokenPush push{uint32_t(logits.size()), slot, int32_t(10 + slot)};
            std::memcpy(n.push_constants.data(), &push, sizeof push);
            memory->fill(o.token.allocation, 0xFF);
            executor->execute(g);
            EXPECT_EQ(memory->download_as<int32_t>(o.token)[0], expected) << "run " << slot;
            EXPECT_EQ(memory->download_as<int32_t>(o.generated)[slot], expected) << "run " << slot;
            EXPECT_EQ(memory->download_as<int32_t>(o.position)[0], int32_t(10 + slot));
            EXPECT_EQ(memory->download_as<uint32_t>(o.scratch)[0], 0u) << "arrival counter";
        }
    }
};

TEST_F(GreedyNextTokenTest, PicksTheLowestIndexOfTheLargestLogitAcrossWorkgroups) {
    const size_t n = 100003;  // 98 workgroups, the last one partial
    ASSERT_GT(greedy_next_token_workgroups(uint32_t(n)), 64u);
    auto logits = random(n, 4.0f);
    const auto at = random_ints(3, 0, int32_t(n) - 1);
    // The maximum twice, in different workgroups, and a NaN that a comparison must not take.
    const size_t low = size_t(std::min(at[0], at[1])), high = size_t(std::max(at[0], at[1]));
    logits[low] = logits[high] = 100.0f;
    logits[size_t(at[2])] = kNaN;
    if (size_t(at[2]) == low || size_t(at[2]) == high) logits[n - 1] = kNaN;
    const int32_t expected = host_argmax(logits);
    ASSERT_EQ(expected, int32_t(low == size_t(at[2]) ? high : low));
    expect_sampler_picks(logits, expected);
}

TEST_F(GreedyNextTokenTest, TiesWithinOneWorkgroupGoToTheLowestIndex) {
    auto logits = random(5000, 2.0f);
    // Thread 3 holds index 3, thread 5 indices 5 and 5 + 256 of the first workgroup's 1024.
    for (size_t i : {size_t(5 + 256), size_t(5), size_t(3), size_t(4999)}) logits[i] = 50.0f;
    expect_sampler_picks(logits, 3);
}

TEST_F(GreedyNextTokenTest, TheLastLogitOfAPartialWorkgroupCanWin) {
    auto logits = random(4097, 2.0f);  // the fifth workgroup holds one logit
    logits[4096] = 80.0f;
    expect_sampler_picks(logits, 4096);
}

TEST_F(GreedyNextTokenTest, OneWorkgroupVocabulary) {
    auto logits = random(300, 2.0f);
    ASSERT_EQ(greedy_next_token_workgroups(300), 1u);
    expect_sampler_picks(logits, host_argmax(logits));
}

TEST_F(GreedyNextTokenTest, OnlyNaNAndMinusInfinityGiveTokenZero) {
    std::vector<float> logits(3000, -kInf);
    for (size_t i = 1; i < logits.size(); i += 7) logits[i] = kNaN;
    expect_sampler_picks(logits, 0);
}

TEST_F(GreedyNextTokenTest, RefusesAScratchTooSmallForTheGrid) {
    const Operands o = operands(random(5000), 1);
    const TensorView small = memory->view(o.scratch.allocation, DType::u32, {3});
    auto s = executor->begin_recorded();
    EXPECT_THROW(ops::greedy_next_token(s, o.logits, o.token, o.position, o.generated, small, 0, 1),
                 std::invalid_argument);
}

}  // namespace
}  // namespace graphlens::test
