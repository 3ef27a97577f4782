// Tests of the portable fp32 exp (reference/src/portable_exp.cpp; docs/semantics.md section 7.1):
// hand-derived known answers for the special ranges, a strided accuracy sample (fast, label
// cpu) and planted bugs that the measurement must catch. The all-inputs sweep that pins the
// measured maximum error is portable_exp_exhaustive_test.cpp (label exhaustive).
#include "mxv/reference/portable_exp.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <vector>

namespace mxv {
namespace {

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
float from_bits(std::uint32_t b) { return std::bit_cast<float>(b); }
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(PortableExp, ExactAtZero) {
  // exp(0) = 1 exactly: n = 0, r = 0, p = fma(q, 0, 1) = 1.
  EXPECT_EQ(bits(portable_exp(0.0f)), bits(1.0f));
  EXPECT_EQ(bits(portable_exp(-0.0f)), bits(1.0f));
  // Tiny arguments round to 1 (|x| < 2^-25 in both directions; -2^-26 is below half an ulp
  // of 1 - 2^-24).
  EXPECT_EQ(bits(portable_exp(0x1p-30f)), bits(1.0f));
  EXPECT_EQ(bits(portable_exp(-0x1p-26f)), bits(1.0f));
  EXPECT_EQ(bits(portable_exp(from_bits(1))), bits(1.0f));
}

TEST(PortableExp, KnownValues) {
  // e = 2.71828182845904..., fp32 nearest is 0x402DF854 = 2.71828174591064453125
  // (the next fp32 up, 2.7182819843, is farther away).
  EXPECT_EQ(bits(portable_exp(1.0f)), 0x402DF854u);
  // 1/e = 0.36787944117144..., fp32 nearest 0x3EBC5AB2 = 0.367879450321197509765625.
  EXPECT_EQ(bits(portable_exp(-1.0f)), 0x3EBC5AB2u);
  // exp(ln 2 rounded to fp32) = 2 * exp(1.9e-9), within a quarter ulp of 2.
  EXPECT_EQ(bits(portable_exp(0x1.62e43p-1f)), bits(2.0f));
}

TEST(PortableExp, NanGivesCanonicalNan) {
  for (std::uint32_t b : {0x7FC00000u, 0x7F800001u, 0xFFC00000u, 0x7FFFFFFFu, 0xFFBADBADu}) {
    EXPECT_EQ(bits(portable_exp(from_bits(b))), kCanonicalNanBits) << std::hex << b;
  }
}

TEST(PortableExp, OverflowBoundary) {
  // ln(FLT_MAX) = 88.722839111672999...; the fp32 just below (0x42B17217 = 88.72283172607)
  // has a finite exp, the one just above (0x42B17218 = 88.72283935546875) rounds to +Inf
  // (it exceeds ln(FLT_MAX) by 2.4e-7, more than the 3e-8 that rounding to FLT_MAX allows).
  EXPECT_EQ(bits(kPortableExpMaxFinite), 0x42B17217u);
  const float below = portable_exp(from_bits(0x42B17217u));
  EXPECT_TRUE(std::isfinite(below));
  EXPECT_GT(below, 0x1.fffp+127f);
  EXPECT_EQ(portable_exp(from_bits(0x42B17218u)), kInf);
  EXPECT_EQ(portable_exp(100.0f), kInf);
  EXPECT_EQ(portable_exp(std::numeric_limits<float>::max()), kInf);
  EXPECT_EQ(portable_exp(kInf), kInf);
}

TEST(PortableExp, UnderflowIsGradual) {
  // ln(2^-149) = -103.2789...: results there are subnormal, not flushed.
  const float smallest = portable_exp(-103.0f);  // exp(-103) = 1.8e-45 -> 1 * 2^-149
  EXPECT_EQ(bits(smallest), 0x00000001u);
  // exp(-88) = 6.05e-39, just below FLT_MIN = 1.18e-38: a subnormal with many bits.
  const float sub = portable_exp(-88.0f);
  EXPECT_GT(sub, 0.0f);
  EXPECT_LT(sub, std::numeric_limits<float>::min());
  // ln(2^-150) = -103.972077084; fp32 -103.97207641601562 (0xC2CFF1B4) lies just above it,
  // so its exp exceeds half the smallest subnormal and rounds up to 2^-149; the next fp32
  // below (0xC2CFF1B5) is under it and rounds to 0.
  EXPECT_EQ(bits(portable_exp(from_bits(0xC2CFF1B4u))), 0x00000001u);
  EXPECT_EQ(bits(portable_exp(from_bits(0xC2CFF1B5u))), 0x00000000u);
  // Below -104 the special case returns +0 directly; -Inf too.
  EXPECT_EQ(bits(portable_exp(-104.5f)), 0u);
  EXPECT_EQ(bits(portable_exp(-1e30f)), 0u);
  EXPECT_EQ(bits(portable_exp(-kInf)), 0u);
}

TEST(PortableExp, SpanVersionMatchesScalarAndValidates) {
  const std::vector<float> in{-3.5f, 0.0f, 1.25f, 80.0f, -100.0f};
  std::vector<float> out(in.size());
  portable_exp(in, out);
  for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(bits(out[i]), bits(portable_exp(in[i])));
  std::vector<float> short_out(2);
  EXPECT_THROW(portable_exp(in, short_out), std::invalid_argument);
}

TEST(UlpDistance, CountsRepresentableSteps) {
  EXPECT_EQ(ulp_distance(1.0f, 1.0f), 0u);
  EXPECT_EQ(ulp_distance(1.0f, std::nextafter(1.0f, 2.0f)), 1u);
  EXPECT_EQ(ulp_distance(0.0f, -0.0f), 0u);
  EXPECT_EQ(ulp_distance(from_bits(1), -from_bits(1)), 2u);  // across zero
  EXPECT_EQ(ulp_distance(std::numeric_limits<float>::max(), kInf), 1u);
  EXPECT_THROW(ulp_distance(std::nanf(""), 1.0f), std::invalid_argument);
}

TEST(CorrectlyRoundedExp, KnownValues) {
  EXPECT_EQ(bits(correctly_rounded_exp(1.0f)), 0x402DF854u);
  EXPECT_EQ(bits(correctly_rounded_exp(-1.0f)), 0x3EBC5AB2u);
  EXPECT_EQ(bits(correctly_rounded_exp(0.0f)), bits(1.0f));
  EXPECT_EQ(correctly_rounded_exp(from_bits(0x42B17218u)), kInf);
  EXPECT_EQ(bits(correctly_rounded_exp(from_bits(0xC2CFF1B4u))), 1u);
  EXPECT_EQ(bits(correctly_rounded_exp(from_bits(0xC2CFF1B5u))), 0u);
}

TEST(PortableExp, StridedSampleWithinPinnedUlp) {
  // Stride 4099 (prime) visits about 1.05M bit patterns spread over every exponent.
  const ExpErrorReport rep = measure_exp_error(&portable_exp, 4099, 1);
  std::printf("sample: %llu inputs, max %llu ulp (%.4f real) at %a, off-by-1 %llu\n",
              static_cast<unsigned long long>(rep.inputs),
              static_cast<unsigned long long>(rep.max_ulp), rep.max_error_ulp,
              static_cast<double>(rep.worst_input),
              static_cast<unsigned long long>(rep.count_by_ulp[1]));
  EXPECT_GT(rep.inputs, 1'000'000u);
  EXPECT_LE(rep.max_ulp, kPortableExpMaxUlp);
  EXPECT_EQ(rep.nan_mismatches, 0u);
}

// Planted bugs: the measurement must see them, or it proves nothing.
float exp_off_by_two_ulp_near_one(float x) {
  const float y = portable_exp(x);
  if (x > 0.5f && x < 0.75f) return std::bit_cast<float>(std::bit_cast<std::uint32_t>(y) + 2);
  return y;
}
float exp_flushing_subnormals(float x) {
  const float y = portable_exp(x);
  return y < std::numeric_limits<float>::min() ? 0.0f : y;
}
float exp_without_nan(float x) { return std::isnan(x) ? 1.0f : portable_exp(x); }

TEST(MeasureExpError, CatchesPlantedBugs) {
  const ExpErrorReport off = measure_exp_error(&exp_off_by_two_ulp_near_one, 4099, 1);
  EXPECT_GE(off.max_ulp, 2u);
  EXPECT_GT(off.worst_input, 0.5f);
  EXPECT_LT(off.worst_input, 0.75f);
  const ExpErrorReport ftz = measure_exp_error(&exp_flushing_subnormals, 4099, 1);
  EXPECT_GE(ftz.count_by_ulp[7], 1u);  // a flushed subnormal is many ulp from the truth
  const ExpErrorReport nan = measure_exp_error(&exp_without_nan, 4099, 1);
  EXPECT_GT(nan.nan_mismatches, 0u);
}

TEST(MeasureExpError, ValidatesArguments) {
  EXPECT_THROW(measure_exp_error(nullptr, 1, 1), std::invalid_argument);
  EXPECT_THROW(measure_exp_error(&portable_exp, 0, 1), std::invalid_argument);
  EXPECT_THROW(measure_exp_error(&portable_exp, 1, 0), std::invalid_argument);
}

}  // namespace
}  // namespace mxv
