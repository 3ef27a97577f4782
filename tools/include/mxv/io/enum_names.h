// The printed name of an enumerator, looked up in a table of names in declaration order. Every
// vocabulary enum of the project is declared 0, 1, ..., N-1, so a one-line table replaces a
// switch of N cases; a value outside the table (a cast from a corrupt byte) prints "?".
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>

namespace mxv::io {

/// `names[i]` is the name of the enumerator whose value is i: enum_name(v, {"a", "b"}).
template <class Enum, std::size_t N>
constexpr std::string_view enum_name(Enum value, const std::string_view (&names)[N]) {
  static_assert(std::is_enum_v<Enum>, "enum_name prints enumerations");
  const auto index = static_cast<std::size_t>(static_cast<std::underlying_type_t<Enum>>(value));
  return index < N ? names[index] : std::string_view("?");
}

}  // namespace mxv::io
