// Tests of command_options.h: the defaults of --recipe and --dtype, the names kept as given, and
// the global-scale file rule with its messages (the verbs' own tests run them end to end).
#include "mxv/reference/command_options.h"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>

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

}  // namespace
}  // namespace mxv
