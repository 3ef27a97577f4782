// The typed small-float API and the ONE generic encode routine every format and dialect goes
// through. Formats come from the traits table in float_format.h (OCP MX v1.0 sections 5.3-5.4,
// OCP 8-bit FP v1.0); the rules each mode follows are docs/semantics.md sections 2 (cuda) and 3
// (other dialects), written out per dialect in dialect_rules.h. Clean-room: no CUDA headers.
//
// Typed use:  encode_as<kE4M3, Rounding::kNearestEven, Saturation::kNone>(x)
// A mode the format does not support in that dialect does not compile (the requires-clause
// below); the runtime API (float_format.h) throws std::invalid_argument for it instead.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>

#include "mxv/reference/dialect_rules.h"
#include "mxv/reference/float_format.h"

namespace mxv {
namespace detail {

/// Rounds `x / 2^shift` to an integer by the mode (shift <= 31). `kept_lsb` is the lowest kept
/// bit of the significand, which breaks a nearest-even tie: adding half a quantum minus one,
/// plus that bit, then shifting is round-half-even in plain integer arithmetic (a tie reaches
/// the next multiple only when the kept bit is odd). Branch-free, so a loop over it vectorises
/// (vpsrlvd for a per-lane shift).
template <Rounding Mode>
constexpr std::uint32_t round_shift(std::uint32_t x, std::uint32_t shift, std::uint32_t kept_lsb) {
  const std::uint32_t one = 1u << shift;
  if constexpr (Mode == Rounding::kNearestEven) {
    return (x + (one >> 1) - 1u + kept_lsb) >> shift;
  } else if constexpr (Mode == Rounding::kTowardZero) {
    return x >> shift;
  } else {  // kUp: magnitude rounded up (E8M0 ceil(log2|x|))
    return (x + one - 1u) >> shift;
  }
}

/// The generic encode: fp32 bits -> code, for the rules of one (format, mode). Tuned for
/// throughput of the batch loops in float_format.cpp (reference/bench/encode_bench.cpp, goal
/// >= 1e9 conversions/s on one core): no data-dependent branches, no calls, no lookups. Both
/// range candidates of step 3 are computed for every input and one is selected, because
/// selects (blends) vectorise and branches do not.
template <EncodeRules R>
constexpr std::uint8_t encode_bits(std::uint32_t bits) {
  constexpr int kM = R.mantissa_bits;
  constexpr int kMinField = R.min_exponent_field;
  // fp32 mantissa bits below the target's last kept bit, where its quantum scales with |x|.
  constexpr std::uint32_t kShift = static_cast<std::uint32_t>(23 - kM);
  // The magnitude code of the target's smallest exponent, offset by the implicit bit that the
  // significand `sig` below carries: 0 for formats with subnormals, -1 for E8M0 (no zero; its
  // code 0x00 is 2^-127, so a value below half of it must clamp rather than become "code -1").
  constexpr std::int32_t kBase0 = std::int32_t{kMinField - 127 + R.bias - 1} * (1 << kM);
  // In the normal range the code is the fp32 pattern's top bits, (abs >> kShift), minus the
  // codes the fp32 exponent field counts below the target's smallest binade (an fp32 exponent
  // field e, e >= kMinField, is the target's field e - kMinField + 1, or e for E8M0).
  constexpr std::int32_t kNormalBase = kBase0 + std::int32_t{1 - kMinField} * (1 << kM);
  // First fp32 exponent field of the normal range. For E8M0 (kMinField 0) the fp32 subnormals
  // still take the per-lane path: their quantum is 2^-149, not that of exponent field 0.
  constexpr std::int32_t kNormalFrom = std::max(kMinField, 1);

  // 1. Split sign and magnitude. NaN is every magnitude above the fp32 infinity pattern.
  const std::uint32_t sign = bits >> 31;
  const std::uint32_t abs = bits & 0x7FFF'FFFFu;
  const bool is_nan = abs > 0x7F80'0000u;
  const std::int32_t e = static_cast<std::int32_t>(abs >> 23);  // fp32 exponent field

  // 2. Normal range (e >= kNormalFrom): the quantum is 2^(e-127-M), a fixed bit of the fp32
  //    pattern, so round the pattern itself at bit kShift. A carry out of the mantissa bumps
  //    the exponent field, which is exactly the next code: renormalisation comes for free.
  //    Inf and NaN land above every finite code here (steps 5 and 7 sort them out).
  //    The tie-break bit is the significand's lowest kept bit: bit kShift of the pattern when
  //    M > 0; for M = 0 (E8M0) bit 23 is the exponent's, and the kept bit is the implicit 1, so
  //    a tie always rounds up: that is what ml_dtypes does (3.0 -> 4.0), and the cuda dialect
  //    has no nearest mode for E8M0.
  const std::uint32_t normal_lsb = kM > 0 ? (abs >> kShift) & 1u : 1u;
  const std::int32_t normal_code =
      static_cast<std::int32_t>(round_shift<R.rounding>(abs, kShift, normal_lsb)) + kNormalBase;

  // 3. Below it (the target's subnormal range, and fp32 subnormals) the quantum stays fixed at
  //    the smallest binade's, so the shift grows by one per binade below: a per-lane shift of
  //    the significand with its implicit bit. An fp32 subnormal is sig * 2^-149 with no
  //    implicit bit, i.e. it behaves as exponent field 1. Lanes of the normal range compute
  //    garbage here (discarded in step 4); clamping their field at kNormalFrom keeps it
  //    defined, and makes the shift a constant where the range is one binade (E8M0: e = 0).
  //    Beyond 31 every bit is shifted out and the value is below half a quantum: clamp.
  const std::int32_t e_sub = std::clamp(e, 1, kNormalFrom);
  // abs minus (e_sub - 1) binades is the significand: 1.mantissa for e >= 1, the bare
  // mantissa for e = 0 (one subtraction instead of masking and inserting the implicit bit).
  const std::uint32_t sig = abs + 0x80'0000u - (static_cast<std::uint32_t>(e_sub) << 23);
  const auto sub_shift = static_cast<std::uint32_t>(
      std::min(static_cast<std::int32_t>(kShift) + kMinField - e_sub, 31));
  std::uint32_t sub_q = round_shift<R.rounding>(sig, sub_shift, (sig >> sub_shift) & 1u);
  if constexpr (R.subnormal_inputs_round_up) {
    // ml_dtypes 0.6 / c10 E8M0 quirk: for fp32 subnormals the tie-break bit they use is 0 and any
    // nonzero guard bit rounds up, which is ceil here (base is -1: above 2^-127 -> 0x01).
    sub_q = e == 0 ? round_shift<Rounding::kUp>(sig, sub_shift, 0u) : sub_q;
  }
  const std::int32_t sub_code = kBase0 + static_cast<std::int32_t>(sub_q);

  // 4. Pick the candidate of the input's range. Rounding up out of the subnormal range gives
  //    2^M (E4M3: 0x08), the smallest normal code, by itself.
  std::int32_t mag = 0;
  if constexpr (kM == 0 && R.rounding == Rounding::kTowardZero) {
    // E8M0 toward zero, floor(log2 |x|) clamped at code 0, is the fp32 exponent field itself, fp32
    // subnormals (field 0) included: the two candidates above, selected and clamped, equal e on
    // every input. Said directly, the loop has no range select: g++ 13.3 does not if-convert that
    // select in this mode and leaves its batch loops scalar (BENCHMARKS.md "formats").
    mag = e;
  } else {
    mag = e < kNormalFrom ? sub_code : normal_code;
    if constexpr (kBase0 < 0) {
      // A no-zero format clamps below its smallest code (docs/semantics.md section 2: E8M0
      // exponent < -127 -> 0).
      mag = std::max(mag, 0);
    }
  }

  // 5. Overflow (|x| rounded beyond the largest finite code, including Inf): clamp to it when
  //    saturating, else the format's NaN magnitude.
  std::uint32_t code;
  if constexpr (R.saturate) {
    code = static_cast<std::uint32_t>(std::min(mag, std::int32_t{R.max_finite}));
  } else {
    code = mag > R.max_finite ? std::uint32_t{R.overflow_code} : static_cast<std::uint32_t>(mag);
  }

  // 6. Sign. Signed formats put it in the top bit. Unsigned formats follow the dialect's rule
  //    for negative inputs (dialect_rules.h): take |x| (cuda E8M0), NaN, or clamp to zero.
  if constexpr (R.is_signed) {
    code |= sign << (R.total_bits - 1);
  } else if constexpr (R.negative == NegativeRule::kNan) {
    code = sign != 0 ? std::uint32_t{R.overflow_code} : code;
  } else if constexpr (R.negative == NegativeRule::kZeroOrNan) {
    // A negative value that rounds to zero is -0 and stays 0; otherwise it lies below the
    // range [0, max]: satfinite clamps it to 0, non-saturating gives NaN.
    const std::uint32_t below = R.saturate ? 0u : std::uint32_t{R.overflow_code};
    code = (sign != 0 && code != 0) ? below : code;
  }
  if constexpr (R.zero_is_nan) {  // ml_dtypes E8M0: log2(0) does not exist
    code = abs == 0 ? std::uint32_t{R.overflow_code} : code;
  }

  // 7. NaN inputs: the dialect's NaN code for that sign (cuda E2M1: +6; ml_dtypes E2M1: 0x8/0x0).
  code = is_nan ? (sign != 0 ? std::uint32_t{R.nan_negative} : std::uint32_t{R.nan_positive})
                : code;
  return static_cast<std::uint8_t>(code);
}

}  // namespace detail

/// Whether `mode` is a conversion `format` supports (a constant expression: the typed API's
/// compile-time check and validate() both use it).
constexpr bool supports(const FloatFormat& format, ConvertMode mode) {
  return detail::unsupported_reason(format, mode) == nullptr;
}

/// Typed encode: fp32 -> code of format F under mode (R, S, D). Unsupported modes do not compile.
template <const FloatFormat& F, Rounding R = Rounding::kNearestEven,
          Saturation S = Saturation::kFinite, Dialect D = Dialect::kCuda>
  requires(supports(F, ConvertMode{R, S, D}))
constexpr std::uint8_t encode_as(float x) {
  return detail::encode_bits<detail::rules_for(F, ConvertMode{R, S, D})>(
      std::bit_cast<std::uint32_t>(x));
}

/// Typed encode from the raw bits of an fp32 value (what the exhaustive sweeps iterate over).
template <const FloatFormat& F, Rounding R = Rounding::kNearestEven,
          Saturation S = Saturation::kFinite, Dialect D = Dialect::kCuda>
  requires(supports(F, ConvertMode{R, S, D}))
constexpr std::uint8_t encode_fp32_bits_as(std::uint32_t bits) {
  return detail::encode_bits<detail::rules_for(F, ConvertMode{R, S, D})>(bits);
}

/// Exact value of a code, computed from the traits (the constexpr source of the decode tables).
/// Returns NaN for NaN codes and for codes an unsigned format does not have (sign bit set).
constexpr float decode_value(const FloatFormat& format, std::uint8_t code) {
  const int m_bits = format.mantissa_bits;
  const int e_bits = format.exponent_bits;
  const unsigned magnitude_mask = (1u << (e_bits + m_bits)) - 1u;
  const unsigned c = code;
  if (c >> format.bits() != 0) return std::bit_cast<float>(0x7FC0'0000u);  // wider than format
  const unsigned mag = c & magnitude_mask;
  const bool negative = format.is_signed && (c >> (format.bits() - 1)) != 0;
  if (format.nan == NanEncoding::kAllOnes && mag == magnitude_mask) {
    return std::bit_cast<float>(0x7FC0'0000u);
  }
  const int field = static_cast<int>(mag >> m_bits);
  const unsigned mant = mag & ((1u << m_bits) - 1u);
  // Normal: (2^M + mant) * 2^(field - bias - M). Subnormal (field 0 of a format with zero):
  // mant * 2^(1 - bias - M). E8M0 (no zero): field 0 is the normal value 2^-127.
  const bool subnormal = format.has_zero && field == 0;
  const unsigned significand = subnormal ? mant : ((1u << m_bits) | mant);
  const int exponent = (subnormal ? 1 : field) - format.bias - m_bits;
  // Build significand * 2^exponent exactly, through double (every value here fits: |exp| < 160).
  double v = significand;
  for (int i = 0; i < exponent; ++i) v *= 2.0;
  for (int i = 0; i > exponent; --i) v *= 0.5;
  const float f = static_cast<float>(v);  // exact: at most 4 significant bits, range of fp32
  return negative ? -f : f;
}

// The values the formats are known by (docs/semantics.md section 1), pinned from the traits alone.
static_assert(decode_value(kE4M3, 0x7E) == 448.0f, "E4M3 max finite is 448 (0x7E)");
static_assert(decode_value(kE4M3, 0x01) == 0x1p-9f, "E4M3 min subnormal is 2^-9");
static_assert(decode_value(kE4M3, 0x08) == 0x1p-6f, "E4M3 min normal is 2^-6");
static_assert(decode_value(kUE4M3, 0x7E) == 448.0f, "UE4M3 max finite is 448");
static_assert(decode_value(kE2M1, 0b0'11'1) == 6.0f, "E2M1 0b0111 = 1.5 * 2^2 = 6");
static_assert(decode_value(kE2M1, 0b0'00'1) == 0.5f, "E2M1 code 1 is the subnormal 0.5");
static_assert(decode_value(kE8M0, 0x00) == 0x1p-127f, "E8M0 0x00 is 2^-127 (fp32 subnormal)");
static_assert(decode_value(kE8M0, 0xFE) == 0x1p127f, "E8M0 0xFE is 2^127");
static_assert(detail::rules_for(kE4M3, {}).max_finite == 0x7E);
static_assert(detail::rules_for(kE2M1, {}).max_finite == 0x7);
static_assert(detail::rules_for(kE8M0, {Rounding::kUp}).max_finite == 0xFE);

}  // namespace mxv
