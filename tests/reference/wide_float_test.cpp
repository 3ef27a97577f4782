// bf16 / fp16 conversions: decode every 16-bit code, and hold the narrowing against the
// hardware-independent definition (the nearest representable value, ties to even mantissa).
#include "mxv/reference/wide_float.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

namespace mxv {
namespace {

TEST(WideFloat, Bf16KnownValues) {
  EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
  EXPECT_EQ(bf16_to_float(0xc000), -2.0f);
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  // 1 + 2^-8 is exactly between bf16 1.0 (even) and 1.0078125: ties to even -> 1.0.
  EXPECT_EQ(float_to_bf16(1.00390625f), 0x3f80);
  // 1 + 3*2^-8 is between 1.0078125 (odd) and 1.015625 (even) -> 1.015625.
  EXPECT_EQ(float_to_bf16(1.01171875f), 0x3f82);
  EXPECT_EQ(float_to_bf16(3.4e38f), 0x7f80);  // beyond bf16 max + half ulp -> Inf
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(NAN))));
}

TEST(WideFloat, Fp16KnownValues) {
  EXPECT_EQ(fp16_to_float(0x3c00), 1.0f);
  EXPECT_EQ(fp16_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(fp16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(float_to_fp16(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_fp16(65519.996f), 0x7bff);
  EXPECT_EQ(float_to_fp16(65520.0f), 0x7c00);  // tie between 65504 (odd) and 65536 -> Inf
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -25)), 0x0000);  // tie to even (0)
  EXPECT_EQ(float_to_fp16(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 quanta -> 2 (even)
  EXPECT_EQ(float_to_fp16(-std::ldexp(1.0f, -14)), 0x8400);
}

// Every fp16 and bf16 code round-trips through fp32 (decode is exact, encode of an exactly
// representable value must return it), NaNs stay NaN.
TEST(WideFloat, EveryCodeRoundTrips) {
  for (std::uint32_t c = 0; c < 0x10000u; ++c) {
    const auto code = static_cast<std::uint16_t>(c);
    const float b = bf16_to_float(code);
    const float h = fp16_to_float(code);
    if (std::isnan(b)) {
      EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(b)))) << std::hex << c;
    } else {
      EXPECT_EQ(float_to_bf16(b), code) << std::hex << c;
    }
    if (std::isnan(h)) {
      EXPECT_TRUE(std::isnan(fp16_to_float(float_to_fp16(h)))) << std::hex << c;
    } else {
      EXPECT_EQ(float_to_fp16(h), code) << std::hex << c;
    }
  }
}

// Between every pair of adjacent finite fp16 values, the midpoint and its fp32 neighbours
// round to the nearer one, the midpoint itself to the even code.
TEST(WideFloat, Fp16EveryMidpoint) {
  for (std::uint32_t c = 0; c < 0x7bffu; ++c) {
    const float lo = fp16_to_float(static_cast<std::uint16_t>(c));
    const float hi = fp16_to_float(static_cast<std::uint16_t>(c + 1));
    const float mid = static_cast<float>((static_cast<double>(lo) + hi) / 2);  // exact in fp32
    const auto even = static_cast<std::uint16_t>((c & 1u) ? c + 1 : c);
    EXPECT_EQ(float_to_fp16(mid), even) << std::hex << c;
    EXPECT_EQ(float_to_fp16(std::nextafter(mid, 0.0f)), c) << std::hex << c;
    EXPECT_EQ(float_to_fp16(std::nextafter(mid, INFINITY)), c + 1) << std::hex << c;
  }
}

}  // namespace
}  // namespace mxv
