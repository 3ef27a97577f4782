// The typed small-float API and the ONE generic encode routine every format and dialect goes
// through. Formats come from the traits table in float_format.h (OCP MX v1.0 sections 5.3-5.4,
// OCP 8-bit FP v1.0); the rules each mode follows are SEMANTICS.md sections 2 (cuda) and 3
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

/// The generic encode: fp32 bits -> code, for the rules of one (format, mode). Tuned for
/// throughput: no data-dependent branches (the compiler turns the selects into cmov/blend), so
/// a loop over it auto-vectorises (see reference/bench/encode_benchmark.cpp).
template <EncodeRules R>
constexpr std::uint8_t encode_bits(std::uint32_t bits) {
  constexpr int kM = R.mantissa_bits;
  constexpr int kMinField = R.min_exponent_field;
  // The magnitude code of the target's smallest exponent, offset by the implicit bit that the
  // significand `sig` below carries: 0 for formats with subnormals, -1 for E8M0 (no zero; its
  // code 0x00 is 2^-127, so a value below half of it must clamp rather than become "code -1").
  constexpr std::int32_t kBase0 = std::int32_t{kMinField - 127 + R.bias - 1} * (1 << kM);

  // 1. Split sign and magnitude. NaN is every magnitude above the fp32 infinity pattern.
  const std::uint32_t sign = bits >> 31;
  const std::uint32_t abs = bits & 0x7FFF'FFFFu;
  const bool is_nan = abs > 0x7F80'0000u;

  // 2. Exponent field e (0 for fp32 subnormals) and significand with its implicit bit. An fp32
  //    subnormal is sig * 2^-149 with no implicit bit, i.e. it behaves as exponent field 1.
  const std::int32_t e = static_cast<std::int32_t>(abs >> 23);
  const std::uint32_t sig = (abs & 0x7F'FFFFu) | (e != 0 ? 0x80'0000u : 0u);
  const std::int32_t e_eff = std::max(e, 1);

  // 3. Target exponent t (as an fp32 exponent field): the input's own, but never below the
  //    format's smallest, where the quantum stays fixed (the subnormal range). The code before
  //    rounding is base + sig / 2^shift, where base counts the codes below t's binade.
  const std::int32_t t = std::max(e, kMinField);
  const std::int32_t base = kBase0 + (t - kMinField) * (1 << kM);
  // Quantum is 2^(t-127-M); sig is in units of 2^(e_eff-150): shift = 23 - M + (t - e_eff).
  // Beyond 31 every bit is shifted out and the value is below half a quantum: clamp.
  const int shift = std::min(23 - kM + (t - e_eff), 31);

  // 4. Round sig / 2^shift to an integer by the mode. Nearest-even breaks a tie with the lowest
  //    kept bit of sig. For M > 0 that is the code's own last bit (base is a multiple of 2^M).
  //    For M = 0 (E8M0) the kept bit is the implicit 1, so a tie always rounds up: that is what
  //    ml_dtypes does (3.0 -> 4.0), and the cuda dialect has no nearest mode for E8M0.
  const std::uint32_t one = 1u << shift;
  std::uint32_t q;
  if constexpr (R.rounding == Rounding::kNearestEven) {
    q = (sig + (one >> 1) - 1u + ((sig >> shift) & 1u)) >> shift;
  } else if constexpr (R.rounding == Rounding::kTowardZero) {
    q = sig >> shift;
  } else {  // kUp: magnitude rounded up (E8M0 ceil(log2|x|))
    q = (sig + one - 1u) >> shift;
  }
  if constexpr (R.subnormal_inputs_round_up) {
    // ml_dtypes / c10 E8M0 quirk: for fp32 subnormals the tie-break bit they use is 0 and any
    // nonzero guard bit rounds up, which is ceil here (base is -1: above 2^-127 -> 0x01).
    q = e == 0 ? (sig + one - 1u) >> shift : q;
  }
  // Rounding may carry into the next binade: adding q to base renormalises by itself.
  std::int32_t mag = base + static_cast<std::int32_t>(q);
  // A no-zero format clamps below its smallest code (SEMANTICS 2: E8M0 exponent < -127 -> 0).
  mag = std::max(mag, 0);

  // 5. Overflow (|x| rounded beyond the largest finite code, including Inf): clamp to it when
  //    saturating, else the format's NaN magnitude.
  const bool overflow = mag > R.max_finite;
  std::uint32_t code = static_cast<std::uint32_t>(mag);
  if constexpr (R.saturate) {
    code = overflow ? static_cast<std::uint32_t>(R.max_finite) : code;
  } else {
    code = overflow ? std::uint32_t{R.overflow_code} : code;
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

// The values the formats are known by (SEMANTICS.md section 1), pinned from the traits alone.
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
