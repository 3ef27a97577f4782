// Tests of contains_all (contains.h): it passes only when every piece is there, and its failure
// names each missing piece.
#include "mxv/test_support/contains.h"

#include <gtest/gtest.h>

#include <string>

namespace mxv::test_support {
namespace {

TEST(ContainsAll, PassesOnlyWhenEveryPieceIsThere) {
  EXPECT_TRUE(contains_all("row 5, block 2: tie-flip", {"row 5", "tie-flip"}));
  EXPECT_TRUE(contains_all("anything", {}));
  const ::testing::AssertionResult r = contains_all("row 5, block 2", {"row 5", "tie-flip", "byte 82"});
  ASSERT_FALSE(r);
  const std::string why = r.message();
  EXPECT_NE(why.find("missing: 'tie-flip'"), std::string::npos) << why;
  EXPECT_NE(why.find("missing: 'byte 82'"), std::string::npos) << why;
  EXPECT_EQ(why.find("missing: 'row 5'"), std::string::npos) << why;
  EXPECT_NE(why.find("row 5, block 2"), std::string::npos) << why;  // the text itself
}

}  // namespace
}  // namespace mxv::test_support
