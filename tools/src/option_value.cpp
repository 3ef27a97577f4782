// Option values (option_value.h). std::from_chars: no locale, no leading '+' or spaces, and the
// whole text must be consumed, so a typo is an error rather than a silently truncated number.
#include "mxv/io/option_value.h"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

namespace mxv::io {
namespace {

[[noreturn]] void refuse(std::string_view option, std::string_view text, std::string_view rule) {
  std::string msg(option);
  msg.append(": '").append(text).append("' ").append(rule);
  throw std::invalid_argument(msg);
}

}  // namespace

std::int64_t parse_int_option(std::string_view option, std::string_view text, std::int64_t min, std::int64_t max) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range) {
    refuse(option, text, "is outside [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) refuse(option, text, "is not an integer");
  if (v < min || v > max) refuse(option, text, "is outside [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return v;
}

std::uint64_t parse_uint64_option(std::string_view option, std::string_view text) {
  std::uint64_t v = 0;
  // from_chars for an unsigned type rejects a leading '-' (it would otherwise wrap around).
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range) refuse(option, text, "is outside [0, 2^64 - 1]");
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    refuse(option, text, "is not a whole number >= 0");
  }
  return v;
}

std::vector<std::int64_t> parse_counts_option(std::string_view option, std::string_view text) {
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view part =
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    out.push_back(parse_int_option(option, part, 0, std::int64_t{1} << 40));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

float parse_real_option(std::string_view option, std::string_view text, RealRule rule) {
  float v = 0.0f;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range) refuse(option, text, "is outside the fp32 range");
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) refuse(option, text, "is not a number");
  if (!std::isfinite(v)) refuse(option, text, "is not finite; give a finite number");
  if (rule == RealRule::kFiniteNonNegative && std::signbit(v)) refuse(option, text, "is negative; it must be >= 0");
  if (rule == RealRule::kFinitePositive && !(v > 0.0f)) refuse(option, text, "must be > 0");
  return v;
}

void reject_if_given(bool given, std::string_view option, std::string_view why) {
  if (!given) return;
  std::string msg(option);
  msg.append(": does not apply ").append(why);
  throw std::invalid_argument(msg);
}

}  // namespace mxv::io
