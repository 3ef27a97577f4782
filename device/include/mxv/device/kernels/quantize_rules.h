// Device-side block-scaling rules of the quantize and swiglu_quantize kernels: the NVFP4 tensor
// scale and block scale in TransformerEngine's operation order, the two MX E8M0 rules (OCP floor,
// NVIDIA round-up), the amax kept as fp32 bit patterns, and where a scale byte lives (linear or
// swizzled 128x4). docs/semantics.md sections 4 (block scaling) and 5 (layouts).
//
// docs/design.md section 3.3, "The reference is clean-room": nothing here calls the reference. The
// arithmetic is the contract's fp32 sequence, but the mechanics are this file's own: the amax is
// a max over unsigned bit patterns (not fmaxf), OCP's floor(log2) comes from the exponent field
// plus a count of leading zeros, the power-of-two multipliers are assembled from bits, and the
// swizzle offset is built from shifts and masks. Conversions go through cvt.h's primitives.
//
// Every helper is host-device: the emulator runs exactly this code; on the GPU the divisions use
// __fdiv_rn (kernels/rounded_arith.h) so that even a --use_fast_math build keeps IEEE division (the
// contract's "/"), or the quick division where a proof allows it (kernels/quick_division.h).
#pragma once

#include <cstdint>

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernels/quick_division.h"
#include "mxv/reference/vocabulary.h"

namespace mxv::device::qrules {

/// The schemes the quantize kernels implement (each is one reference preset; quantize.h maps a
/// Recipe onto one of these or rejects it).
enum class Scheme : std::uint8_t {
  kNvfp4Te,      ///< nvfp4_te: 16 x E2M1 + UE4M3 + fp32 tensor scale, TE operation order
  kMxfp4Nvidia,  ///< mxfp4_nvidia: 32 x E2M1 + E8M0 = RP(amax * fl(1/6))
  kMxfp4Ocp,     ///< mxfp4_ocp: 32 x E2M1 + E8M0 = floor(log2 amax) - 2
};

inline constexpr std::uint32_t kAbsMask = 0x7FFFFFFFu;
inline constexpr std::uint32_t kInfBits = 0x7F800000u;
inline constexpr std::uint32_t kCanonicalNan = 0x7FC00000u;
inline constexpr std::uint32_t kFltMaxBits = 0x7F7FFFFFu;
// fl(1/6): the fp32 nearest 1/6 (docs/semantics.md section 4.2). Written as bits so no compiler
// constant folding of 1.0f/6.0f is involved in what the kernel multiplies by.
inline constexpr std::uint32_t kInvSixBits = 0x3E2AAAABu;
// 2688 = 448 * 6: E4M3 max times E2M1 max.
inline constexpr float kNvfp4AmaxToScale = 2688.0f;

/// fminf semantics with FLT_MAX: a NaN argument is dropped (so NaN -> FLT_MAX), +Inf -> FLT_MAX.
MXV_HD MXV_FORCEINLINE float min_flt_max(float v) {
  const std::uint32_t u = cvt::bits_of(v);
  const bool is_nan = (u & kAbsMask) > kInfBits;
  if (is_nan) return cvt::float_of(kFltMaxBits);
  // Negative values (and -Inf) stay: only values above FLT_MAX are clamped.
  if ((u >> 31) == 0u && u > kFltMaxBits) return cvt::float_of(kFltMaxBits);
  return v;
}

// ---- amax as bit patterns -----------------------------------------------------------------------
// For non-NaN fp32 values, |x|'s bit pattern (sign cleared) orders exactly as |x| does, so a
// block or tensor amax is an unsigned max over patterns. NaN is handled by the policy:
//  ignore    -> a NaN contributes 0 (skipped, as fmaxf does);
//  propagate -> a NaN contributes 0x7FC00000, which is above +Inf's 0x7F800000, so it wins.
// The same representation feeds atomicMax on the GPU (unsigned compare of the bits).

/// The amax contribution of one element's bits under the NaN policy.
MXV_HD MXV_FORCEINLINE std::uint32_t amax_key(float x, bool nan_propagates) {
  const std::uint32_t a = cvt::bits_of(x) & kAbsMask;
  if (a > kInfBits) return nan_propagates ? kCanonicalNan : 0u;
  return a;
}

MXV_HD MXV_FORCEINLINE std::uint32_t max_u32(std::uint32_t a, std::uint32_t b) { return a > b ? a : b; }

/// The unsigned maxima of the two 16-bit halves of `a` and `b`, packed the same way: one
/// instruction for two bf16 magnitudes on the GPU (VIMNMX.U16x2 on sm_90), a plain max per half
/// elsewhere.
MXV_HD MXV_FORCEINLINE std::uint32_t max_u16x2(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __vmaxu2(a, b);
#else
  const std::uint32_t hi = max_u32(a & 0xFFFF0000u, b & 0xFFFF0000u);
  const std::uint32_t lo = max_u32(a & 0xFFFFu, b & 0xFFFFu);
  return hi | lo;
#endif
}

/// The unsigned minima of the two 16-bit halves, as max_u16x2 (VIMNMX.U16x2; two in a row fuse
/// into one three-input VIMNMX3.U16x2 on sm_90).
MXV_HD MXV_FORCEINLINE std::uint32_t min_u16x2(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __vminu2(a, b);
#else
  const std::uint32_t hi = (a & 0xFFFF0000u) < (b & 0xFFFF0000u) ? a & 0xFFFF0000u : b & 0xFFFF0000u;
  const std::uint32_t lo = (a & 0xFFFFu) < (b & 0xFFFFu) ? a & 0xFFFFu : b & 0xFFFFu;
  return hi | lo;
#endif
}

// ---- power-of-two multipliers -------------------------------------------------------------------

/// 2^e as fp32 for -149 <= e <= 127, assembled from bits (subnormal powers included).
MXV_HD MXV_FORCEINLINE float pow2_bits(int e) {
  if (e >= -126) return cvt::float_of(static_cast<std::uint32_t>(e + 127) << 23);
  return cvt::float_of(1u << static_cast<unsigned>(e + 149));
}

/// The element multiplier of an E8M0 scale code: 2^(127 - code), the reciprocal of the scale.
/// Multiplying by it equals dividing by 2^(code-127) exactly (both are the exact product rounded
/// once), because 2^(127-code) is representable for every code 0..254. Code 0xFF (NaN) -> NaN.
MXV_HD MXV_FORCEINLINE float e8m0_multiplier(std::uint32_t code) {
  if (code == 0xFFu) return cvt::float_of(kCanonicalNan);
  return pow2_bits(127 - static_cast<int>(code));
}

/// Number of leading zero bits of a nonzero 32-bit value (portable loop-free form).
MXV_HD MXV_FORCEINLINE int clz32(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(v));
#else
  return __builtin_clz(v);
#endif
}

