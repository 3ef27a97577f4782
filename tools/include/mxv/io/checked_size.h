// Overflow-checked size arithmetic for shapes typed on the command line. A shape such as
// E = 2^20, N = K = 2^32 has a byte count that does not fit in 64 bits; multiplying it blindly
// wraps (to a negative or small number) and a later allocation or index then crashes. Every
// product of user-given extents goes through SizeProduct, which throws std::invalid_argument
// naming the factors when the result does not fit (docs/cli.md, "Sizes").
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mxv::io {

/// A running product of non-negative extents with the text of its factors, so the error can say
/// "--experts 1048576 x --rows 4294967296 x ... does not fit in 64 bits".
class SizeProduct {
 public:
  /// Starts the product for `what` ("--elements bytes", "output values").
  explicit SizeProduct(std::string_view what) : what_(what) {}

  /// Multiplies by `factor` (>= 0), described as `name` in the error text; throws if the
  /// product leaves [0, limit].
  SizeProduct& times(std::int64_t factor, std::string_view name = {}) {
    if (!text_.empty()) text_ += " x ";
    if (!name.empty()) text_.append(name).append(" ");
    text_ += std::to_string(factor);
    if (factor < 0) fail("a factor is negative");
    if (factor != 0 && value_ > limit_ / static_cast<std::uint64_t>(factor)) fail("does not fit");
    value_ *= static_cast<std::uint64_t>(factor);
    return *this;
  }

  /// Rounds up to whole units of `unit` and divides (ceil(product / unit)): packed nibbles.
  SizeProduct& ceil_div(std::int64_t unit) {
    text_ += " / " + std::to_string(unit) + " (rounded up)";
    if (unit <= 0) fail("a divisor is not positive");
    value_ = value_ / static_cast<std::uint64_t>(unit) + (value_ % static_cast<std::uint64_t>(unit) != 0 ? 1 : 0);
    return *this;
  }

  /// The product as a signed 64-bit count (it never exceeds the limit, which fits).
  std::int64_t value() const { return static_cast<std::int64_t>(value_); }
  /// The product as std::size_t (the limit fits size_t on every 64-bit target).
  std::size_t size() const { return static_cast<std::size_t>(value_); }

 private:
  [[noreturn]] void fail(std::string_view why) const {
    throw std::invalid_argument(what_ + ": " + text_ + " " + std::string(why) + " (limit " +
                                std::to_string(limit_) + ", 2^63 - 1)");
  }
  std::string what_;
  std::string text_;
  std::uint64_t value_ = 1;
  static constexpr std::uint64_t limit_ = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
};

}  // namespace mxv::io
