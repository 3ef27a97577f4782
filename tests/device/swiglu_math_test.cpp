// The device SwiGLU arithmetic's portable exp (device/include/mxv/device/kernels/swiglu_math.h,
// host branch: the one the emulator runs) against the reference's (reference/portable_exp.h), bit
// for bit: every input where step 0 decides (NaN, the overflow and underflow bounds and their fp32
// neighbours, infinities, zeros, subnormals) and a strided sample of all 2^32 fp32 patterns; and
// one_plus_exp_any_nan, the gate factors' 1 + exp(x) with a one-instruction step 4, against
// 1 + the reference's exp on every fp32 input where the two could differ.
#include "mxv/device/kernels/swiglu_math.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "mxv/reference/portable_exp.h"

namespace {

using mxv::device::swiglu_math::exp_portable;
using mxv::device::swiglu_math::one_plus_exp_any_nan;

/// "" when the two agree on `bits`, else a message naming the input and both results.
std::string disagreement(std::uint32_t bits) {
  const float x = std::bit_cast<float>(bits);
  const std::uint32_t device = std::bit_cast<std::uint32_t>(exp_portable(x));
  const std::uint32_t reference = std::bit_cast<std::uint32_t>(mxv::portable_exp(x));
  if (device == reference) return {};
  char buf[128];
  std::snprintf(buf, sizeof buf, "exp(0x%08X): device 0x%08X, reference 0x%08X", bits, device, reference);
  return buf;
}

TEST(SwigluMathExp, StepZeroCasesAndTheirNeighbours) {
  std::vector<float> centres = {0x1.62e42ep+6f, -104.0f, 0.0f, -0.0f, std::numeric_limits<float>::max(),
                                -std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(),
                                -std::numeric_limits<float>::denorm_min(), 1.0f, -1.0f, 88.0f, -87.0f, -103.0f};
  std::vector<std::uint32_t> inputs = {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u, 0x7F800001u,
                                       0xFF800001u, 0x7FFFFFFFu, 0xFFFFFFFFu, 0x7FA00000u};
  for (float c : centres) {
    const auto b = std::bit_cast<std::uint32_t>(c);
    for (std::uint32_t d = 0; d <= 64; ++d) {
      inputs.push_back(b + d);
      inputs.push_back(b - d);
    }
  }
  for (std::uint32_t bits : inputs) EXPECT_EQ(disagreement(bits), "");
}

TEST(SwigluMathExp, StridedSampleOfEveryFp32Pattern) {
  constexpr std::uint64_t kStride = 257;  // coprime with 2^32: every exponent, varied mantissas
  std::uint64_t checked = 0;
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += kStride, ++checked) {
    const std::string d = disagreement(static_cast<std::uint32_t>(b));
    ASSERT_EQ(d, "");
  }
  std::printf("%llu inputs (stride %llu) equal the reference\n", static_cast<unsigned long long>(checked),
              static_cast<unsigned long long>(kStride));
}

/// 1 + exp(x) as the gate factors need it, from the reference's exp and one rounded add.
float one_plus_reference_exp(float x) { return 1.0f + mxv::portable_exp(x); }

/// The inputs in [lo, hi] (fp32 patterns, lo <= hi) where `f` and 1 + the reference's exp differ
/// (NaN inputs are skipped: there the contract only asks the gate factors for a NaN, which their
/// other operand gives); prints the first few.
template <class F>
std::uint64_t one_plus_exp_disagreements(F f, std::uint32_t lo, std::uint32_t hi) {
  std::uint64_t bad = 0;
  for (std::uint64_t b = lo; b <= hi; ++b) {
    const float x = std::bit_cast<float>(static_cast<std::uint32_t>(b));
    if (std::isnan(x)) continue;
    const auto got = std::bit_cast<std::uint32_t>(f(x));
    const auto want = std::bit_cast<std::uint32_t>(one_plus_reference_exp(x));
    if (got != want && ++bad <= 3) {
      std::printf("1 + exp(0x%08llX): 0x%08X, reference 0x%08X\n", static_cast<unsigned long long>(b), got, want);
    }
  }
  return bad;
}

std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }

