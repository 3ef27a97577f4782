// Device-side SwiGLU arithmetic: the portable exp and the two activations, in the exact fp32
// operation order the reference documents (reference/portable_exp.h steps 0-4; reference/swiglu.h
// "The exact fp32 operation order"), so kernel and model agree bit for bit (docs/semantics.md
// section 7: "exp is where bit-exactness dies").
//
// Written independently from the documented order (no reference code): every rounding step is an
// explicit correctly rounded primitive. On the GPU those are __fmaf_rn / __fadd_rn / __fmul_rn /
// __fdiv_rn, which nvcc never contracts or approximates (even under --use_fast_math), and the .cu
// files that include this are also built with -fmad=false. On the host (the emulator) they are
// std::fma and plain operators, and g++ in ISO C++20 mode does not contract (-ffp-contract=off).
#pragma once

#include <cstdint>

#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernels/quantize_rules.h"  // mul_rn, div_rn, fma_rn, div_quick

namespace mxv::device::swiglu_math {

MXV_HD MXV_FORCEINLINE float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
MXV_HD MXV_FORCEINLINE float sub_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
// The correctly rounded multiply and divide are the block-scaling rules' own (one definition).
using qrules::div_rn;
using qrules::fma_rn;
using qrules::mul_rn;
// The division without nvcc's per-call check (kernels/quick_division.h).
using qrules::div_by_corrected_reciprocal;
using qrules::div_quick;
using qrules::kQuickDivision;
using qrules::rcp_approx_ftz;

inline constexpr std::uint32_t kQuietNan = 0x7FC00000u;

MXV_HD MXV_FORCEINLINE bool is_nan(float x) { return (cvt::bits_of(x) & 0x7FFFFFFFu) > 0x7F800000u; }

/// A NaN becomes the canonical quiet NaN (the contract fixes one payload for CPU and GPU).
MXV_HD MXV_FORCEINLINE float canonical(float x) { return is_nan(x) ? cvt::float_of(kQuietNan) : x; }

/// Step 1's shift, 1.5 * 2^23: t = fma(x, log2e, shift) has an ulp of 1, so n sits in t's low bits.
inline constexpr float kExpShift = 0x1.8p+23f;
/// The largest x whose exp is finite (step 0's overflow bound, an exact fp32 value).
inline constexpr float kExpMaxFinite = 0x1.62e42ep+6f;

/// Steps 1-3 of the portable exp: `t` carries n (its pattern minus the shift's, modulo 2^32) and
/// `p` ~ exp(r) in [0.70, 1.42], so that exp(x) = p * 2^n before step 4's rounding.
struct ExpSteps {
  float t;
  float p;
};

MXV_HD MXV_FORCEINLINE ExpSteps exp_steps_1_to_3(float x) {
  // Step 1: t = fma(x, log2e, 1.5*2^23); n from t's low mantissa bits; nf = t - shift (exact).
  const float t = fma_rn(x, 0x1.715476p+0f, kExpShift);
  const float nf = sub_rn(t, kExpShift);
  // Step 2: Cody-Waite reduction with the two-part ln 2.
  float r = fma_rn(nf, -0x1.62e43p-1f, x);
  r = fma_rn(nf, 0x1.05c61p-29f, r);  // -kLn2Lo, kLn2Lo = -0x1.05c61p-29
  // Step 3: Horner, one fma per coefficient, innermost first.
  float q = 0x1.a12532p-13f;
  q = fma_rn(q, r, 0x1.6d436ep-10f);
  q = fma_rn(q, r, 0x1.1110ep-7f);
  q = fma_rn(q, r, 0x1.5554e8p-5f);
  q = fma_rn(q, r, 0x1.555556p-3f);
  q = fma_rn(q, r, 0x1.0p-1f);
  q = fma_rn(q, r, 1.0f);
  return {t, fma_rn(q, r, 1.0f)};
}

/// exp(x) from fma/add/mul in the reference's documented order (portable_exp.h steps 0-4), except
/// that a NaN input gives a NaN of unspecified payload (the arithmetic carries it through) rather
/// than the canonical one. Steps 1-4 run for every input and step 0's overflow and underflow
/// cases select their results at the end, without branches: on sm_90, step 0 as tested branches
/// cost about 14 of the 33 instructions of one exp in the fused kernel. For the inputs step 0
/// catches, the arithmetic below computes a value that is then discarded; its integer steps are
/// unsigned or cannot overflow, so no input has undefined behaviour.
MXV_HD MXV_FORCEINLINE float exp_portable_any_nan(float x) {
  const ExpSteps s = exp_steps_1_to_3(x);
  const auto n = static_cast<std::int32_t>(cvt::bits_of(s.t) - cvt::bits_of(kExpShift));  // modulo 2^32
  // Step 4: two normal power-of-two factors (n in [-150, 128] on the inputs that reach here); only
  // the second product rounds. |n >> 1| <= 2^30, so n1 + 127 and n - n1 cannot overflow.
  const std::int32_t n1 = n >> 1;
  const std::int32_t n2 = n - n1;
  const float f1 = cvt::float_of(static_cast<std::uint32_t>(n1 + 127) << 23);
  const float f2 = cvt::float_of(static_cast<std::uint32_t>(n2 + 127) << 23);
  // A NaN x made t, nf, r, q and p NaN, and a NaN times anything is a NaN; both tests below are
  // false for it.
  float result = mul_rn(mul_rn(s.p, f1), f2);
  // Step 0: underflow, overflow (these bounds are exact fp32 values).
  result = x < -104.0f ? 0.0f : result;
  return x > kExpMaxFinite ? cvt::float_of(0x7F800000u) : result;
}

/// Below this x, 1 + exp(x) is 1 whatever exp(x)'s bits: exp(x) < exp(-86) < 2^-124, far under
/// half an ulp of 1 (2^-24). At or above it, n >= -124 (x * log2e >= -124.07).
inline constexpr float kOnePlusExpIsOneBelow = -86.0f;

/// 1 + exp(x) rounded once, equal bit for bit to add_rn(1, exp_portable_any_nan(x)) for every
/// non-NaN x (a NaN x gives 1: both gate factors that use it are NaN for a NaN gate through their
/// other operand). What it saves is step 4 and the underflow select: x is clamped to the bound
/// below which 1 + exp(x) is 1, so n >= -124 and p * 2^n is a normal number, which step 4's two
/// products return exactly; its pattern is p's with n added to the exponent field, and n << 23 is
/// t's pattern shifted by 23 (the shift constant's pattern, 0x4B400000, vanishes when shifted by 23
/// modulo 2^32). One integer instruction and a max instead of nine per exp (docs/design.md section
/// 5.4); tests/device/swiglu_math_test.cpp checks every fp32 input where the two could differ.
MXV_HD MXV_FORCEINLINE float one_plus_exp_any_nan(float x) {
  // 1 + exp(bound) is 1 as well; a max also turns a NaN into the bound.
#if defined(__CUDA_ARCH__)
  const float xc = fmaxf(x, kOnePlusExpIsOneBelow);
#else
  const float xc = std::fmax(x, kOnePlusExpIsOneBelow);
#endif
  const ExpSteps s = exp_steps_1_to_3(xc);
  const float e = cvt::float_of((cvt::bits_of(s.t) << 23) + cvt::bits_of(s.p));
  return add_rn(1.0f, xc > kExpMaxFinite ? cvt::float_of(0x7F800000u) : e);
}

/// exp(x) exactly as the reference (portable_exp.h steps 0-4), a NaN input giving the canonical NaN.
MXV_HD MXV_FORCEINLINE float exp_portable(float x) {
  return is_nan(x) ? cvt::float_of(kQuietNan) : exp_portable_any_nan(x);
}

// Each activation is (a factor of the gate alone) * (a factor of up alone), one correctly rounded
// product. The gate factor is split out because it depends on g only: for a bf16 gate the fused
// kernel reads it from a table of every bf16 value the table covers (kernels/swiglu_gate_table.h),
// filled by these same functions. The factors and products give some NaN for a NaN (its payload
// passes through the division or the product unspecified; one_plus_exp_any_nan gives 1 for a
// NaN); the contract's one NaN payload is `canonical`'s, applied by the kernels where a NaN can be
// stored (the fused kernel only in a block that holds one, so finite blocks skip the check).

/// silu's gate factor: e = exp(-g); d = 1 + e; s = g / d.
MXV_HD MXV_FORCEINLINE float silu_gate(float g) {
  return div_rn(g, one_plus_exp_any_nan(-g));
}

/// The gates whose silu factor the quick division gives exactly: |g| in [2^-64, 64] (so the
/// quotient and the divisor 1 + exp(-g) <= 1 + e^64 are normal far from both ends of the range).
/// silu_quick_key maps them, and only them, to [0, kSiluQuickKeyMax]: twice the magnitude's
/// pattern (the sign shifted out) less twice 2^-64's, unsigned. So one maximum over a run of keys
/// says whether every gate of the run qualifies.
inline constexpr std::uint32_t kSiluQuickLowBits = 0x1F800000u;   // 2^-64
inline constexpr std::uint32_t kSiluQuickHighBits = 0x42800000u;  // 64
inline constexpr std::uint32_t kSiluQuickKeyMax = (kSiluQuickHighBits - kSiluQuickLowBits) << 1;
MXV_HD MXV_FORCEINLINE std::uint32_t silu_quick_key(float g) {
  return (cvt::bits_of(g) << 1) - (kSiluQuickLowBits << 1);
}

/// silu_gate for a gate whose key is at most kSiluQuickKeyMax, without div_rn's per-call check
/// (its test, branch and convergence barrier: four of about 29 instructions per output on sm_90).
/// The same bits: tests/device/swiglu_math_exhaustive_test.cpp runs this quotient over every such
/// gate with the model of sm_90's reciprocal and with the host's.
MXV_HD MXV_FORCEINLINE float silu_gate_quick(float g) { return div_quick(g, one_plus_exp_any_nan(-g)); }

/// The clamped SwiGLU's gate g' = min(g, limit), a NaN falling through.
MXV_HD MXV_FORCEINLINE float clamped_gate_input(float g, float limit) { return g > limit ? limit : g; }

/// The argument of the clamped SwiGLU's exp: -(alpha * g').
MXV_HD MXV_FORCEINLINE float clamped_exp_arg(float g, float alpha, float limit) {
  return -mul_rn(alpha, clamped_gate_input(g, limit));
}

/// The clamped SwiGLU's gate factor, t = g' * (1 / (1 + exp(-(alpha * g')))), with the reciprocal
/// `recip` takes of the divisor.
template <class Recip>
MXV_HD MXV_FORCEINLINE float clamped_gate_with(float g, float alpha, float limit, Recip recip) {
  return mul_rn(clamped_gate_input(g, limit), recip(one_plus_exp_any_nan(clamped_exp_arg(g, alpha, limit))));
}

/// The clamped SwiGLU's gate factor (g' = min(g, limit) with NaN falling through).
MXV_HD MXV_FORCEINLINE float clamped_gate(float g, float alpha, float limit) {
  return clamped_gate_with(g, alpha, limit, [](float d) { return div_rn(1.0f, d); });
}

/// The larger (`kMax`) or smaller of a and b with a NaN of either kind dropped: one FMNMX on the
/// GPU (PTX max / min return the other operand for any NaN). On the host std::fmax / fmin would
/// not do: glibc returns a NaN for a signalling one, and a NaN bound would let a run with a large
/// negative gate past the clamped check in kernels/swiglu_quantize.h. Which zero a pair of zeros
/// gives may differ between the two; that check does not care.
template <bool kMax>
MXV_HD MXV_FORCEINLINE float extreme_dropping_nan(float a, float b) {
#if defined(__CUDA_ARCH__)
  return kMax ? fmaxf(a, b) : fminf(a, b);
#else
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  return (kMax ? b > a : b < a) ? b : a;
#endif
}

/// The divisors 1 + exp(x) whose reciprocal the quick division gives exactly: [1, 2^64]. Every exp
/// argument up to kClampedQuickMaxExpArg (and a NaN, which one_plus_exp_any_nan clamps) gives one
/// of them (1 + e^44 is about 2^63.5), so one maximum over a run of arguments (a NaN dropped) says
/// whether every divisor of the run qualifies.
inline constexpr std::uint32_t kClampedQuickMaxDivisorBits = 0x5F800000u;  // 2^64
inline constexpr float kClampedQuickMaxExpArg = 44.0f;

/// clamped_gate for a gate whose exp argument is at most kClampedQuickMaxExpArg, without div_rn's
/// per-call check: the same bits (tests/device/swiglu_math_exhaustive_test.cpp: every such argument
/// gives a divisor in [1, 2^64]; tests/device/quick_division_exhaustive_test.cpp: every divisor there
/// the correctly rounded reciprocal, with the model of sm_90's reciprocal and with the host's).
MXV_HD MXV_FORCEINLINE float clamped_gate_quick(float g, float alpha, float limit) {
  return clamped_gate_with(g, alpha, limit, [](float d) { return div_quick(1.0f, d); });
}

/// The clamped SwiGLU's up factor: u' + 1, u' = clamp(u, -limit, limit) with NaN falling through.
MXV_HD MXV_FORCEINLINE float clamped_up(float u, float limit) {
  const float uc = u > limit ? limit : (u < -limit ? -limit : u);
  return add_rn(uc, 1.0f);
}

/// silu(g) * u (a NaN gives some NaN).
MXV_HD MXV_FORCEINLINE float silu_product(float g, float u) { return mul_rn(silu_gate(g), u); }

/// gpt-oss clamped SwiGLU: (g' * sigmoid(alpha * g')) * (u' + 1) (a NaN gives some NaN).
MXV_HD MXV_FORCEINLINE float clamped_product(float g, float u, float alpha, float limit) {
  return mul_rn(clamped_gate(g, alpha, limit), clamped_up(u, limit));
}

}  // namespace mxv::device::swiglu_math
