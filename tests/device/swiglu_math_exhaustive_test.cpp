// The proofs behind the quick gate factors (device/include/mxv/device/kernels/swiglu_math.h),
// which divide by a corrected reciprocal without div_rn's per-call check:
//  - silu_gate_quick: for every gate whose key says "quick" (|g| in [2^-64, 64], about 1.2e9 fp32
//    values, both signs) the quotient equals silu_gate's bit for bit;
//  - clamped_gate_quick: every exp argument up to 44 gives a divisor in [1, 2^64] (and for every
//    divisor there the quick reciprocal equals div_rn(1, d): tests/device/
//    quick_division_exhaustive_test.cpp);
// each with both reciprocals the kernels correct: sm_90's rcp.approx.ftz.f32 (the captured model of
// the H200's, mxv/reference/rcp_approx.h, equal to the hardware on all 2^32 inputs:
// docs/semantics.md section 4.6) and the host's (swiglu_math::rcp_approx_ftz: correctly rounded,
// the same flushes), which the emulator runs. The kernels run the same template
// (div_by_corrected_reciprocal). It holds for those reciprocals, not for any within one ulp: one ulp
// under the correctly rounded reciprocal, g = 2^-23 already rounds wrongly (a planted case below),
// which is why other GPUs take div_rn. Also: the silu key selects exactly its set of gates (all
// 2^32 patterns), and wider ranges are caught.
#include "mxv/device/kernels/swiglu_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "mxv/reference/rcp_approx.h"

namespace {

namespace sm = mxv::device::swiglu_math;

std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }
float from_bits(std::uint32_t b) { return std::bit_cast<float>(b); }

/// Gates g in [lo, hi] (positive patterns, lo <= hi) and -g whose quotient by the corrected
/// reciprocal, with any of the reciprocal approximations `rcps`, differs from silu_gate(g).
/// Returns "" when none does, else the first.
template <class... Rcp>
std::string quick_disagreement(std::uint32_t lo, std::uint32_t hi, Rcp... rcps) {
  char buf[200];
  for (std::uint64_t b = lo; b <= hi; ++b) {
    for (const std::uint32_t sign : {0u, 0x80000000u}) {
      const float g = from_bits(static_cast<std::uint32_t>(b) | sign);
      const float d = sm::one_plus_exp_any_nan(-g);
      const std::uint32_t want = bits(sm::silu_gate(g));
      int which = 0;
      for (const std::uint32_t got : {bits(sm::div_by_corrected_reciprocal(g, d, rcps))...}) {
        if (got != want) {
          std::snprintf(buf, sizeof buf, "g = 0x%08X, d = 0x%08X, reciprocal %d: quick 0x%08X, div_rn 0x%08X", bits(g),
                        bits(d), which, got, want);
          return buf;
        }
        ++which;
      }
    }
  }
  return {};
}

/// The sm_90 reciprocal: the committed capture's model (the test fails when it cannot be found).
const mxv::RcpApproxTable& sm90_table() { return mxv::require_rcp_approx_table(nullptr, "the quick silu proof"); }
float sm90_rcp(float x) { return sm90_table().rcp(x); }
/// The emulator's reciprocal.
float host_rcp(float x) { return sm::rcp_approx_ftz(x); }

/// quick_disagreement with the sm_90 reciprocal (0) and the host's (1), [lo, hi] split over the
/// host's threads (at least two); the first disagreement any thread found, or "".
std::string both_disagreement_parallel(std::uint32_t lo, std::uint32_t hi) {
  (void)sm90_table();  // load once, before the threads
  const unsigned n = std::max(2u, std::thread::hardware_concurrency());
  const std::uint64_t span = std::uint64_t{hi} - lo + 1;
  std::vector<std::string> found(n);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < n; ++t) {
    const std::uint64_t first = lo + span * t / n;
    const std::uint64_t last = lo + span * (t + 1) / n;  // exclusive
    if (first == last) continue;
    threads.emplace_back([&found, t, first, last] {
      found[t] = quick_disagreement(static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(last - 1), sm90_rcp,
                                    host_rcp);
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& f : found) {
    if (!f.empty()) return f;
  }
  return {};
}

TEST(SwigluMathQuickSilu, EveryQuickGateEqualsSiluGateWithTheSm90AndTheHostReciprocal) {
  EXPECT_EQ(both_disagreement_parallel(sm::kSiluQuickLowBits, sm::kSiluQuickHighBits), "");
  std::printf("2 x %u gates, two reciprocals: the quick quotient equals div_rn\n",
              sm::kSiluQuickHighBits - sm::kSiluQuickLowBits + 1);
}

TEST(SwigluMathQuickSilu, TheKeySelectsExactlyTheQuickRange) {
  std::uint64_t wrong = 0;
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); ++b) {
    const auto u = static_cast<std::uint32_t>(b);
    const std::uint32_t magnitude = u & 0x7FFFFFFFu;
    const bool in_range = magnitude >= sm::kSiluQuickLowBits && magnitude <= sm::kSiluQuickHighBits;
    wrong += (sm::silu_quick_key(from_bits(u)) <= sm::kSiluQuickKeyMax) != in_range;
  }
  EXPECT_EQ(wrong, 0u);
  // The named ends and what lies just outside them.
  EXPECT_LE(sm::silu_quick_key(std::ldexp(1.0f, -64)), sm::kSiluQuickKeyMax);
  EXPECT_LE(sm::silu_quick_key(-64.0f), sm::kSiluQuickKeyMax);
  EXPECT_GT(sm::silu_quick_key(std::nextafter(64.0f, 100.0f)), sm::kSiluQuickKeyMax);
  for (const float outside : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-30f, -100.0f}) {
    EXPECT_GT(sm::silu_quick_key(outside), sm::kSiluQuickKeyMax) << outside;
  }
}

