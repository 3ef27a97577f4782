// contains_all (contains.h).
#include "mxv/test_support/contains.h"

namespace mxv::test_support {

::testing::AssertionResult contains_all(std::string_view text, std::initializer_list<std::string_view> pieces) {
  std::string missing;
  for (const std::string_view piece : pieces) {
    if (text.find(piece) == std::string_view::npos) missing += "\n  missing: '" + std::string(piece) + "'";
  }
  if (missing.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << missing << "\nin:\n" << text;
}

}  // namespace mxv::test_support
