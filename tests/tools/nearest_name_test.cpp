// Tests of nearest_name (tools/include/mxv/cli/nearest_name.h): typos of the verbs find the
// verb; unrelated words find nothing.
#include "mxv/cli/nearest_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mxv::cli {
namespace {

const std::vector<std::string> kVerbs = {"convert", "quantize", "dequantize", "swiglu-quantize", "verify"};

TEST(EditDistance, CountsEditsAndAdjacentSwaps) {
  EXPECT_EQ(edit_distance("quantize", "quantize"), 0u);
  EXPECT_EQ(edit_distance("quantise", "quantize"), 1u);  // substitution
  EXPECT_EQ(edit_distance("qunatize", "quantize"), 1u);  // adjacent swap
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("verfy", "verify"), 1u);       // deletion
}

TEST(NearestName, TyposAndPrefixesFindTheVerb) {
  EXPECT_EQ(nearest_name("quantise", kVerbs), "quantize");
  EXPECT_EQ(nearest_name("dequant", kVerbs), "dequantize");
  EXPECT_EQ(nearest_name("swiglu_quantize", kVerbs), "swiglu-quantize");
  EXPECT_EQ(nearest_name("verfy", kVerbs), "verify");
  EXPECT_EQ(nearest_name("conver", kVerbs), "convert");
  EXPECT_EQ(nearest_name("gemm", kVerbs), "");
  EXPECT_EQ(nearest_name("x", kVerbs), "");
}

}  // namespace
}  // namespace mxv::cli
