// The shared vocabulary's names (vocabulary.h): every enumerator has the name the CLI, the golden
// files and the reports use, each name parses back to its enumerator, aliases parse, and an
// unknown name is refused with the valid ones listed.
#include "mxv/reference/vocabulary.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <tuple>

#include "mxv/test_support/refusal.h"

namespace mxv {
namespace {

using test_support::refusal;

// `value` is called `name`, and that name parses back to it through `by_name`.
template <class E, class ByName>
void expect_round_trip(E value, std::string_view name, ByName by_name) {
  EXPECT_EQ(to_string(value), name);
  EXPECT_EQ(by_name(to_string(value)), value) << name;
}

TEST(Vocabulary, WideTypeNamesRoundTrip) {
  for (const auto& [type, name, bytes] : {std::tuple{WideType::kFp32, "fp32", 4u}, std::tuple{WideType::kBf16, "bf16", 2u},
                                          std::tuple{WideType::kFp16, "fp16", 2u}}) {
    EXPECT_EQ(to_string(type), name);
    EXPECT_EQ(wide_type_by_name(name), type);
    EXPECT_EQ(bytes_of(type), bytes) << name;
  }
}

TEST(Vocabulary, ScaleLayoutNamesRoundTrip) {
  expect_round_trip(ScaleLayout::kLinear, "linear", scale_layout_by_name);
  expect_round_trip(ScaleLayout::kSwizzled128x4, "swizzled128x4", scale_layout_by_name);
  EXPECT_EQ(scale_layout_by_name("swizzled"), ScaleLayout::kSwizzled128x4);
}

TEST(Vocabulary, WeightPackingNamesRoundTrip) {
  expect_round_trip(WeightPacking::kKPacked, "k-packed", weight_packing_by_name);
  expect_round_trip(WeightPacking::kNPacked, "n-packed", weight_packing_by_name);
  EXPECT_EQ(weight_packing_by_name("k"), WeightPacking::kKPacked);
  EXPECT_EQ(weight_packing_by_name("n"), WeightPacking::kNPacked);
}

TEST(Vocabulary, ActivationNames) {
  EXPECT_EQ(to_string(Activation::kNone), "none");
  EXPECT_EQ(to_string(Activation::kSilu), "silu");
  EXPECT_EQ(to_string(Activation::kSwigluClamped), "swiglu_clamped");
}

TEST(Vocabulary, UnknownNamesAreRefusedWithTheValidOnes) {
  EXPECT_NE(refusal([] { wide_type_by_name("f32"); }).find("valid: fp32, bf16, fp16"), std::string::npos);
  EXPECT_NE(refusal([] { scale_layout_by_name("tiled"); }).find("valid: linear, swizzled"), std::string::npos);
  EXPECT_NE(refusal([] { weight_packing_by_name("m"); }).find("valid: k-packed"), std::string::npos);
}

}  // namespace
}  // namespace mxv
