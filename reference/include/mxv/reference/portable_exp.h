// An fp32 exp that a CPU and a CUDA kernel compute bit for bit identically (docs/semantics.md
// section 7: "exp is where bit-exactness dies"). CUDA `expf` / `__expf` go through the hardware
// `ex2.approx`, whose results are not documented; glibc `expf` differs between versions. This exp
// uses only IEEE-754 binary32 fma, add and multiply (each correctly rounded to nearest-even, so
// identical on any conforming hardware), integer arithmetic on bit patterns, and comparisons, in
// the fixed order written below. A kernel that follows the same steps reproduces every result.
//
// The algorithm (every constant is an exact fp32 value, written as a hex-float):
//
//   0. Special cases, checked in this order:
//        x is NaN                          -> 0x7FC00000 (canonical quiet NaN; payloads are not
//                                             propagated, because CPU and GPU propagate differently)
//        x >  0x1.62e42ep+6 (88.72283172607421875, the largest x whose exp is finite)  -> +Inf
//        x <  -104.0 (exp(-104) < 2^-150, which rounds to 0; -Inf included)          -> +0
//   1. t  = fma(x, kLog2e, kShift)         kLog2e = 0x1.715476p+0, kShift = 0x1.8p+23
//      n  = bits(t) - bits(kShift)         (int32; t's ulp is 1, so n = round-to-even(x*log2e'))
//      nf = t - kShift                     (exact: nf == n)
//   2. r  = fma(nf, -kLn2Hi, x)            kLn2Hi = 0x1.62e43p-1 (float nearest ln 2); exact:
//                                             n = 0 gives r = x; n != 0 needs |x| > 0.34, so x
//                                             and nf*kLn2Hi are multiples of 2^-25 and |r| < 0.35
//                                             fits in 24 bits of that grid
//      r  = fma(nf, -kLn2Lo, r)            kLn2Lo = -0x1.05c61p-29 (ln 2 - kLn2Hi, rounded)
//   3. q  = kC7                            Horner in fma, one fma per coefficient:
//      q  = fma(q, r, kC6) ... fma(q, r, kC2)
//      q  = fma(q, r, 1.0f)
//      p  = fma(q, r, 1.0f)                p ~ exp(r), in [0.70, 1.42]
//        kC7 = 0x1.a12532p-13  kC6 = 0x1.6d436ep-10  kC5 = 0x1.1110ep-7
//        kC4 = 0x1.5554e8p-5   kC3 = 0x1.555556p-3   kC2 = 0x1.0p-1
//      (a Chebyshev fit of (exp(r)-1-r)/r^2 on |r| <= 0.3468, computed with mpmath and rounded
//      to fp32; its own relative error is 7.6e-10, 0.013 ulp, so fp32 rounding dominates)
//   4. n1 = n >> 1 (arithmetic), n2 = n - n1; y = (p * 2^n1) * 2^n2, where 2^k is the fp32 with
//      bits (k + 127) << 23. n lies in [-150, 128], so both factors are normal; the first
//      product is exact, the second rounds once, to a subnormal when y < 2^-126 (gradual
//      underflow: results are NOT flushed to zero) or to a normal otherwise.
//
// Accuracy against the correctly rounded exp, measured over every fp32 input in range (see
// BENCHMARKS.md "swiglu, portable exp" and the exhaustive test): at most 1 ulp.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace mxv {

/// fp32 exp from fma/add/mul only, in the fixed order above; bit-identical on CPU and GPU.
float portable_exp(float x);

/// Elementwise portable_exp; `out` must have the size of `in` (throws std::invalid_argument).
void portable_exp(std::span<const float> in, std::span<float> out);

/// The canonical quiet NaN that portable_exp and the SwiGLU activations return for NaN.
inline constexpr std::uint32_t kCanonicalNanBits = 0x7FC00000u;

/// Bounds of the special-case ranges of step 0, exposed so tests and kernels share the facts.
inline constexpr float kPortableExpMaxFinite = 0x1.62e42ep+6f;  // 88.72283172607421875
inline constexpr float kPortableExpZeroBelow = -104.0f;

/// The largest ulp_distance from the correctly rounded exp over every fp32 input, as measured
/// (BENCHMARKS.md; pinned by tests/reference/portable_exp_exhaustive_test.cpp).
inline constexpr std::uint64_t kPortableExpMaxUlp = 1;

/// Number of representable fp32 values between a and b, counting one of them (0 when equal;
/// +0 and -0 are equal; +-Inf count as the values after +-FLT_MAX). Measures ulp error;
/// throws std::invalid_argument when either argument is NaN.
std::uint64_t ulp_distance(float a, float b);

/// The correctly rounded fp32 exp, the oracle for accuracy measurements: glibc's double exp
/// (error < 1 double ulp), redone in long double when the double result lies within 2^-48
/// (relative) of an fp32 rounding boundary. Throws std::runtime_error if even the long double
/// result cannot decide the rounding (exp of a nonzero float is transcendental, so it never
/// sits exactly on a boundary; this has not happened on any fp32 input). NaN -> canonical NaN.
float correctly_rounded_exp(float x);

/// Error of an fp32 exp implementation against correctly_rounded_exp.
struct ExpErrorReport {
  std::uint64_t inputs = 0;                     // non-NaN inputs compared
  std::array<std::uint64_t, 8> count_by_ulp{};  // [k]: results k ulp away; [7]: 7 or more
  std::uint64_t max_ulp = 0;                    // largest ulp_distance seen
  float worst_input = 0.0f;                     // first input (in sweep order) reaching max_ulp
  double max_error_ulp = 0.0;                   // largest |y - exp(x)| / ulp(exp(x)), real-valued
  std::uint64_t nan_mismatches = 0;             // NaN input without NaN output, or the reverse
};

/// Compares `candidate` with correctly_rounded_exp on the fp32 bit patterns 0, stride,
/// 2*stride, ... below 2^32 (stride 1: all of them, NaNs and infinities included), split over
/// `threads` threads. stride and threads must be >= 1 (throws std::invalid_argument).
ExpErrorReport measure_exp_error(float (*candidate)(float), std::uint32_t stride,
                                 unsigned threads);

}  // namespace mxv
