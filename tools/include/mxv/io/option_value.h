// Typed values of command-line options, parsed from the text the user typed so the error can
// quote it and name the option (docs/cli.md, "Option values"). Every verb parses integers,
// counts and scale parameters through these, so "-1", "nan", "1e400" and "12x" are refused the
// same way everywhere.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace mxv::io {

/// A whole decimal integer in [min, max]; throws std::invalid_argument naming `option`.
std::int64_t parse_int_option(std::string_view option, std::string_view text, std::int64_t min, std::int64_t max);

/// A whole unsigned decimal integer that fits 64 bits (a seed): no sign, no exponent; throws
/// naming `option`.
std::uint64_t parse_uint64_option(std::string_view option, std::string_view text);

/// "a,b,c": comma-separated counts, each in [0, 2^40]; throws naming `option`.
std::vector<std::int64_t> parse_counts_option(std::string_view option, std::string_view text);

/// What a real-valued option may be: amax, scales and activation constants are finite; most
/// are also positive or at least not negative.
enum class RealRule : std::uint8_t {
  kFiniteNonNegative,  ///< amax: 0 is an all-zero tensor, a negative amax does not exist
  kFinitePositive,     ///< a scale or an activation constant
};

/// A decimal or scientific fp32 number satisfying `rule` ("1.5", "2e-3"); "nan", "inf", a value
/// that overflows fp32 and text after the number are refused. Throws naming `option`.
float parse_real_option(std::string_view option, std::string_view text, RealRule rule);

/// Refuses an option the user gave that the chosen recipe, kind or mode does not use: throws
/// std::invalid_argument "<option>: does not apply <why>" when `given`. Silently ignoring such
/// an option would let a user believe it took effect.
void reject_if_given(bool given, std::string_view option, std::string_view why);

}  // namespace mxv::io
