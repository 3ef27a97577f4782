// Tests of the check library's code semantics (independent_decoder.cpp) against values written out by
// hand from docs/semantics.md section 1 and IEEE 754.
#include "mxv/check/independent_decoder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace mxv::check {
namespace {

TEST(CheckValues, E2m1AllSixteenCodes) {
  const double expected[16] = {0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6};
  for (std::uint32_t c = 0; c < 16; ++c) {
    EXPECT_EQ(code_value(CodeKind::kE2M1x2, c), expected[c]) << "code " << c;
    EXPECT_FALSE(is_nan_code(CodeKind::kE2M1x2, c));
  }
  EXPECT_TRUE(std::signbit(code_value(CodeKind::kE2M1x2, 0x8)));
  EXPECT_TRUE(is_zero_code(CodeKind::kE2M1x2, 0x0));
  EXPECT_TRUE(is_zero_code(CodeKind::kE2M1x2, 0x8));
}

TEST(CheckValues, E4m3KeyCodes) {
  EXPECT_EQ(code_value(CodeKind::kE4M3, 0x7E), 448.0);
  EXPECT_EQ(code_value(CodeKind::kE4M3, 0x01), std::ldexp(1.0, -9));   // min subnormal
  EXPECT_EQ(code_value(CodeKind::kE4M3, 0x08), std::ldexp(1.0, -6));   // min normal
  EXPECT_EQ(code_value(CodeKind::kE4M3, 0x38), 1.0);
  EXPECT_EQ(code_value(CodeKind::kE4M3, 0xB9), -1.125);
  EXPECT_TRUE(is_nan_code(CodeKind::kE4M3, 0x7F));
  EXPECT_TRUE(is_nan_code(CodeKind::kE4M3, 0xFF));
  EXPECT_FALSE(is_nan_code(CodeKind::kE4M3, 0x78));  // 256: E4M3FN has no Inf
  EXPECT_TRUE(is_nan_code(CodeKind::kUE4M3, 0x7F));
}

TEST(CheckValues, E8m0IsAPowerOfTwoWithoutZero) {
  EXPECT_EQ(code_value(CodeKind::kE8M0, 0x00), std::ldexp(1.0, -127));  // subnormal in fp32, not 0
  EXPECT_EQ(code_value(CodeKind::kE8M0, 0x7F), 1.0);
  EXPECT_EQ(code_value(CodeKind::kE8M0, 0xFE), std::ldexp(1.0, 127));
  EXPECT_TRUE(is_nan_code(CodeKind::kE8M0, 0xFF));
  EXPECT_FALSE(is_zero_code(CodeKind::kE8M0, 0x00));
  EXPECT_EQ(format_code(CodeKind::kE8M0, 0x7C), "0x7c (2^-3)");
}

TEST(CheckValues, WideFloats) {
  EXPECT_EQ(code_value(CodeKind::kBf16, 0x3F80), 1.0);
  EXPECT_EQ(code_value(CodeKind::kBf16, 0xC040), -3.0);
  EXPECT_EQ(code_value(CodeKind::kFp16, 0x3C00), 1.0);
  EXPECT_EQ(code_value(CodeKind::kFp16, 0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(code_value(CodeKind::kFp16, 0x7C00), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(is_nan_code(CodeKind::kFp16, 0x7E00));
  EXPECT_EQ(code_value(CodeKind::kFp32, 0x3F800000u), 1.0);
  EXPECT_EQ(code_value(CodeKind::kFp32, 0x00000001u), std::ldexp(1.0, -149));
  EXPECT_TRUE(is_nan_code(CodeKind::kFp32, 0x7FC00000u));
  EXPECT_TRUE(is_zero_code(CodeKind::kBf16, 0x8000));
}

TEST(CheckValues, AdjacencyFollowsValueOrder) {
  EXPECT_TRUE(adjacent(CodeKind::kE2M1x2, 0x4, 0x5));    // 2 and 3
  EXPECT_TRUE(adjacent(CodeKind::kE2M1x2, 0x8, 0x1));    // -0 and 0.5: nothing between
  EXPECT_TRUE(adjacent(CodeKind::kE2M1x2, 0x9, 0x0));    // -0.5 and +0
  EXPECT_FALSE(adjacent(CodeKind::kE2M1x2, 0x9, 0x1));   // -0.5 and 0.5: zero between
  EXPECT_FALSE(adjacent(CodeKind::kE2M1x2, 0x4, 0x6));
  EXPECT_TRUE(adjacent(CodeKind::kE4M3, 0x38, 0x39));
  EXPECT_FALSE(adjacent(CodeKind::kE4M3, 0x7E, 0x7F));   // 0x7F is NaN
  EXPECT_TRUE(adjacent(CodeKind::kE8M0, 0x7F, 0x80));
  EXPECT_FALSE(adjacent(CodeKind::kFp16, 0x7BFF, 0x7C00));  // max finite and Inf: no midpoint
  EXPECT_EQ(value_rank(CodeKind::kE2M1x2, 0xF), -7);
  EXPECT_FALSE(value_rank(CodeKind::kE4M3, 0xFF).has_value());
}

TEST(CheckValues, UlpDistanceAndFormatting) {
  EXPECT_EQ(fp32_ulp_distance(1.0f, std::nextafter(1.0f, 2.0f)), 1u);
  EXPECT_EQ(fp32_ulp_distance(0.0f, -0.0f), 0u);
  EXPECT_EQ(fp32_ulp_distance(-std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::denorm_min()), 2u);
  EXPECT_EQ(format_code(CodeKind::kE2M1x2, 0x3), "0x3 (1.5)");
  EXPECT_EQ(format_code(CodeKind::kE4M3, 0x7F), "0x7f (NaN)");
  EXPECT_EQ(format_code(CodeKind::kBf16, 0x3F80), "0x3f80 (1)");
  EXPECT_EQ(format_input(InputKind::kFp32, 0x40200000u), "0x40200000 (2.5)");
  EXPECT_EQ(format_input(InputKind::kBf16, 0xFFC0u), "0xffc0 (NaN)");
}

}  // namespace
}  // namespace mxv::check
