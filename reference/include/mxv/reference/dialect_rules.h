// Dialects: which modes each format supports, and what NaN, overflow, zero and negative inputs
// become, in each implementation mxv models (docs/semantics.md sections 2-3). Everything the
// generic encode routine (small_float.h) needs is derived here, as one constant EncodeRules value
// per (format, mode); the routine itself has no per-format or per-dialect code.
//
// cuda (default): CUDA 13.0 cuda_fp8.hpp / cuda_fp4.hpp host code and PTX cvt (identical)
//   E4M3, UE4M3  nearest-even; satfinite (overflow and Inf -> +-max) or none (-> NaN 0x7F|s).
//                NaN of either sign -> 0x7F (sign dropped).
//   E2M1         nearest-even or toward-zero; always satfinite (E2M1 has no Inf/NaN).
//                NaN of either sign -> 0x7 (+6); +-Inf -> +-6; -0 -> 0x8.
//   E8M0         toward-zero (floor log2|x|) or up (ceil log2|x|); satfinite (-> 0xFE) or none
//                (-> 0xFF). Sign ignored (works on |x|); +-0 and anything below 2^-127 -> 0x00;
//                NaN -> 0xFF. There is no nearest mode (PTX has no cvt.rn...ue8m0).
//   UE4M3        not in the headers; mxv's rule (the sign bit does not exist): -0 -> 0x00; a
//                negative value that rounds to a nonzero magnitude is below the range [0, 448],
//                so satfinite clamps it to 0x00 and non-saturating gives NaN 0x7F. NaN -> 0x7F.
//
// ml_dtypes (numpy astype from float32; established over all 2^32 inputs by
// tests/reference/ml_dtypes_dialect_test.cpp): one behaviour per type, so one mode each. Two
// behaviour ranges, told apart by E8M0 of fp32 subnormals (measured, both releases exhaustively):
//   ml_dtypes@0.6  subnormals above 2^-127 round up to 0x01 (the field-based tie-break below);
//   ml_dtypes = ml_dtypes@0.7  subnormals round to the nearer of 2^-127 and 2^-126 by value, the
//                  tie 1.5 * 2^-127 up (0x00400001..0x005FFFFF -> 0x00, from 0x00600000 -> 0x01).
//   Everything else is the same in both.
//   float8_e4m3fn   nearest-even, non-saturating: overflow and +-Inf -> NaN with the input's
//                   sign (0x7F / 0xFF); NaN keeps its sign (0x7F / 0xFF).
//   float4_e2m1fn   nearest-even, saturating (+-Inf -> +-6); +NaN -> 0x8, -NaN -> 0x0 (the NaN
//                   is cast as if it were a signed zero of the opposite sign).
//   float8_e8m0fnu  "nearest-even" decided on the fp32 fields: guard/round/sticky bits of the
//                   mantissa, ties broken by the implicit bit. For normal inputs that bit is 1,
//                   so every tie rounds up (3.0 -> 4.0, 0.75 -> 1.0); for fp32 subnormals it is
//                   0 and (ml_dtypes@0.6 only) any value above 2^-127 goes up to 0x01
//                   (2^-126), even 1.1 * 2^-127.
//                   Non-saturating (overflow, Inf -> 0xFF); +-0 and every negative input -> 0xFF
//                   (NaN); at or below 2^-127 -> 0x00.
//   (no UE4M3 type in ml_dtypes)
//
// torch: eager `.to(dtype)`, c10/util/Float8_e4m3fn.h and Float8_e8m0fnu.h. Two behaviour ranges,
// told apart by the E4M3 overflow rule, which pytorch/pytorch#178817 (merged 2026-04-17,
// https://github.com/pytorch/pytorch/pull/178817) changed from NaN to saturation:
//   torch@2.11  measured on torch 2.11: the CPU and CUDA casts (tools/gpu/torch_dialect_check.py,
//               every fp32 pattern on the H200, docs/verification.md section 1.3).
//   torch = torch@2.15  measured on torch 2.15 CPU (golden/libraries/torch-casts-2.15.0.h5,
//               docs/conformance.md); CUDA at 2.15 not measured.
//   float8_e4m3fn   nearest-even; NaN -> 0x7F|s (sign kept). torch@2.11 does not saturate:
//                   |x| >= 480 or Inf -> NaN 0x7F|s (mode none). torch@2.15 saturates: overflow
//                   and Inf -> +-448 (mode finite). Each accepts only its own saturation mode.
//   float8_e8m0fnu  (both) c10 fp8e8m0fnu_from_fp32_value: the same field-based nearest as
//                   ml_dtypes@0.6 (ties up; fp32 subnormals above 2^-127 -> 0x01), non-saturating
//                   (rounding past 0xFE, Inf and NaN -> 0xFF), but the sign bit is ignored (|x|)
//                   and +-0 -> 0x00.
//   (torch has no elementwise conversion to float4_e2m1fn_x2 and no UE4M3 dtype)
#pragma once

#include <cstdint>

#include "mxv/reference/float_format.h"