/// OCP MX v1.0 section 6.3: X = floor(log2 amax) - emax_elem (2 for E2M1), clamped to -127,
/// stored as X + 127. amax given as its |x| bit pattern (amax_key). 0 -> 0x00; Inf/NaN -> 0xFF.
MXV_HD MXV_FORCEINLINE std::uint32_t ocp_e8m0_code(std::uint32_t amax_bits) {
  if (amax_bits >= kInfBits) return 0xFFu;
  if (amax_bits == 0u) return 0x00u;
  const std::uint32_t e = amax_bits >> 23;
  // floor(log2 amax): normal: e - 127; subnormal: the position of the top mantissa bit minus 149.
  const int floor_log2 = e != 0u ? static_cast<int>(e) - 127 : (31 - clz32(amax_bits)) - 149;
  int x = floor_log2 - 2;
  if (x < -127) x = -127;  // max is floor(log2 FLT_MAX) - 2 = 125: no upper clamp needed
  return static_cast<std::uint32_t>(x + 127);
}

/// NVIDIA MX rule: code = E8M0_RP_satfinite(fp32(amax * fl(1/6))).
MXV_HD MXV_FORCEINLINE std::uint32_t nvidia_e8m0_code(std::uint32_t amax_bits) {
  const float scaled = mul_rn(cvt::float_of(amax_bits), cvt::float_of(kInvSixBits));
  return cvt::e8m0_from_f32<cvt::E8m0Rounding::kUp>(scaled);
}

// ---- NVFP4 (TransformerEngine order) ----------------------------------------------------------

/// The per-tensor scale of nvfp4_te for a tensor amax (given as raw fp32 bits: a calibrated amax
/// is used exactly as given, sign included).
struct Nvfp4TensorScale {
  float s_enc = 1.0f;
  float s_dec = 1.0f;
  float s_enc_over_6 = 0.16666667f;  ///< fp32(s_enc * fl(1/6)): the block-scale factor, computed once
  /// Every block's divisor fp32(sf) * s_dec is +-0, a NaN or within the quick reciprocal's range
  /// (|sf| in [2^-9, 448] and |s_dec| in [2^-115, 2^115]), where the quick division is in use.
  bool quick_block_reciprocal = false;
};

/// TE compute_global_encode_scaling_factor_FP4: s_enc = fminf(2688 / amax, FLT_MAX); amax == 0
/// or s_enc == 0 -> 1; s_dec = 1 / s_enc.
MXV_HD MXV_FORCEINLINE Nvfp4TensorScale nvfp4_tensor_scale(float amax) {
  float s_enc = min_flt_max(div_rn(kNvfp4AmaxToScale, amax));
  if (amax == 0.0f || s_enc == 0.0f) s_enc = 1.0f;
  const float s_dec = div_rn(1.0f, s_enc);
  const float s_dec_abs = cvt::abs_f32(s_dec);
  const bool quick = kQuickDivision && s_dec_abs >= 0x1p-115f && s_dec_abs <= 0x1p115f;
  static_assert(0x1p-115f * 0x1p-9f >= kQuickReciprocalMin && 0x1p115f * 448.0f <= kQuickReciprocalMax);
  return {s_enc, s_dec, mul_rn(s_enc, cvt::float_of(kInvSixBits)), quick};
}

