// Recipes: every preset by name, the fields that make presets differ (docs/semantics.md sections
// 3-4), coherence checks, and the error for an unknown name.
#include "mxv/reference/recipe.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

namespace mxv {
namespace {

TEST(Recipe, EveryPresetByNameKeepsItsName) {
  std::set<std::string> names;
  for (const auto name : Recipe::preset_names()) {
    const Recipe r = Recipe::by_name(name);
    EXPECT_EQ(r.name, name);
    EXPECT_NO_THROW(r.validate()) << name;
    EXPECT_NE(to_string(r).find(std::string(name)), std::string::npos);
    names.insert(std::string(name));
  }
  for (const auto name : Recipe::library_preset_names()) {
    const Recipe r = Recipe::by_name(name);
    EXPECT_EQ(r.name, name);
    EXPECT_NO_THROW(r.validate()) << name;
    names.insert(std::string(name));
  }
  EXPECT_EQ(names.size(), 34u);
  EXPECT_EQ(Recipe::preset_names()[0], "nvfp4_te");
  EXPECT_EQ(Recipe{}, Recipe::nvfp4_te());  // the default
}

// The unversioned library names are the newest release modelled; each versioned preset differs
// from its neighbour in the field that changed between the releases (docs/conformance.md).
TEST(Recipe, VersionedPresetsDifferWhereTheLibrariesChanged) {
  auto unnamed = [](Recipe r) {
    r.name = "";
    return r;
  };
  EXPECT_EQ(unnamed(Recipe::nvfp4_modelopt()), unnamed(Recipe::nvfp4_modelopt_047()));
  EXPECT_EQ(unnamed(Recipe::nvfp4_torchao()), unnamed(Recipe::nvfp4_torchao_018()));
  EXPECT_EQ(unnamed(Recipe::by_name("mxfp4_torchao_rceil")), unnamed(Recipe::by_name("mxfp4_torchao_rceil@0.18")));
  EXPECT_EQ(Recipe::nvfp4_modelopt_043().scale_clamp, ScaleClamp::kNone);
  EXPECT_EQ(Recipe::nvfp4_modelopt_047().scale_clamp, ScaleClamp::kE4m3Range);
  EXPECT_EQ(Recipe::nvfp4_torchao_016().order, Nvfp4Order::kTorchao);
  EXPECT_EQ(Recipe::nvfp4_torchao_017().order, Nvfp4Order::kTorchaoReciprocal);
  EXPECT_EQ(unnamed(Recipe::nvfp4_torchao_one_level()), unnamed(Recipe::nvfp4_torchao_one_level_018()));
  EXPECT_EQ(Recipe::nvfp4_torchao_one_level_017().order, Nvfp4Order::kTorchao);
  EXPECT_EQ(Recipe::nvfp4_torchao_one_level_018().order, Nvfp4Order::kTorchaoReciprocal);
  for (const Recipe& r : {Recipe::nvfp4_torchao_one_level_017(), Recipe::nvfp4_torchao_one_level_018()}) {
    EXPECT_EQ(r.global_scale, GlobalScale::kNone) << r.name;
  }
  EXPECT_EQ(Recipe::nvfp4_torchao_bf16_016().order, Nvfp4Order::kTorchao);
  EXPECT_EQ(Recipe::nvfp4_torchao_bf16_017().order, Nvfp4Order::kTorchaoReciprocal);
  for (const Recipe& r : {Recipe::nvfp4_torchao_bf16_016(), Recipe::nvfp4_torchao_bf16_017()}) {
    EXPECT_EQ(r.dequant_order, DequantOrder::kElemTimesBf16ScaleProduct) << r.name;
  }
  EXPECT_EQ(Recipe::by_name("mxfp8_torchao_rceil@0.17").scale_rule, ScaleRule::kTorchaoRceil017);
  EXPECT_EQ(Recipe::mxfp4_te().scale_rule, ScaleRule::kTe);
  for (const Recipe& r : {Recipe::nvfp4_modelopt_043(), Recipe::nvfp4_torchao_016()}) {
    EXPECT_EQ(r.dequant_order, DequantOrder::kElemTimesScaleProduct) << r.name;
    EXPECT_EQ(r.scale_decode, ScaleDecode::kSignedE4m3) << r.name;
  }
  EXPECT_TRUE(Recipe::nvfp4_modelopt().e2m1_negative_zero_decodes_positive);
  EXPECT_FALSE(Recipe::nvfp4_torchao().e2m1_negative_zero_decodes_positive);
}

TEST(Recipe, PresetFieldsFollowTheirLibraries) {
  EXPECT_EQ(Recipe::nvfp4_trtllm().reciprocal, Reciprocal::kRcpApproxTable);
  EXPECT_EQ(Recipe::nvfp4_modelopt().zero_block, ZeroBlock::kScaleOne);
  EXPECT_EQ(Recipe::nvfp4_torchao().zero_block, ZeroBlock::kScaleMinNormal);
  EXPECT_EQ(Recipe::mxfp4_ocp().scale_rule, ScaleRule::kOcpFloor);
  EXPECT_EQ(Recipe::mxfp4_nvidia().scale_rule, ScaleRule::kNvidiaRoundUp);
  EXPECT_EQ(Recipe::mxfp4_ocp().block_size, 32);
  EXPECT_EQ(Recipe::nvfp4_te().block_size, 16);
  EXPECT_EQ(Recipe::mxfp8_ocp().element, ElementFormat::kFp8E4M3);
  EXPECT_EQ(Recipe::mxfp8_nvidia().element_max(), 448.0f);
  EXPECT_EQ(Recipe::ort_qmoe().e8m0_decode, E8m0Decode::kOrtQmoe);
  EXPECT_EQ(Recipe::ort_qmoe().activation, Activation::kSwigluClamped);
  EXPECT_EQ(Recipe::ort_qmoe().alpha, 1.702f);
  EXPECT_EQ(Recipe::ort_qmoe().limit, 7.0f);
}

TEST(Recipe, UnknownNameListsValidOnes) {
  try {
    (void)Recipe::by_name("nvfp4");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'nvfp4'"), std::string::npos) << what;
    for (const auto name : Recipe::preset_names()) EXPECT_NE(what.find(std::string(name)), std::string::npos) << what;
  }
}

TEST(Recipe, ValidateRejectsIncoherentFields) {
  Recipe r = Recipe::nvfp4_te();
  r.block_size = 0;
  EXPECT_THROW(r.validate(), std::invalid_argument);
  r = Recipe::nvfp4_te();
  r.element = ElementFormat::kFp8E4M3;
  EXPECT_THROW(r.validate(), std::invalid_argument);
  r = Recipe::mxfp4_ocp();
  r.scale_rule = ScaleRule::kNvfp4;
  EXPECT_THROW(r.validate(), std::invalid_argument);
  r = Recipe::mxfp4_ocp();
  r.global_scale = GlobalScale::kTensorAmax;
  EXPECT_THROW(r.validate(), std::invalid_argument);
  r = Recipe::nvfp4_te();
  r.global_scale = GlobalScale::kNone;  // one-level NVFP4 is modelled for the torchao orders only
  EXPECT_THROW(r.validate(), std::invalid_argument);
  r = Recipe::nvfp4_te();
  r.reciprocal = Reciprocal::kRcpApproxTable;  // only the trtllm order has rcp.approx
  EXPECT_THROW(r.validate(), std::invalid_argument);
  r = Recipe::nvfp4_te();
  r.e8m0_decode = E8m0Decode::kOrtQmoe;
  EXPECT_THROW(r.validate(), std::invalid_argument);
}

}  // namespace
}  // namespace mxv
