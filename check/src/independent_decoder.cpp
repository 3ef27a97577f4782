// Code semantics for the check library, from one generic sign/exponent/mantissa description per
// kind (docs/semantics.md section 1; IEEE 754-2019 section 3.4 for binary16/32; bfloat16 is binary32's
// top half). Independent of float_format.cpp on purpose: the checker must not share the decoder
// of the code it checks.
#include "mxv/check/independent_decoder.h"

#include "mxv/check/storage_map.h"

#include <bit>
#include <cmath>
#include <cstdio>

namespace mxv::check {
namespace {

enum class Specials : std::uint8_t {
  kNone,          // E2M1: every code is a finite number
  kAllOnesNan,    // E4M3 / UE4M3: exponent and mantissa all ones is NaN, no Inf
  kIeee,          // exponent all ones: Inf (mantissa 0) or NaN
  kE8M0,          // 0xFF NaN; no zero, no subnormals: value 2^(code - 127)
};

struct BitLayout {
  unsigned sign_bit;       // 0: unsigned
  unsigned exponent_bits;
  unsigned mantissa_bits;
  int bias;
  Specials specials;
};

BitLayout layout_of(CodeKind kind) {
  switch (kind) {
    case CodeKind::kE2M1x2: return {3, 2, 1, 1, Specials::kNone};
    case CodeKind::kE4M3: return {7, 4, 3, 7, Specials::kAllOnesNan};
    // UE4M3 has no sign, but a candidate may still write bit 7: decode it as a sign so that such
    // a byte shows as a negative scale instead of vanishing into "NaN".
    case CodeKind::kUE4M3: return {7, 4, 3, 7, Specials::kAllOnesNan};
    case CodeKind::kE8M0: return {0, 8, 0, 127, Specials::kE8M0};
    case CodeKind::kBf16: return {15, 8, 7, 127, Specials::kIeee};
    case CodeKind::kFp16: return {15, 5, 10, 15, Specials::kIeee};
    case CodeKind::kFp32: return {31, 8, 23, 127, Specials::kIeee};
  }
  return {0, 8, 0, 127, Specials::kE8M0};
}

struct Fields {
  bool negative;
  std::uint32_t exponent;
  std::uint32_t mantissa;
  std::uint32_t magnitude;  // code without its sign bit
};

Fields fields_of(const BitLayout& l, std::uint32_t code) {
  const std::uint32_t sign_mask = l.sign_bit ? (1u << l.sign_bit) : 0u;
  const std::uint32_t magnitude = code & ~sign_mask;
  return {(code & sign_mask) != 0, magnitude >> l.mantissa_bits,
          magnitude & ((1u << l.mantissa_bits) - 1u), magnitude};
}

bool is_nan_fields(const BitLayout& l, const Fields& f) {
  const std::uint32_t exp_ones = (1u << l.exponent_bits) - 1u;
  const std::uint32_t man_ones = (1u << l.mantissa_bits) - 1u;
  switch (l.specials) {
    case Specials::kNone: return false;
    case Specials::kAllOnesNan: return f.exponent == exp_ones && f.mantissa == man_ones;
    case Specials::kIeee: return f.exponent == exp_ones && f.mantissa != 0;
    case Specials::kE8M0: return f.exponent == exp_ones;
  }
  return false;
}

}  // namespace

bool is_nan_code(CodeKind kind, std::uint32_t code) {
  const BitLayout l = layout_of(kind);
  return is_nan_fields(l, fields_of(l, code));
}

double code_value(CodeKind kind, std::uint32_t code) {
  const BitLayout l = layout_of(kind);
  const Fields f = fields_of(l, code);
  if (is_nan_fields(l, f)) return std::nan("");
  if (l.specials == Specials::kE8M0) return std::ldexp(1.0, static_cast<int>(f.exponent) - l.bias);
  const double sign = f.negative ? -1.0 : 1.0;
  if (l.specials == Specials::kIeee && f.exponent == (1u << l.exponent_bits) - 1u) {
    return sign * HUGE_VAL;
  }
  const int m = static_cast<int>(l.mantissa_bits);
  if (f.exponent == 0) {  // subnormal (or zero): the minimum normal exponent, no implicit one
    return sign * std::ldexp(static_cast<double>(f.mantissa), 1 - l.bias - m);
  }
  const double significand = static_cast<double>((1u << l.mantissa_bits) | f.mantissa);
  return sign * std::ldexp(significand, static_cast<int>(f.exponent) - l.bias - m);
}

bool is_zero_code(CodeKind kind, std::uint32_t code) {
  const BitLayout l = layout_of(kind);
  if (l.specials == Specials::kE8M0) return false;
  return fields_of(l, code).magnitude == 0;
}

std::optional<std::int64_t> value_rank(CodeKind kind, std::uint32_t code) {
  const BitLayout l = layout_of(kind);
  const Fields f = fields_of(l, code);
  if (is_nan_fields(l, f)) return std::nullopt;
  // Sign-magnitude: magnitudes are monotone in value (exponent above mantissa), so the rank is
  // the signed magnitude; +0 and -0 both rank 0.
  const auto mag = static_cast<std::int64_t>(f.magnitude);
  return f.negative ? -mag : mag;
}

bool adjacent(CodeKind kind, std::uint32_t a, std::uint32_t b) {
  const auto ra = value_rank(kind, a), rb = value_rank(kind, b);
  if (!ra || !rb) return false;
  if (!std::isfinite(code_value(kind, a)) || !std::isfinite(code_value(kind, b))) return false;
  return *ra - *rb == 1 || *rb - *ra == 1;
}

std::string format_float(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? "-Inf" : "+Inf";
  char buf[64];
  // -0 keeps its sign: "%g" prints it as "-0".
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string format_code(CodeKind kind, std::uint32_t code) {
  const unsigned digits = slot_bits(kind) / 4;
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%0*x", static_cast<int>(digits), code);
  std::string out = hex;
  const double v = code_value(kind, code);
  if (kind == CodeKind::kE8M0 && !std::isnan(v)) {
    out += " (2^" + std::to_string(static_cast<int>(code) - 127) + ")";
  } else {
    out += " (" + format_float(v) + ")";
  }
  return out;
}

double input_value(InputKind kind, std::uint32_t bits) {
  switch (kind) {
    case InputKind::kFp32: return static_cast<double>(std::bit_cast<float>(bits));
    case InputKind::kBf16: return code_value(CodeKind::kBf16, bits & 0xFFFFu);
    case InputKind::kFp16: return code_value(CodeKind::kFp16, bits & 0xFFFFu);
    case InputKind::kNone: break;
  }
  return std::nan("");
}

std::string format_input(InputKind kind, std::uint32_t bits) {
  char hex[16];
  const int digits = kind == InputKind::kFp32 || kind == InputKind::kNone ? 8 : 4;
  std::snprintf(hex, sizeof hex, "0x%0*x", digits, bits);
  if (kind == InputKind::kNone) return hex;
  return std::string(hex) + " (" + format_float(input_value(kind, bits)) + ")";
}

std::uint64_t fp32_ulp_distance(float a, float b) {
  // Map the sign-magnitude bit patterns onto one ordered integer line (+0 and -0 both at 0).
  auto ordered = [](float x) {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
    const auto mag = static_cast<std::int64_t>(u & 0x7FFFFFFFu);
    return (u >> 31) ? -mag : mag;
  };
  const std::int64_t d = ordered(a) - ordered(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

}  // namespace mxv::check
