// The proofs behind the NVFP4 block reciprocal without div_rn's per-call check
// (device/include/mxv/device/kernels/quick_division.h, reciprocal_min_flt_max_quick; used by
// qrules::nvfp4_te_block when the tensor scale allows it):
//  - div_by_corrected_reciprocal(1, d) equals div_rn(1, d) for every normal d of magnitude in
//    [2^-124, 2^124], with both reciprocals the kernels correct (sm_90's captured
//    rcp.approx.ftz.f32 and the host's; docs/semantics.md section 4.6). Every divisor of the two
//    end binades, both signs, every divisor of [1, 2^64] (the clamped SwiGLU's quick gate factor's
//    divisors, kernels/swiglu_math.h), and every 61st significand of every binade between. The
//    binades between follow from one (quick_division.h says why each step scales exactly);
//  - reciprocal_min_flt_max_quick equals min_flt_max(div_rn(1, d)) there and on +-0 and every NaN;
//  - a tensor scale that sets quick_block_reciprocal puts every block divisor fp32(sf) * s_dec of
//    all 256 E4M3 codes in that set, and nvfp4_te_block's two forms then agree on every code;
// and the planted bugs: divisors past either end, a reciprocal one ulp low, an s_dec past its
// bound.
#include "mxv/device/kernels/quick_division.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <thread>

#include "mxv/device/kernels/quantize_rules.h"
#include "mxv/device/kernels/swiglu_math.h"
#include "mxv/reference/rcp_approx.h"

namespace {

namespace q = mxv::device::qrules;

std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }
float from_bits(std::uint32_t b) { return std::bit_cast<float>(b); }

const mxv::RcpApproxTable& sm90_table() { return mxv::require_rcp_approx_table(nullptr, "the quick reciprocal proof"); }
float sm90_rcp(float x) { return sm90_table().rcp(x); }
float host_rcp(float x) { return q::rcp_approx_ftz(x); }

enum class Signs { kPositive, kBoth };

/// Divisors d (or +-d) for the patterns d = lo, lo + step, ... <= hi whose corrected reciprocal,
/// with any of `rcps`, differs from div_rn(1, d): "" when none does, else the first.
template <class... Rcp>
std::string reciprocal_disagreement(std::uint32_t lo, std::uint32_t hi, std::uint32_t step, Signs signs,
                                    Rcp... rcps) {
  for (std::uint64_t b = lo; b <= hi; b += step) {
    for (const std::uint32_t sign : {0u, 0x80000000u}) {
      if (sign != 0u && signs == Signs::kPositive) continue;
      const float d = from_bits(static_cast<std::uint32_t>(b) | sign);
      const std::uint32_t want = bits(q::div_rn(1.0f, d));
      int which = 0;
      for (const std::uint32_t got : {bits(q::div_by_corrected_reciprocal(1.0f, d, rcps))...}) {
        if (got != want) {
          char buf[120];
          std::snprintf(buf, sizeof buf, "d = 0x%08X, reciprocal %d: quick 0x%08X, div_rn 0x%08X", bits(d), which, got,
                        want);
          return buf;
        }
        ++which;
      }
    }
  }
  return {};
}

constexpr std::uint32_t kMinBits = 0x01800000u;  // 2^-124
constexpr std::uint32_t kMaxBits = 0x7D800000u;  // 2^124
constexpr std::uint32_t kBinade = 0x00800000u;

TEST(QuickDivisionBounds, TheRangeConstantsAreTheirPatterns) {
  EXPECT_EQ(bits(q::kQuickReciprocalMin), kMinBits);
  EXPECT_EQ(bits(q::kQuickReciprocalMax), kMaxBits);
}

TEST(QuickReciprocal, EveryDivisorOfTheEndBinadesIsCorrectlyRoundedWithBothReciprocals) {
  (void)sm90_table();
  std::string low, high;
  std::thread t([&] { high = reciprocal_disagreement(kMaxBits - kBinade, kMaxBits, 1, Signs::kBoth, sm90_rcp, host_rcp); });
  low = reciprocal_disagreement(kMinBits, kMinBits + kBinade, 1, Signs::kBoth, sm90_rcp, host_rcp);
  t.join();
  EXPECT_EQ(low, "");
  EXPECT_EQ(high, "");
}

// [1, 2) with both signs, then every positive divisor up to 2^64 (the clamped gate factor's).
TEST(QuickReciprocal, EveryDivisorUpTo2To64IsCorrectlyRoundedWithBothReciprocals) {
  (void)sm90_table();
  EXPECT_EQ(reciprocal_disagreement(bits(1.0f), bits(2.0f), 1, Signs::kBoth, sm90_rcp, host_rcp), "");
  const std::uint32_t lo = bits(1.0f), hi = mxv::device::swiglu_math::kClampedQuickMaxDivisorBits, mid = lo + (hi - lo) / 2;
  std::string low, high;
  std::thread t([&] { high = reciprocal_disagreement(mid + 1, hi, 1, Signs::kPositive, sm90_rcp, host_rcp); });
  low = reciprocal_disagreement(lo, mid, 1, Signs::kPositive, sm90_rcp, host_rcp);
  t.join();
  EXPECT_EQ(low, "");
  EXPECT_EQ(high, "");
}

TEST(QuickReciprocal, EveryBinadeOfTheRangeAgreesOnASampleOfSignificands) {
  (void)sm90_table();
  EXPECT_EQ(reciprocal_disagreement(kMinBits, kMaxBits, 61, Signs::kBoth, sm90_rcp, host_rcp), "");
}

