// Tests of the committed set's catalogue (golden/include/mxv/golden/golden_catalogue.h): it covers
// what docs/golden-files.md ("The committed set") promises, counted from the reference's own lists
// (presets, conversion modes) rather than copied, and its names are unique and storable.
#include "mxv/golden/golden_catalogue.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

namespace mxv::golden {
namespace {

const std::vector<GoldenCase>& family(std::string_view f) {
  static std::map<std::string, std::vector<GoldenCase>, std::less<>> cache;
  auto it = cache.find(f);
  if (it == cache.end()) it = cache.emplace(std::string(f), generate_family(f)).first;
  return it->second;
}

TEST(GoldenCatalogue, NamesAreUniqueAcrossFamiliesAndStorable) {
  std::set<std::string> names;
  for (const std::string_view f : golden_families()) {
    for (const GoldenCase& c : family(f)) {
      EXPECT_TRUE(names.insert(c.name).second) << "duplicate " << c.name;
      EXPECT_EQ(c.name.find('/'), std::string::npos) << c.name;
      EXPECT_FALSE(c.oracle.empty()) << c.name;
      EXPECT_FALSE(c.why.empty()) << c.name;
    }
  }
  EXPECT_THROW(generate_family("nope"), std::invalid_argument);
}

TEST(GoldenCatalogue, CodesCoverEveryFormatAndSupportedMode) {
  std::set<std::tuple<std::string, Rounding, Saturation, Dialect>> encoded;
  std::set<std::pair<std::string, Dialect>> decoded;
  for (const GoldenCase& c : family("codes")) {
    if (c.params.op == Op::kEncode && c.params.dtype == WideType::kFp32) {
      encoded.insert({c.params.format, c.params.mode.rounding, c.params.mode.saturation, c.params.mode.dialect});
    }
    if (c.params.op == Op::kDecode) decoded.insert({c.params.format, c.params.mode.dialect});
  }
  std::size_t supported = 0;
  for (const FloatFormat* f : {&kE2M1, &kE4M3, &kUE4M3, &kE8M0}) {
    for (const Dialect d : kAllDialects) {
      EXPECT_TRUE(decoded.count({std::string(f->name), d})) << f->name << " decode " << to_string(d);
      for (const Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kUp}) {
        for (const Saturation s : {Saturation::kFinite, Saturation::kNone}) {
          try {
            validate(*f, ConvertMode{r, s, d});
          } catch (const std::invalid_argument&) {
            continue;
          }
          ++supported;
          EXPECT_TRUE(encoded.count({std::string(f->name), r, s, d}))
              << f->name << " " << to_string(r) << " " << to_string(s) << " " << to_string(d);
        }
      }
    }
  }
  EXPECT_EQ(encoded.size(), supported);
}

TEST(GoldenCatalogue, QuantizeCoversEveryPresetOnOddTiledGroupedShapes) {
  for (const std::string_view preset : Recipe::preset_names()) {
    bool linear = false, swizzled = false, grouped = false, odd_k = false, tiled = false, bf16 = false;
    for (const GoldenCase& c : family("quantize")) {
      if (c.params.recipe.name != preset) continue;
      EXPECT_EQ(c.params.recipe, Recipe::by_name(preset)) << c.name;
      linear = linear || c.params.scale_layout == ScaleLayout::kLinear;
      swizzled = swizzled || c.params.scale_layout == ScaleLayout::kSwizzled128x4;
      grouped = grouped || !c.params.groups.empty();
      odd_k = odd_k || c.params.cols % c.params.recipe.block_size != 0;
      tiled = tiled || c.params.rows > 128;
      bf16 = bf16 || c.params.dtype == WideType::kBf16;
    }
    EXPECT_TRUE(linear && swizzled && grouped && odd_k && tiled && bf16) << preset;
  }
}

TEST(GoldenCatalogue, DequantizeCoversEveryE2M1PresetLayoutAndDtype) {
  std::set<std::tuple<std::string, WeightPacking, WideType>> seen;
  for (const GoldenCase& c : family("dequantize")) seen.insert({std::string(c.params.recipe.name), c.params.packing, c.params.dtype});
  for (const std::string_view preset : Recipe::preset_names()) {
    if (Recipe::by_name(preset).element != ElementFormat::kFp4E2M1) continue;
    for (const WeightPacking p : {WeightPacking::kKPacked, WeightPacking::kNPacked}) {
      for (const WideType t : {WideType::kFp32, WideType::kBf16, WideType::kFp16}) {
        EXPECT_TRUE(seen.count({std::string(preset), p, t})) << preset << " " << to_string(p) << " " << to_string(t);
      }
    }
  }
}

TEST(GoldenCatalogue, SwigluCoversEveryLayoutActivationAndIntermediate) {
  std::set<std::tuple<std::string, std::string, Activation, Intermediate>> seen;
  for (const GoldenCase& c : family("swiglu")) {
    seen.insert({std::string(c.params.recipe.name), to_string(c.params.gate_up), c.params.recipe.activation,
                 c.params.recipe.intermediate});
    EXPECT_TRUE(c.params.tensor_amax.has_value()) << c.name;  // calibrated, as kernels need it
  }
  for (const std::string_view preset : Recipe::preset_names()) {
    if (!Recipe::by_name(preset).is_nvfp4()) continue;
    for (const char* layout : {"halves", "interleaved:1", "interleaved:8"}) {
      for (const Activation a : {Activation::kSilu, Activation::kSwigluClamped}) {
        for (const Intermediate i : {Intermediate::kFp32, Intermediate::kBf16}) {
          EXPECT_TRUE(seen.count({std::string(preset), layout, a, i})) << preset << " " << layout;
        }
      }
    }
  }
}

}  // namespace
}  // namespace mxv::golden