/// Every input where one_plus_exp_any_nan's step 4, its clamp or its overflow select could part
/// from the reference's: n = round(x * log2e) reaches -125 or less only below -86 and 128 only
/// above 64, so the binades [64, 128] and [-128, -64] hold every such input short of the ranges
/// both sides answer with a constant (Inf above 0x1.62e42ep+6, 1 below -104), and the infinities.
/// Below 64 in magnitude both steps 4 return p * 2^n exactly.
TEST(SwigluMathOnePlusExp, EveryInputWhereStepFourCouldDiffer) {
  const std::uint64_t bad = one_plus_exp_disagreements(one_plus_exp_any_nan, bits(64.0f), bits(128.0f)) +
                            one_plus_exp_disagreements(one_plus_exp_any_nan, bits(-64.0f), bits(-128.0f)) +
                            one_plus_exp_disagreements(one_plus_exp_any_nan, bits(INFINITY), bits(INFINITY)) +
                            one_plus_exp_disagreements(one_plus_exp_any_nan, bits(-INFINITY), bits(-INFINITY));
  EXPECT_EQ(bad, 0u);
}

TEST(SwigluMathOnePlusExp, StridedSampleOfEveryFp32Pattern) {
  constexpr std::uint64_t kStride = 257;
  std::uint64_t bad = 0;
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += kStride) {
    bad += one_plus_exp_disagreements(one_plus_exp_any_nan, static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b));
  }
  EXPECT_EQ(bad, 0u);
}

/// All 2^32 inputs (about two minutes on one core): run with MXV_ONE_PLUS_EXP_ALL=1.
TEST(SwigluMathOnePlusExp, EveryFp32PatternOnRequest) {
  if (std::getenv("MXV_ONE_PLUS_EXP_ALL") == nullptr) GTEST_SKIP() << "set MXV_ONE_PLUS_EXP_ALL=1 to scan every input";
  EXPECT_EQ(one_plus_exp_disagreements(one_plus_exp_any_nan, 0u, 0xFFFFFFFFu), 0u);
}

/// The check can fail: the same shortcut with the reference's own underflow bound (-104) in place
/// of -86 lets n reach -126 .. -150, where adding n to p's exponent field wraps into the sign.
TEST(SwigluMathOnePlusExp, PlantedBugAWrongUnderflowBoundIsCaught) {
  const auto mutant = [](float x) {
    const auto s = mxv::device::swiglu_math::exp_steps_1_to_3(x);
    float e = std::bit_cast<float>((bits(s.t) << 23) + bits(s.p));
    e = x < -104.0f ? 0.0f : e;
    e = x > mxv::device::swiglu_math::kExpMaxFinite ? INFINITY : e;
    return 1.0f + e;
  };
  EXPECT_GT(one_plus_exp_disagreements(mutant, bits(-64.0f), bits(-128.0f)), 0u);
}

/// The clamped run check's min / max drop a NaN of either kind, a signalling one included (glibc's
/// std::fmin returns a NaN for one, and a NaN bound would let a run with a large negative gate past
/// the check).
TEST(SwigluMathExtremeDroppingNan, DropsQuietAndSignallingNans) {
  using mxv::device::swiglu_math::extreme_dropping_nan;
  for (const std::uint32_t nan_bits : {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800001u, 0x7FA00000u}) {
    const float nan = std::bit_cast<float>(nan_bits);
    EXPECT_EQ(extreme_dropping_nan<false>(-87.0f, nan), -87.0f) << std::hex << nan_bits;
    EXPECT_EQ(extreme_dropping_nan<false>(nan, -87.0f), -87.0f) << std::hex << nan_bits;
    EXPECT_EQ(extreme_dropping_nan<true>(5.0f, nan), 5.0f) << std::hex << nan_bits;
    EXPECT_EQ(extreme_dropping_nan<true>(nan, 5.0f), 5.0f) << std::hex << nan_bits;
    EXPECT_TRUE(std::isnan(extreme_dropping_nan<true>(nan, nan)));
  }
  EXPECT_EQ(extreme_dropping_nan<false>(-87.0f, 3.0f), -87.0f);
  EXPECT_EQ(extreme_dropping_nan<false>(3.0f, -87.0f), -87.0f);
  EXPECT_EQ(extreme_dropping_nan<true>(-87.0f, 3.0f), 3.0f);
  EXPECT_EQ(extreme_dropping_nan<true>(-INFINITY, INFINITY), INFINITY);
}

/// The check above can fail: std::fmin, the obvious implementation, does not drop a signalling NaN
/// with glibc.
TEST(SwigluMathExtremeDroppingNan, PlantedBugStdFminIsCaught) {
  const float snan = std::bit_cast<float>(0x7F800001u);
  const volatile float keep = snan;  // not folded at compile time: the library call decides
  EXPECT_TRUE(std::isnan(std::fmin(-87.0f, static_cast<float>(keep))));
}

}  // namespace
