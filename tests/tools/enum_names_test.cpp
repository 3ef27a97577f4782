// Tests of enum_name (tools/include/mxv/io/enum_names.h): each enumerator gets its own table
// entry, in declaration order, and a value past the table prints "?" instead of reading past it.
#include "mxv/io/enum_names.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace mxv::io {
namespace {

enum class Colour : std::uint8_t { kRed, kGreen, kBlue };

constexpr std::string_view name(Colour c) { return enum_name(c, {"red", "green", "blue"}); }

TEST(EnumName, EachEnumeratorHasItsOwnEntry) {
  EXPECT_EQ(name(Colour::kRed), "red");
  EXPECT_EQ(name(Colour::kGreen), "green");
  EXPECT_EQ(name(Colour::kBlue), "blue");
  static_assert(name(Colour::kBlue) == "blue", "usable in constant expressions");
}

TEST(EnumName, AValuePastTheTablePrintsAQuestionMark) {
  EXPECT_EQ(name(static_cast<Colour>(3)), "?");
  EXPECT_EQ(name(static_cast<Colour>(255)), "?");
}

}  // namespace
}  // namespace mxv::io