TEST(QuickReciprocal, PlantedBugsDivisorsPastEitherEndOrInfOrAReciprocalOneUlpLowAreCaught) {
  for (const auto rcp : {sm90_rcp, host_rcp}) {
    // Past 2^126 the reciprocal is under 2^-126 and flushes to zero; Inf's residual is Inf times 0.
    EXPECT_NE(reciprocal_disagreement(0x7E800001u, 0x7E800001u, 1, Signs::kBoth, rcp), "");
    EXPECT_NE(reciprocal_disagreement(0x7F800000u, 0x7F800000u, 1, Signs::kBoth, rcp), "");
  }
  // sm_90 flushes a subnormal divisor to zero, so its reciprocal is Inf (the host's is not).
  EXPECT_NE(reciprocal_disagreement(0x00400000u, 0x00400000u, 1, Signs::kBoth, sm90_rcp), "");
  const auto one_ulp_low = [](float x) { return from_bits(bits(1.0f / x) - 1u); };
  EXPECT_NE(reciprocal_disagreement(bits(1.0f), bits(2.0f), 1, Signs::kBoth, one_ulp_low), "");
}

/// reciprocal_min_flt_max_quick(d) against min_flt_max(div_rn(1, d)) for d = lo .. hi (step), both
/// signs: "" or the first difference.
std::string clamp_disagreement(std::uint32_t lo, std::uint32_t hi, std::uint32_t step) {
  for (std::uint64_t b = lo; b <= hi; b += step) {
    for (const std::uint32_t sign : {0u, 0x80000000u}) {
      const float d = from_bits(static_cast<std::uint32_t>(b) | sign);
      const std::uint32_t want = bits(q::min_flt_max(q::div_rn(1.0f, d)));
      const std::uint32_t got = bits(q::reciprocal_min_flt_max_quick(d));
      if (got != want) {
        char buf[100];
        std::snprintf(buf, sizeof buf, "d = 0x%08X: quick 0x%08X, want 0x%08X", bits(d), got, want);
        return buf;
      }
    }
  }
  return {};
}

TEST(QuickReciprocal, TheClampedFormAgreesOnTheRangeOnZerosAndOnEveryNan) {
  EXPECT_EQ(clamp_disagreement(0u, 0u, 1), "");                    // +-0: FLT_MAX and -Inf
  EXPECT_EQ(clamp_disagreement(0x7F800001u, 0x7FFFFFFFu, 1), "");  // every NaN: FLT_MAX
  EXPECT_EQ(clamp_disagreement(bits(1.0f), bits(2.0f), 1), "");
  EXPECT_EQ(clamp_disagreement(kMinBits, kMaxBits, 257), "");
}

/// The tensor scale of a calibrated amax whose s_dec is `s_dec` (amax = 2688 * s_dec up to
/// rounding; the test reads the s_dec it got).
q::Nvfp4TensorScale scale_near(float s_dec) { return q::nvfp4_tensor_scale(q::mul_rn(q::kNvfp4AmaxToScale, s_dec)); }

TEST(QuickReciprocal, TheTensorScaleFlagPutsEveryBlockDivisorInRangeAndBothFormsAgree) {
  int quick_scales = 0;
  for (const float s : {0x1p-115f, 0x1.000002p-115f, 0x1p115f, 0x1.fffffep114f, -0x1p-115f, -0x1p115f, 1.0f,
                        0x1.234568p-60f, 0x1.fedcbap100f, 3.0e-30f}) {
    const q::Nvfp4TensorScale ts = scale_near(s);
    const float m = std::fabs(ts.s_dec);
    EXPECT_EQ(ts.quick_block_reciprocal, m >= 0x1p-115f && m <= 0x1p115f) << "s_dec " << ts.s_dec;
    if (!ts.quick_block_reciprocal) continue;
    ++quick_scales;
    for (std::uint32_t code = 0; code < 256; ++code) {
      const float d = q::mul_rn(mxv::device::cvt::f32_from_e4m3(static_cast<std::uint8_t>(code)), ts.s_dec);
      const float a = std::fabs(d);
      EXPECT_TRUE(a == 0.0f || std::isnan(a) || (a >= q::kQuickReciprocalMin && a <= q::kQuickReciprocalMax))
          << "code " << code << " s_dec " << ts.s_dec << " d " << d;
    }
    // Every code through the amax that makes it (amax * s_enc / 6 = the code's value, and around it).
    for (std::uint32_t code = 0; code < 256; ++code) {
      const float sf = mxv::device::cvt::f32_from_e4m3(static_cast<std::uint8_t>(code));
      if (std::isnan(sf)) continue;
      const float amax = q::div_rn(sf, ts.s_enc_over_6);
      for (const std::uint32_t key : {bits(std::fabs(amax)), bits(std::fabs(amax)) + 1u, bits(std::fabs(amax)) - 1u}) {
        const q::BlockChoice slow = q::nvfp4_te_block<false>(key, ts);
        const q::BlockChoice quick = q::nvfp4_te_block<true>(key, ts);
        EXPECT_EQ(quick.code, slow.code);
        EXPECT_EQ(bits(quick.multiplier), bits(slow.multiplier)) << "key 0x" << std::hex << key << " s_dec " << ts.s_dec;
      }
    }
  }
  EXPECT_GE(quick_scales, 6);  // the loop above ran on the in-range scales
}

TEST(QuickReciprocal, PlantedBugAnSDecPastItsBoundPutsADivisorOutOfRange) {
  const q::Nvfp4TensorScale ts = scale_near(0x1p116f);  // amax about 2^127.4, near the largest
  EXPECT_FALSE(ts.quick_block_reciprocal);
  const float d = q::mul_rn(448.0f, ts.s_dec);  // E4M3's largest code with this s_dec
  EXPECT_GT(std::fabs(d), q::kQuickReciprocalMax);
}

}  // namespace
