// Tests of command_options.h: the defaults of --recipe and --dtype, the names kept as given, and
// the global-scale file rule with its messages (the verbs' own tests run them end to end).
#include "mxv/reference/command_options.h"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mxv/test_support/refusal.h"

namespace mxv {
namespace {

using test_support::refusal;

TEST(CommandOptions, RecipeDefaultsToNvfp4Te) {
  const auto [name, recipe] = recipe_option(std::nullopt);
  EXPECT_EQ(name, "nvfp4_te");
  EXPECT_EQ(recipe, Recipe::nvfp4_te());
  const auto [mx_name, mx] = recipe_option(std::string("mxfp4_ocp"));
  EXPECT_EQ(mx_name, "mxfp4_ocp");
  EXPECT_EQ(mx, Recipe::mxfp4_ocp());
  EXPECT_THROW((void)recipe_option(std::string("nvfp5")), std::invalid_argument);
}

TEST(CommandOptions, WideTypeDefaultsToFp32) {
  const auto [name, type] = wide_type_option(std::nullopt);
  EXPECT_EQ(name, "fp32");
  EXPECT_EQ(type, WideType::kFp32);
  const auto [bf16_name, bf16] = wide_type_option(std::string("bf16"));
  EXPECT_EQ(bf16_name, "bf16");
  EXPECT_EQ(bf16, WideType::kBf16);
  EXPECT_THROW((void)wide_type_option(std::string("f32")), std::invalid_argument);
}

TEST(CommandOptions, GlobalScaleFileIsNvfp4sAlone) {
  EXPECT_EQ(mx_refusal("mxfp4_ocp"), "to the MX recipe 'mxfp4_ocp' (MX has no global scale; NVFP4 recipes only)");
  EXPECT_EQ(refusal([] { require_global_scale_file(Recipe::nvfp4_te(), "nvfp4_te", false, "--out-global"); }),
            "--out-global: required for the NVFP4 recipe 'nvfp4_te'");
  EXPECT_EQ(refusal([] { require_global_scale_file(Recipe::nvfp4_te(), "nvfp4_te", true, "--global"); }), "");
  EXPECT_EQ(refusal([] { require_global_scale_file(Recipe::mxfp4_ocp(), "mxfp4_ocp", false, "--global"); }), "");
}

// A refusal of the model names the option: its bare subject is replaced, any other message kept.
TEST(CommandOptions, RefusalsNameTheOption) {
  EXPECT_EQ(option_message("--packing", "packing: unknown name 'x'; valid: k-packed"),
            "--packing: unknown name 'x'; valid: k-packed");
  EXPECT_EQ(option_message("--layout", "layout 'x' is not valid: expected 'halves'"),
            "--layout: layout 'x' is not valid: expected 'halves'");
  EXPECT_EQ(option_message("--input", "code[3]: 0x1F is not a e2m1 code"), "--input: code[3]: 0x1F is not a e2m1 code");
  EXPECT_EQ(refusal([] { (void)recipe_option(std::string("nvfp5")); }).rfind("--recipe: unknown preset 'nvfp5'", 0), 0u);
  EXPECT_EQ(refusal([] { (void)wide_type_option(std::string("fp8"), "--out-dtype"); }),
            "--out-dtype: unknown name 'fp8'; valid: fp32, bf16, fp16");
  EXPECT_EQ(refusal([] { (void)scale_layout_option(std::string("tiled"), "linear"); })
                .rfind("--scale-layout: unknown name 'tiled'", 0),
            0u);
  EXPECT_EQ(scale_layout_option(std::nullopt, "swizzled"), ScaleLayout::kSwizzled128x4);
}

// A code the model refuses is named with the file and its offset there; only that code is
// refused, and an offset map (a padded layout) is applied.
TEST(CommandOptions, BadCodeIsNamedWithFileAndOffset) {
  const auto decode_one = [](std::uint8_t code) {
    if (code & 0x80u) throw std::invalid_argument("code: 0x80 is not a test code");
  };
  const std::vector<std::uint8_t> good = {0x00, 0x7F, 0x38};
  EXPECT_EQ(refusal([&] { check_codes("--scales", "s.bin", good, decode_one); }), "");
  const std::vector<std::uint8_t> bad = {0x38, 0x38, 0x94, 0x80};
  EXPECT_EQ(refusal([&] { check_codes("--scales", "s.bin", bad, decode_one); }),
            "--scales: 's.bin' byte 2: 0x80 is not a test code");
  EXPECT_EQ(refusal([&] { check_codes("--scales", "s.bin", bad, decode_one, [](std::size_t i) { return 512 + 16 * static_cast<std::int64_t>(i); }); }),
            "--scales: 's.bin' byte 544: 0x80 is not a test code");
}

// One global scale is printed as before; one per expert prints every expert's.
TEST(CommandOptions, SummaryShowsEveryExpertsScale) {
  const std::vector<TensorScale> one = {{8.0f, 1.0f, 0.5f}};
  EXPECT_EQ(tensor_scales_summary(one), "tensor amax 8, s_dec 0.5");
  const std::vector<TensorScale> three = {{0.0f, 1.0f, 1.0f}, {8.0f, 1.0f, 0.25f}, {0.0f, 1.0f, 1.0f}};
  EXPECT_EQ(tensor_scales_summary(three), "per expert tensor amax [0, 8, 0], s_dec [1, 0.25, 1]");
}

}  // namespace
}  // namespace mxv