/// One NVFP4 block's stored scale byte and element multiplier (TE order):
///   sf  = E4M3_RN_satfinite(amax_block * (s_enc * fl(1/6)))
///   enc = fminf(1 / (fp32(sf) * s_dec), FLT_MAX)
struct BlockChoice {
  std::uint32_t code = 0;
  float multiplier = 0.0f;
};

/// `kQuick` (only where ts.quick_block_reciprocal holds) takes the reciprocal without div_rn's
/// per-call check (reciprocal_min_flt_max_quick): the same bits, about 9 fewer instructions per
/// block on sm_90.
template <bool kQuick = false>
MXV_HD MXV_FORCEINLINE BlockChoice nvfp4_te_block(std::uint32_t amax_bits, const Nvfp4TensorScale& ts) {
  const float sf_in = mul_rn(cvt::float_of(amax_bits), ts.s_enc_over_6);
  const std::uint8_t code = cvt::e4m3_from_f32(sf_in);
  const float sf = cvt::f32_from_e4m3_fast(code);  // a NaN code's payload ends in min_flt_max
  const float d = mul_rn(sf, ts.s_dec);
  if constexpr (kQuick) return {code, reciprocal_min_flt_max_quick(d)};
  return {code, min_flt_max(div_rn(1.0f, d))};
}

/// Any scheme's block choice (the tensor scale is ignored by the MX schemes; kQuick as
/// nvfp4_te_block's).
template <bool kQuick = false>
MXV_HD MXV_FORCEINLINE BlockChoice choose_block(Scheme scheme, std::uint32_t amax_bits,
                                               const Nvfp4TensorScale& ts) {
  switch (scheme) {
    case Scheme::kNvfp4Te: return nvfp4_te_block<kQuick>(amax_bits, ts);
    case Scheme::kMxfp4Nvidia: {
      const std::uint32_t c = nvidia_e8m0_code(amax_bits);
      return {c, e8m0_multiplier(c)};
    }
    case Scheme::kMxfp4Ocp: {
      const std::uint32_t c = ocp_e8m0_code(amax_bits);
      return {c, e8m0_multiplier(c)};
    }
  }
  return {};
}

/// Elements per block of a scheme.
MXV_HD MXV_FORCEINLINE unsigned block_size(Scheme scheme) { return scheme == Scheme::kNvfp4Te ? 16u : 32u; }

/// Two elements -> one packed byte: element 2i (`even`) in bits [3:0], 2i+1 (`odd`) in [7:4].
/// cvt's `a` operand lands in the high nibble, so the odd element goes first.
MXV_HD MXV_FORCEINLINE std::uint32_t pack_pair(float even, float odd, float multiplier) {
  return cvt::e2m1x2_from_f32(mul_rn(odd, multiplier), mul_rn(even, multiplier));
}

/// pack_pair for the vector kernels' hot loops: the same byte through cvt's branch-free encoder
/// (the hardware cvt where the target has it; no per-value branch on sm_90 and the host).
MXV_HD MXV_FORCEINLINE std::uint32_t pack_pair_fast(float even, float odd, float multiplier) {
  return cvt::e2m1x2_from_f32_branchless(mul_rn(odd, multiplier), mul_rn(even, multiplier));
}

// ---- scale layouts ------------------------------------------------------------------------------

/// Byte offset of scale (padded_row, k) in the swizzled 128x4 layout of a matrix whose rows are
/// already padded (every group starts at a multiple of 128, so grouping folds into the row):
///   (row/128)*n_k*512 + (k/4)*512 + (row%32)*16 + ((row%128)/32)*4 + k%4,  n_k = ceil(kb/4).
/// The kernels' own copy of the formula: the reference (mxv::swizzled_offset) and the check
/// library each write it again on purpose (docs/design.md section 3.7).
template <class Index>
MXV_HD MXV_FORCEINLINE Index swizzled_offset(Index row, Index k, Index n_k) {
  return ((row >> 7) * n_k << 9) + ((k >> 2) << 9) + ((row & 31u) << 4) + (((row >> 5) & 3u) << 2) + (k & 3u);
}

/// `Index` is std::uint64_t, or std::uint32_t where the launcher proved every offset fits.
template <class Index>
MXV_HD MXV_FORCEINLINE Index scale_offset(ScaleLayout layout, Index scale_row, Index k, Index kb) {
  if (layout == ScaleLayout::kLinear) return scale_row * kb + k;
  return swizzled_offset<Index>(scale_row, k, (kb + 3u) >> 2);
}

}  // namespace mxv::device::qrules
