// One generic description of a small floating-point format, and the conversion API every other
// part of mxv uses. Formats: OCP Microscaling Formats v1.0 (E2M1 section 5.3.3, E8M0 section
// 5.4.1), OCP 8-bit Floating Point v1.0 (E4M3), NVFP4 block scales (UE4M3). The rules each
// conversion follows are in docs/semantics.md sections 1-3; the implementation is clean-room (no
// CUDA headers): it is proven against the CUDA 13.0 header host code over all 2^32 fp32 inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mxv {

/// How a format spells NaN (if at all).
enum class NanEncoding : std::uint8_t {
  kNone,              // no NaN code (E2M1)
  kAllOnes,           // every bit set is NaN (E8M0 0xFF; E4M3 0x7F/0xFF: exponent and mantissa all ones)
};

/// A small float: sign (optional), exponent, mantissa. Everything else is derived.
struct FloatFormat {
  std::string_view name;
  int exponent_bits;
  int mantissa_bits;
  int bias;
  bool is_signed;
  NanEncoding nan;
  bool has_zero;  // E8M0 has no zero: code 0x00 is 2^-127

  constexpr int bits() const { return (is_signed ? 1 : 0) + exponent_bits + mantissa_bits; }
  friend constexpr bool operator==(const FloatFormat&, const FloatFormat&) = default;
};

// E2M1 (FP4): s ee m, bias 1; values 0, .5, 1, 1.5, 2, 3, 4, 6; no Inf, no NaN; 0x8 is -0.
inline constexpr FloatFormat kE2M1{"e2m1", 2, 1, 1, true, NanEncoding::kNone, true};
// E4M3 (E4M3FN): s eeee mmm, bias 7; max 448 (0x7E); 0x7F/0xFF NaN; no Inf.
inline constexpr FloatFormat kE4M3{"e4m3", 4, 3, 7, true, NanEncoding::kAllOnes, true};
// UE4M3: E4M3 with the sign bit always 0 (NVFP4 block scales); 0x7F NaN.
inline constexpr FloatFormat kUE4M3{"ue4m3", 4, 3, 7, false, NanEncoding::kAllOnes, true};
// E8M0 (UE8M0): eeeeeeee, bias 127, value 2^(c-127); 0xFF NaN; no zero, no sign.
inline constexpr FloatFormat kE8M0{"e8m0", 8, 0, 127, false, NanEncoding::kAllOnes, false};

enum class Rounding : std::uint8_t { kNearestEven, kTowardZero, kUp };
enum class Saturation : std::uint8_t { kFinite, kNone };

/// Whose behaviour a conversion reproduces (docs/semantics.md section 3).
enum class Dialect : std::uint8_t {
  kCuda,      // CUDA 13.0 headers and PTX cvt (the default)
  kMlDtypes,  // ml_dtypes astype, newest measured (0.7): "ml_dtypes", "ml_dtypes@0.7"
  kTorch,     // torch .to(float8_e4m3fn / float8_e8m0fnu), newest measured (2.15): "torch", "torch@2.15"
  kTorch211,  // the same casts in torch 2.11 (E4M3 overflow -> NaN): "torch@2.11"
  kMlDtypes06,  // ml_dtypes 0.6 (E8M0: fp32 subnormals above 2^-127 round up): "ml_dtypes@0.6"
};

/// Every dialect, in enumerator order (for sweeps over all of them).
inline constexpr Dialect kAllDialects[] = {Dialect::kCuda, Dialect::kMlDtypes, Dialect::kTorch, Dialect::kTorch211,
                                        Dialect::kMlDtypes06};

struct ConvertMode {
  Rounding rounding = Rounding::kNearestEven;
  Saturation saturation = Saturation::kFinite;
  Dialect dialect = Dialect::kCuda;
};

/// Throws std::invalid_argument naming the format, mode and rule when `mode` is not one the
/// format supports in that dialect (e.g. E8M0 has no nearest-even in the cuda dialect).
void validate(const FloatFormat& format, ConvertMode mode);

/// fp32 -> code (one byte; E2M1 codes use the low nibble). Validates `mode` (throws).
std::uint8_t encode(const FloatFormat& format, float x, ConvertMode mode = {});
/// bf16 / fp16 bits -> code: widen exactly to fp32, then encode (never an intermediate rounding).
std::uint8_t encode_bf16(const FloatFormat& format, std::uint16_t bits, ConvertMode mode = {});
std::uint8_t encode_fp16(const FloatFormat& format, std::uint16_t bits, ConvertMode mode = {});
/// code -> fp32, exact. E8M0 0x00 decodes to 2^-127, an fp32 subnormal. NaN codes give a quiet
/// NaN. A code the format does not have (E2M1 above 0xF, UE4M3 with bit 7 set) throws.
float decode(const FloatFormat& format, std::uint8_t code, Dialect dialect = Dialect::kCuda);

/// Batch forms: one mode check, then a tight loop (>= 1e9 values/s per core; see
/// reference/bench/encode_bench.cpp). `out` must be at least as long as `in` (throws).
void encode(const FloatFormat& format, std::span<const float> in, std::span<std::uint8_t> out,
            ConvertMode mode = {});
void encode_bf16(const FloatFormat& format, std::span<const std::uint16_t> in,
                 std::span<std::uint8_t> out, ConvertMode mode = {});
void encode_fp16(const FloatFormat& format, std::span<const std::uint16_t> in,
                 std::span<std::uint8_t> out, ConvertMode mode = {});
/// Encodes the fp32 bit patterns first, first+1, ..., first+out.size()-1 (exhaustive sweeps).
/// The patterns must not run past 0xFFFFFFFF (throws).
void encode_fp32_pattern_range(const FloatFormat& format, std::uint32_t first,
                               std::span<std::uint8_t> out, ConvertMode mode = {});
/// Decodes every code; a code the format does not have (wider than its bits, or the sign bit
/// of an unsigned format) throws, naming the index.
void decode(const FloatFormat& format, std::span<const std::uint8_t> in, std::span<float> out,
            Dialect dialect = Dialect::kCuda);

/// Parse "e2m1" / "e4m3" / "ue4m3" / "e8m0", "nearest-even" / "toward-zero" / "up",
/// "finite" / "none", "cuda" / "ml_dtypes" (= "ml_dtypes@0.7") / "ml_dtypes@0.6" / "torch"
/// (= "torch@2.15") / "torch@2.11"; throw
/// std::invalid_argument otherwise. to_string gives each dialect's first name.
const FloatFormat& format_by_name(std::string_view name);
Rounding rounding_by_name(std::string_view name);
Saturation saturation_by_name(std::string_view name);
Dialect dialect_by_name(std::string_view name);
std::string_view to_string(Rounding r);
std::string_view to_string(Saturation s);
std::string_view to_string(Dialect d);

}  // namespace mxv
