// Text that must hold given pieces (a report, a --help page, a program's output): one assertion
// over every piece, whose failure names each missing piece and shows the whole text.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

namespace mxv::test_support {

/// EXPECT_TRUE(contains_all(text, {"row 5", "tie-flip"})): passes when every piece occurs in
/// `text`.
::testing::AssertionResult contains_all(std::string_view text, std::initializer_list<std::string_view> pieces);

}  // namespace mxv::test_support