namespace mxv::detail {

/// What an unsigned format does with a negative input.
enum class NegativeRule : std::uint8_t {
  kMagnitude,  // convert |x| (cuda E8M0, torch E8M0)
  kNan,        // NaN (ml_dtypes E8M0)
  kZeroOrNan,  // -0 -> 0; otherwise satfinite -> 0, non-saturating -> NaN (UE4M3)
};

/// Everything the generic encoder needs for one (format, mode). All public scalars: a
/// structural type, usable as a template argument, so each mode compiles to its own tight loop.
struct EncodeRules {
  int mantissa_bits;
  int bias;
  int total_bits;
  bool is_signed;
  // fp32 exponent field of the format's smallest binade: 127 + (1 - bias) with subnormals,
  // 127 - bias without a zero (E8M0, whose code 0 is 2^-bias).
  int min_exponent_field;
  int max_finite;  // largest finite magnitude code
  Rounding rounding;
  bool saturate;
  std::uint8_t overflow_code;  // magnitude code of NaN, used when not saturating
  std::uint8_t nan_positive;   // whole code for a NaN input with sign bit 0
  std::uint8_t nan_negative;   // ... with sign bit 1
  NegativeRule negative;
  bool zero_is_nan;
  // ml_dtypes 0.6 / c10 E8M0: nearest decided on the fp32 fields, whose tie-break bit (the
  // implicit bit) is 0 for fp32 subnormals, so those round up (see the dialect notes above).
  bool subnormal_inputs_round_up;
};

/// Why `mode` is not supported for `format` (a string literal), or nullptr when it is.
constexpr const char* unsupported_reason(const FloatFormat& format, ConvertMode mode) {
  const bool rne = mode.rounding == Rounding::kNearestEven;
  const bool up = mode.rounding == Rounding::kUp;
  const bool finite = mode.saturation == Saturation::kFinite;
  const bool e4m3 = format == kE4M3;
  const bool ue4m3 = format == kUE4M3;
  const bool e2m1 = format == kE2M1;
  const bool e8m0 = format == kE8M0;
  if (!(e4m3 || ue4m3 || e2m1 || e8m0)) return "format is not one of e2m1, e4m3, ue4m3, e8m0";
  switch (mode.dialect) {
    case Dialect::kCuda:
      if ((e4m3 || ue4m3) && !rne) return "cuda e4m3/ue4m3 rounds only nearest-even";
      if (e2m1 && up) return "cuda e2m1 rounds only nearest-even or toward-zero";
      if (e2m1 && !finite) return "e2m1 has no NaN/Inf, so it always saturates (finite)";
      if (e8m0 && rne) return "cuda e8m0 rounds only toward-zero (floor) or up (ceil)";
      return nullptr;
    case Dialect::kMlDtypes:
    case Dialect::kMlDtypes06:
      if (ue4m3) return "ml_dtypes has no ue4m3 type";
      if (!rne) return "ml_dtypes astype rounds only nearest-even";
      if (e2m1 && !finite) return "ml_dtypes float4_e2m1fn always saturates (finite)";
      if ((e4m3 || e8m0) && finite) return "ml_dtypes float8 astype does not saturate (none)";
      return nullptr;
    case Dialect::kTorch:
    case Dialect::kTorch211:
      if (e2m1) return "torch has no elementwise conversion to float4_e2m1fn";
      if (ue4m3) return "torch has no ue4m3 dtype";
      if (e4m3 && !rne) return "torch float8_e4m3fn rounds only nearest-even";
      if (e8m0 && !rne) return "torch float8_e8m0fnu rounds only nearest (ties up)";
      if (e8m0 && finite) return "torch .to(float8_e8m0fnu) does not saturate (none)";
      if (e4m3 && mode.dialect == Dialect::kTorch && !finite) {
        return "torch 2.15 .to(float8_e4m3fn) saturates (finite); torch@2.11 gives NaN on overflow (none)";
      }
      if (e4m3 && mode.dialect == Dialect::kTorch211 && finite) {
        return "torch 2.11 .to(float8_e4m3fn) does not saturate (none); torch 2.15 does (dialect torch)";
      }
      return nullptr;
  }
  return "unknown dialect";
}

/// The rules the generic encoder follows for (format, mode); mode must be supported.
constexpr EncodeRules rules_for(const FloatFormat& format, ConvertMode mode) {
  const int magnitude_bits = format.exponent_bits + format.mantissa_bits;
  const int all_ones = (1 << magnitude_bits) - 1;
  const bool has_nan = format.nan == NanEncoding::kAllOnes;
  EncodeRules r{};
  r.mantissa_bits = format.mantissa_bits;
  r.bias = format.bias;
  r.total_bits = format.bits();
  r.is_signed = format.is_signed;
  r.min_exponent_field = 127 - format.bias + (format.has_zero ? 1 : 0);
  r.max_finite = has_nan ? all_ones - 1 : all_ones;
  r.rounding = mode.rounding;
  r.saturate = mode.saturation == Saturation::kFinite;
  r.overflow_code = static_cast<std::uint8_t>(all_ones);
  const auto sign_bit = static_cast<std::uint8_t>(format.is_signed ? 1 << magnitude_bits : 0);
  const auto nan = static_cast<std::uint8_t>(has_nan ? all_ones : r.max_finite);
  r.nan_positive = nan;
  r.nan_negative = nan;
  r.negative = format == kUE4M3 ? NegativeRule::kZeroOrNan : NegativeRule::kMagnitude;
  r.zero_is_nan = false;
  r.subnormal_inputs_round_up = false;
  if (mode.dialect == Dialect::kMlDtypes || mode.dialect == Dialect::kMlDtypes06) {
    if (format == kE2M1) {
      r.nan_positive = sign_bit;  // 0x8
      r.nan_negative = 0;
    } else {
      r.nan_negative = static_cast<std::uint8_t>(nan | sign_bit);
    }
    if (format == kE8M0) {
      r.negative = NegativeRule::kNan;
      r.zero_is_nan = true;
      r.subnormal_inputs_round_up = mode.dialect == Dialect::kMlDtypes06;
    }
  }
  if (mode.dialect == Dialect::kTorch || mode.dialect == Dialect::kTorch211) {
    r.nan_negative = static_cast<std::uint8_t>(nan | sign_bit);
    r.subnormal_inputs_round_up = format == kE8M0;
  }
  return r;
}

}  // namespace mxv::detail
