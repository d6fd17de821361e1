// greedy_next_token: the decode loop's sampler picks what std::max_element picks, and writes the
// token, the generated slot and the next position.
#include <algorithm>
#include <cmath>
#include <limits>

#include "graphlens/ops/ops.h"
#include "ops_test_support.h"

namespace graphlens::test {
namespace {

struct Sampled {
    int32_t token = -1;
    int32_t position = -1;
    std::vector<int32_t> generated;
};

class GreedyNextTokenTest : public OpsTest {
  protected:
    Sampled sample(const std::vector<float>& logits, uint32_t slot = 2,
                   int32_t next_position = 17) {
        auto tl = input(logits, {int64_t(logits.size())}, "logits");
        auto token = input_i32({-1}, "token");
        auto position = input_i32({-1}, "position");
        auto generated = input_i32(std::vector<int32_t>(slot + 2, -1), "generated");
        run([&](GraphSession& s) {
            ops::greedy_next_token(s, tl, token, position, generated, slot, next_position);
        });
        return {memory->download_as<int32_t>(token)[0], memory->download_as<int32_t>(position)[0],
                memory->download_as<int32_t>(generated)};
    }

    static int32_t max_element_index(const std::vector<float>& logits) {
        return int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
    }
};

// Vocabulary sizes around the kernel's strides (512 threads, 16 logits each in flight) and a
// real model's, each with its largest logit at the start, inside and at the very end.
TEST_F(GreedyNextTokenTest, PicksTheLargestLogitWhereverItIs) {
    for (const size_t n : {1u, 7u, 511u, 8191u, 8192u, 8193u, 40000u, 128256u}) {
        for (const size_t at : {size_t(0), n / 3, n - 1}) {
            auto logits = random(n);
            logits[at] = 10.0f;
            const Sampled got = sample(logits);
            EXPECT_EQ(got.token, int32_t(at)) << "n_vocab " << n;
            EXPECT_EQ(got.token, max_element_index(logits)) << "n_vocab " << n;
        }
    }
}

TEST_F(GreedyNextTokenTest, AmongEqualLargestLogitsPicksTheLowestIndex) {
    const size_t n = 128256;
    auto logits = random(n);
    for (const size_t at : {size_t(70001), size_t(9000), size_t(100000), size_t(9512)})
        logits[at] = 5.0f;
    EXPECT_EQ(sample(logits).token, 9000);
    EXPECT_EQ(max_element_index(logits), 9000);
}

TEST_F(GreedyNextTokenTest, NeverPicksANanAndFallsBackToTokenZero) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    auto logits = random(9000);
    logits[4] = nan;
    logits[8999] = nan;
    logits[321] = 3.0f;
    EXPECT_EQ(sample(logits).token, 321);
    EXPECT_EQ(sample(std::vector<float>(9000, nan)).token, 0);
    EXPECT_EQ(sample(std::vector<float>(9000, -inf)).token, 0);
}

TEST_F(GreedyNextTokenTest, WritesTheTokenItsSlotAndTheNextPosition) {
    auto logits = random(1000);
    logits[640] = 4.0f;
    const Sampled got = sample(logits, 3, 99);
    EXPECT_EQ(got.token, 640);
    EXPECT_EQ(got.position, 99);
    EXPECT_EQ(got.generated, (std::vector<int32_t>{-1, -1, -1, 640, -1}));
}

}  // namespace
}  // namespace graphlens::test