// The proof can fail. Outside the range the quick quotient is wrong, so a key that let those gates
// in would be caught: -0 divides to +0 (the residual's sign), below about -87.3 the sm_90
// reciprocal of the divisor flushes to zero, and from -88.73 on the divisor is Inf (Inf times 0 in
// the residual). And a reciprocal other than the GPU's: one ulp under the correctly rounded one.
TEST(SwigluMathQuickSilu, PlantedBugsAWiderRangeOrAnotherReciprocalAreCaught) {
  for (const auto rcp : {sm90_rcp, host_rcp}) {
    EXPECT_NE(quick_disagreement(0x00000000u, 0x00000000u, rcp), "");  // the zeros
    EXPECT_NE(quick_disagreement(bits(87.5f), bits(88.0f), rcp), "");  // reciprocal flushed
    EXPECT_NE(quick_disagreement(bits(89.0f), bits(89.0f), rcp), "");  // divisor Inf
    EXPECT_EQ(quick_disagreement(0x34000000u, 0x34000000u, rcp), "");
  }
  const auto one_ulp_under = [](float x) { return from_bits(bits(1.0f / x) - 1u); };
  EXPECT_NE(quick_disagreement(0x34000000u, 0x34000000u, one_ulp_under), "");
}

/// Exp arguments x in [lo, hi] (patterns, lo <= hi, one sign) whose divisor 1 + exp(x) lies
/// outside [1, max_divisor]; "" when none does, else the first.
std::string divisor_outside(std::uint32_t lo, std::uint32_t hi, float max_divisor) {
  for (std::uint64_t b = lo; b <= hi; ++b) {
    const float x = from_bits(static_cast<std::uint32_t>(b));
    const float d = sm::one_plus_exp_any_nan(x);
    if (!(d >= 1.0f && d <= max_divisor)) {
      char buf[120];
      std::snprintf(buf, sizeof buf, "x = 0x%08X: divisor 0x%08X", bits(x), bits(d));
      return buf;
    }
  }
  return {};
}

// Every argument up to the bound: [0, 44] and [-86, -0] swept; below -86 (and for a NaN)
// one_plus_exp_any_nan takes max(x, -86) first, so those give -86's divisor.
TEST(SwigluMathQuickClamped, EveryExpArgumentUpToTheBoundGivesADivisorUpTo2To64) {
  const float max_divisor = from_bits(sm::kClampedQuickMaxDivisorBits);
  std::string positive, negative;
  std::thread t([&] { negative = divisor_outside(bits(-0.0f), bits(-86.0f), max_divisor); });
  positive = divisor_outside(bits(0.0f), bits(sm::kClampedQuickMaxExpArg), max_divisor);
  t.join();
  EXPECT_EQ(positive, "");
  EXPECT_EQ(negative, "");
  for (const float x : {-86.5f, -1e30f, -INFINITY, NAN}) {
    EXPECT_EQ(bits(sm::one_plus_exp_any_nan(x)), bits(sm::one_plus_exp_any_nan(-86.0f))) << x;
  }
}

// The sweep can fail: an argument bound past 44.36 lets divisors beyond 2^64 in (from 88.73 on Inf),
// where quick_division_exhaustive_test.cpp shows the quick reciprocal wrong.
TEST(SwigluMathQuickClamped, PlantedBugAWiderBoundIsCaught) {
  EXPECT_NE(divisor_outside(bits(44.0f), bits(45.0f), from_bits(sm::kClampedQuickMaxDivisorBits)), "");
}

}  // namespace
