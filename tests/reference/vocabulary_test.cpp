// The shared vocabulary's names (vocabulary.h): every enumerator has the name the CLI, the golden
// files and the reports use, each name parses back to its enumerator, aliases parse, and an
// unknown name is refused with the valid ones listed.
#include "mxv/reference/vocabulary.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <tuple>

namespace mxv {
namespace {

TEST(Vocabulary, WideTypeNamesRoundTrip) {
  for (const auto& [type, name, bytes] : {std::tuple{WideType::kFp32, "fp32", 4u}, std::tuple{WideType::kBf16, "bf16", 2u},
                                          std::tuple{WideType::kFp16, "fp16", 2u}}) {
    EXPECT_EQ(to_string(type), name);
    EXPECT_EQ(wide_type_by_name(name), type);
    EXPECT_EQ(bytes_of(type), bytes) << name;
  }
}

TEST(Vocabulary, ScaleLayoutNamesRoundTrip) {
  EXPECT_EQ(to_string(ScaleLayout::kLinear), "linear");
  EXPECT_EQ(to_string(ScaleLayout::kSwizzled128x4), "swizzled128x4");
  for (const ScaleLayout l : {ScaleLayout::kLinear, ScaleLayout::kSwizzled128x4}) {
    EXPECT_EQ(scale_layout_by_name(to_string(l)), l);
  }
  EXPECT_EQ(scale_layout_by_name("swizzled"), ScaleLayout::kSwizzled128x4);
}

TEST(Vocabulary, WeightPackingNamesRoundTrip) {
  EXPECT_EQ(to_string(WeightPacking::kKPacked), "k-packed");
  EXPECT_EQ(to_string(WeightPacking::kNPacked), "n-packed");
  for (const WeightPacking p : {WeightPacking::kKPacked, WeightPacking::kNPacked}) {
    EXPECT_EQ(weight_packing_by_name(to_string(p)), p);
  }
  EXPECT_EQ(weight_packing_by_name("k"), WeightPacking::kKPacked);
  EXPECT_EQ(weight_packing_by_name("n"), WeightPacking::kNPacked);
}

TEST(Vocabulary, ActivationNames) {
  EXPECT_EQ(to_string(Activation::kNone), "none");
  EXPECT_EQ(to_string(Activation::kSilu), "silu");
  EXPECT_EQ(to_string(Activation::kSwigluClamped), "swiglu_clamped");
}

TEST(Vocabulary, UnknownNamesAreRefusedWithTheValidOnes) {
  const auto message = [](auto parse) {
    try {
      parse();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_NE(message([] { wide_type_by_name("f32"); }).find("valid: fp32, bf16, fp16"), std::string::npos);
  EXPECT_NE(message([] { scale_layout_by_name("tiled"); }).find("valid: linear, swizzled"), std::string::npos);
  EXPECT_NE(message([] { weight_packing_by_name("m"); }).find("valid: k-packed"), std::string::npos);
}

}  // namespace
}  // namespace mxv
