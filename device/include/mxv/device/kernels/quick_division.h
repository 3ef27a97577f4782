// Division without nvcc's per-call check, where a proof says it is exact (docs/design.md sections
// 5.3 and 5.4, docs/verification.md section 2). nvcc's IEEE division on sm_90 is MUFU.RCP and
// corrections guarded by FCHK, a branch to a slow path and a convergence barrier per call; for
// operands in a proven range the same corrections without the check give the same bits.
#pragma once

#include <cmath>
#include <cstdint>

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernels/rounded_arith.h"

namespace mxv::device::qrules {

/// a / b as nvcc's division computes it when its per-call check passes: a reciprocal
/// approximation (`rcp`: on the GPU rcp.approx.ftz.f32), one correction of it, the quotient and one
/// correction of that. It equals div_rn only where a proof says so (div_quick's callers); no other
/// caller may use it. `rcp` is a parameter so that the proof runs this same sequence on the CPU
/// with the captured model of the GPU's reciprocal (docs/semantics.md section 4.6).
template <class Rcp>
MXV_HD MXV_FORCEINLINE float div_by_corrected_reciprocal(float a, float b, Rcp rcp) {
  const float r = rcp(b);
  const float r1 = fma_rn(r, fma_rn(-b, r, 1.0f), r);
  const float q = mul_rn(a, r1);
  return fma_rn(r1, fma_rn(-b, q, a), q);
}

/// The reciprocal the quick divisions correct: on the GPU rcp.approx.ftz.f32 (MUFU.RCP); on the
/// host (the emulator) the correctly rounded reciprocal with the same flushes (a result under
/// 2^-126 becomes zero). The two differ by one ulp on 13.2% of inputs (docs/semantics.md section
/// 4.6); the quick ranges are proven for each, so both give div_rn's bits there.
MXV_HD MXV_FORCEINLINE float rcp_approx_ftz(float x) {
#if defined(__CUDA_ARCH__)
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#else
  const float r = 1.0f / x;
  return std::fabs(r) < 0x1p-126f ? std::copysign(0.0f, r) : r;
#endif
}

/// Whether the quick divisions divide by the corrected reciprocal here: on sm_90, whose
/// reciprocal the proofs model, and on the host; other GPUs take div_rn (a reciprocal one ulp
/// under the correctly rounded one already makes the quotient of 2^-23 wrong).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900
inline constexpr bool kQuickDivision = true;
#else
inline constexpr bool kQuickDivision = false;
#endif

/// a / b without div_rn's per-call check where kQuickDivision holds, div_rn elsewhere: div_rn's bits
/// only for the operands whose ranges the proofs cover (swiglu_math's quick gate factors, the
/// NVFP4 block reciprocal below).
MXV_HD MXV_FORCEINLINE float div_quick(float a, float b) {
  if constexpr (kQuickDivision) {
    return div_by_corrected_reciprocal(a, b, [](float x) { return rcp_approx_ftz(x); });
  } else {
    return div_rn(a, b);
  }
}

/// The divisors whose reciprocal the quick division gives exactly: normal d with |d| in
/// [2^-124, 2^124]. Each step of div_by_corrected_reciprocal(1, d) scales by exactly 2^-k when d
/// scales by 2^k (both reciprocals depend on d's significand and sign alone while the result stays
/// normal, and the residuals 1 - d * r do not change), so one binade's proof holds for every binade
/// where 1/d is normal. The proof (tests/device/quick_division_exhaustive_test.cpp) runs every
/// divisor of [1, 2^64] and of the two end binades, and a sample of every binade between.
inline constexpr float kQuickReciprocalMin = 0x1p-124f;
inline constexpr float kQuickReciprocalMax = 0x1p124f;

/// fminf(1 / d, FLT_MAX) (the NVFP4 block multiplier, kernels/quantize_rules.h) for d that is +-0, a
/// NaN, or in [kQuickReciprocalMin, kQuickReciprocalMax] in magnitude: the quick reciprocal, which
/// is finite there, and for +-0 and NaN min_flt_max's values (+0 and NaN: FLT_MAX; -0: -Inf) by
/// a select instead of the clamp's tests.
MXV_HD MXV_FORCEINLINE float reciprocal_min_flt_max_quick(float d) {
  const float q = div_quick(1.0f, d);
  if (cvt::abs_f32(d) > 0.0f) return q;  // false for +-0 and NaN
  return cvt::bits_of(d) == 0x80000000u ? cvt::float_of(0xFF800000u) : cvt::float_of(0x7F7FFFFFu);
}

}  // namespace mxv::device::qrules
