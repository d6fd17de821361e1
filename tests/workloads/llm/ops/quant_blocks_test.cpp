// ggml block layouts: dequantisation of hand-built blocks with known values, and
// quantize→dequantize round trips (CPU only; the GPU side is checked through get_rows and
// the matmul tests).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "graphlens/ops/ggml_blocks.h"

namespace graphlens::ggml {
namespace {

TEST(HalfFloat, RoundTripsExactValuesAndRoundsToNearestEven) {
    for (float f : {0.0f, 1.0f, -2.5f, 0.000061035156f, 65504.0f, 0.5f})
        EXPECT_EQ(half_to_float(float_to_half(f)), f) << f;
    EXPECT_EQ(float_to_half(1.0f), 0x3C00);
    EXPECT_EQ(float_to_half(-2.0f), 0xC000);
    EXPECT_EQ(float_to_half(1.0f + 1.0f / 4096), 0x3C00);     // halfway below: to even
    EXPECT_EQ(float_to_half(1e6f), 0x7C00);                   // overflow → inf
    EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
}

TEST(Q4_0, DequantizesNibblesMinusEightTimesScale) {
    BlockQ4_0 b{};
    b.d = float_to_half(0.5f);
    for (int j = 0; j < 16; ++j) b.qs[j] = static_cast<uint8_t>(j | ((15 - j) << 4));
    float y[32];
    dequantize_row_q4_0(&b, y, 32);
    for (int j = 0; j < 16; ++j) {
        EXPECT_EQ(y[j], 0.5f * float(j - 8)) << j;
        EXPECT_EQ(y[j + 16], 0.5f * float(7 - j)) << j;
    }
}

TEST(Q8_0, DequantizesSignedBytesTimesScale) {
    BlockQ8_0 b{};
    b.d = float_to_half(0.25f);
    for (int j = 0; j < 32; ++j) b.qs[j] = static_cast<int8_t>(j * 8 - 128);
    float y[32];
    dequantize_row_q8_0(&b, y, 32);
    for (int j = 0; j < 32; ++j) EXPECT_EQ(y[j], 0.25f * float(j * 8 - 128)) << j;
}

TEST(Q8x, QuantisesByTheLargestMagnitudeRoundingTiesToEven) {
    // amax 127: d = 1, so q is x rounded to nearest, ties to even.
    std::vector<float> x(64, 0.0f);
    x[0] = -127.0f, x[1] = 2.5f, x[2] = 3.5f, x[3] = -1.5f, x[4] = 0.49f, x[5] = 126.6f;
    // The second block is all zero: d = 0 and every q 0.
    const auto bytes = quantize(DType::q8x, x);
    ASSERT_EQ(bytes.size(), 2 * sizeof(BlockQ8x));
    BlockQ8x b[2];
    std::memcpy(b, bytes.data(), sizeof b);
    EXPECT_EQ(b[0].d, 1.0f);
    const int8_t want[6] = {-127, 2, 4, -2, 0, 127};
    for (int j = 0; j < 6; ++j) EXPECT_EQ(b[0].qs[j], want[j]) << j;
    for (int j = 6; j < 32; ++j) EXPECT_EQ(b[0].qs[j], 0) << j;
    EXPECT_EQ(b[0].spare, 0u);
    EXPECT_EQ(b[1].d, 0.0f);
    for (int j = 0; j < 32; ++j) EXPECT_EQ(b[1].qs[j], 0) << j;
    const auto y = dequantize(DType::q8x, bytes, x.size());
    for (int j = 0; j < 6; ++j) EXPECT_EQ(y[j], float(want[j])) << j;
}

TEST(Q4_K, DequantizesWithPackedSixBitScalesAndMins) {
    BlockQ4_K b{};
    b.d = float_to_half(2.0f);
    b.dmin = float_to_half(0.5f);
    // Sub-block j: scale j + 1 (j < 4) / 40 + j (j >= 4, needs the high bits), min 3 * j.
    uint8_t sc[8], mn[8];
    for (int j = 0; j < 8; ++j) sc[j] = uint8_t(j < 4 ? j + 1 : 40 + j), mn[j] = uint8_t(3 * j);
    for (int j = 0; j < 4; ++j) b.scales[j] = sc[j], b.scales[j + 4] = mn[j];
    for (int j = 4; j < 8; ++j) {
        b.scales[j + 4] = uint8_t((sc[j] & 0xF) | ((mn[j] & 0xF) << 4));
        b.scales[j - 4] |= uint8_t((sc[j] >> 4) << 6);
        b.scales[j] |= uint8_t((mn[j] >> 4) << 6);
    }
    for (int j = 0; j < 8; ++j) {
        uint8_t s, m;
        q4_k_scale_min(b.scales, j, s, m);
        EXPECT_EQ(s, sc[j]);
        EXPECT_EQ(m, mn[j]);
    }
    for (int i = 0; i < 128; ++i) b.qs[i] = static_cast<uint8_t>((i % 16) | ((15 - i % 16) << 4));
    float y[256];
    dequantize_row_q4_k(&b, y, 256);
    for (int e = 0; e < 256; ++e) {
        const int g = e / 64, l = e % 32, hi = (e / 32) % 2, sub = e / 32;
        const int byte = b.qs[32 * g + l];
        const int q = hi ? byte >> 4 : byte & 0xF;
        EXPECT_EQ(y[e], 2.0f * sc[sub] * float(q) - 0.5f * mn[sub]) << e;
    }
}

TEST(Q6_K, DequantizesSixBitValuesMinus32TimesSignedScales) {
    BlockQ6_K b{};
    b.d = float_to_half(0.125f);
    for (int j = 0; j < 16; ++j) b.scales[j] = static_cast<int8_t>(j % 2 ? -(j + 1) : j + 1);
    // Weight e gets q = e % 64; pack it the documented way.
    for (int h = 0; h < 2; ++h)
        for (int l = 0; l < 32; ++l) {
            auto q = [&](int r) { return (128 * h + r) % 64; };
            b.ql[64 * h + l] = uint8_t((q(l) & 0xF) | ((q(l + 64) & 0xF) << 4));
            b.ql[64 * h + l + 32] = uint8_t((q(l + 32) & 0xF) | ((q(l + 96) & 0xF) << 4));
            b.qh[32 * h + l] = uint8_t((q(l) >> 4) | ((q(l + 32) >> 4) << 2) |
                                       ((q(l + 64) >> 4) << 4) | ((q(l + 96) >> 4) << 6));
        }
    float y[256];
    dequantize_row_q6_k(&b, y, 256);
    for (int e = 0; e < 256; ++e)
        EXPECT_EQ(y[e], 0.125f * float(b.scales[e / 16]) * float(e % 64 - 32)) << e;
}

class RoundTrip : public ::testing::TestWithParam<DType> {};

TEST_P(RoundTrip, QuantizeThenDequantizeStaysClose) {
    const uint32_t seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.0f, 1.0f);
    std::vector<float> x(512 * 3);
    for (auto& v : x) v = d(rng);
    const auto bytes = quantize(GetParam(), x);
    EXPECT_EQ(bytes.size(), dtype_bytes_for(GetParam(), x.size()));
    const auto y = dequantize(GetParam(), bytes, x.size());
    double err = 0, norm = 0;
    for (size_t i = 0; i < x.size(); ++i) err += (x[i] - y[i]) * (x[i] - y[i]), norm += x[i] * x[i];
    // Relative RMS error of round-to-nearest: ~ step / sqrt(12) / rms.
    const DType t = GetParam();
    const double limit = t == DType::q8_0 || t == DType::q8x ? 0.01
                         : t == DType::q6_k                  ? 0.05
                                                             : 0.15;
    EXPECT_LT(std::sqrt(err / norm), limit);
}

INSTANTIATE_TEST_SUITE_P(Formats, RoundTrip,
                         ::testing::Values(DType::q4_0, DType::q8_0, DType::q4_k, DType::q6_k,
                                           DType::q8x),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(Quantize, RejectsPartialBlocksAndShortBuffers) {
    std::vector<float> x(33, 1.0f);
    EXPECT_THROW(quantize(DType::q4_0, x), std::invalid_argument);
    std::vector<uint8_t> bytes(17);
    EXPECT_THROW(dequantize(DType::q4_0, bytes, 32), std::invalid_argument);
}

}  // namespace
}  // namespace graphlens::ggml
