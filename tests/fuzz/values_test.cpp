// Tests of the input generators (fuzz/values.h): deterministic in the seed; representable in the
// input type; and aimed where they say, measured with the reference's own intermediates
// (quantize_activations' prescaled values and scale inputs): elements exactly on E2M1 midpoints
// after scaling and one ulp either side, NVFP4 scale inputs exactly on E4M3 midpoints, MX block
// maxima on the E8M0 steps, zero blocks, NaN of both signs; a plain mix holds exact codes only.
#include "mxv/fuzz/values.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <set>

#include "mxv/fuzz/values.h"
#include "mxv/reference/float_format.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/wide_float.h"

namespace mxv::fuzz {
namespace {

const std::set<float> kMidpoints = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
const std::set<float> kCodes = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

struct Aim {
  std::size_t on_midpoint = 0, beside_midpoint = 0, near_midpoint = 0, zero_blocks = 0, e4m3_midpoint_scales = 0,
              pow2_scale_inputs = 0;
};

/// Whether x lies within `rel` (relative) of the midpoint of the E4M3 codes around it.
bool near_e4m3_midpoint(float s, float rel) {
  for (unsigned c = 0; c + 1 < 0x7F; ++c) {
    const float lo = decode(kE4M3, static_cast<std::uint8_t>(c)), hi = decode(kE4M3, static_cast<std::uint8_t>(c + 1));
    const float m = lo + (hi - lo) / 2;
    if (std::fabs(s - m) <= m * rel) return true;
  }
  return false;
}

/// Where the generated values land in the reference's own intermediates. A bf16 input cannot put an
/// NVFP4 prescaled value exactly on a midpoint (the multiplier is not a power of two), so for bf16
/// the measure is "within one bf16 ulp" (2^-8 relative).
Aim measure(const Recipe& r, WideType t, const std::vector<float>& v, std::int64_t rows, std::int64_t cols) {
  const QuantizedActivations q = quantize_activations(r, t, narrow_from_fp32(t, v), rows, cols);
  const float rel = t == WideType::kBf16 ? 0x1p-8f : 0.0f;
  Aim a;
  for (const float p : q.prescaled) {
    const float m = std::fabs(p);
    if (kMidpoints.count(m) != 0) ++a.on_midpoint;
    if (kMidpoints.count(std::nextafter(m, 0.0f)) != 0 || kMidpoints.count(std::nextafter(m, 10.0f)) != 0) ++a.beside_midpoint;
    for (const float mid : kMidpoints) {
      if (std::fabs(m - mid) <= mid * 0x1p-8f) {
        ++a.near_midpoint;
        break;
      }
    }
  }
  for (std::size_t b = 0; b < q.block_amax.size(); ++b) {
    if (q.block_amax[b] == 0.0f) ++a.zero_blocks;
    const float s = q.scale_input[b];
    if (r.is_nvfp4() && s > 0.0f && s < 448.0f && near_e4m3_midpoint(s, rel)) ++a.e4m3_midpoint_scales;
    int e = 0;
    if (r.is_mx() && std::frexp(s, &e) == 0.5f) ++a.pow2_scale_inputs;
  }
  return a;
}

TEST(QuantizeInputs, DeterministicInTheSeed) {
  const ValueMix mix;
  const auto a = quantize_inputs(Recipe::nvfp4_te(), WideType::kFp32, 7, 80, mix, 5);
  const auto b = quantize_inputs(Recipe::nvfp4_te(), WideType::kFp32, 7, 80, mix, 5);
  ASSERT_EQ(a.size(), 7u * 80u);
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
  const auto c = quantize_inputs(Recipe::nvfp4_te(), WideType::kFp32, 7, 80, mix, 6);
  EXPECT_NE(0, std::memcmp(a.data(), c.data(), a.size() * sizeof(float)));
}

TEST(QuantizeInputs, AimAtElementAndScaleDecisionsForEverySupportedRecipe) {
  for (const char* preset : {"nvfp4_te", "mxfp4_nvidia", "mxfp4_ocp", "ort_qmoe"}) {
    for (const WideType t : {WideType::kFp32, WideType::kBf16}) {
      SCOPED_TRACE(std::string(preset) + (t == WideType::kBf16 ? " bf16" : " fp32"));
      const Recipe r = Recipe::by_name(preset);
      ValueMix mix;
      const std::vector<float> v = quantize_inputs(r, t, 64, 4 * r.block_size, mix, 11);
      for (const float x : v) {
        if (t == WideType::kBf16 && !std::isnan(x)) {
          ASSERT_EQ(x, bf16_to_float(float_to_bf16(x))) << "representable in bf16";
        }
      }
      const Aim a = measure(r, t, v, 64, 4 * r.block_size);
      EXPECT_GT(a.near_midpoint, 300u) << "elements within one bf16 ulp of E2M1 midpoints after scaling";
      if (t == WideType::kFp32 || r.is_mx()) {
        EXPECT_GT(a.on_midpoint, 100u) << "exactly on E2M1 midpoints";
      }
      if (t == WideType::kFp32) {
        EXPECT_GT(a.beside_midpoint, 50u) << "one fp32 ulp beside a midpoint";
      }
      EXPECT_GT(a.zero_blocks, 2u);
      if (r.is_nvfp4()) {
        EXPECT_GT(a.e4m3_midpoint_scales, 5u) << "scale inputs on (bf16: within an ulp of) UE4M3 midpoints";
      } else {
        EXPECT_GT(a.pow2_scale_inputs, 10u) << "block maxima on the E8M0 steps";
      }
    }
  }
}

TEST(QuantizeInputs, PlainMixHoldsExactCodesAndSpecialsHaveBothSigns) {
  const Recipe r = Recipe::mxfp4_ocp();
  const ValueMix plain{false, false, false, false, false, false, false, false};
  EXPECT_EQ(plain.to_string(), "plain");
  const std::vector<float> v = quantize_inputs(r, WideType::kFp32, 16, 64, plain, 3);
  const QuantizedActivations q = quantize_activations(r, v, 16, 64);
  for (const float p : q.prescaled) ASSERT_EQ(kCodes.count(std::fabs(p)), 1u) << p;
  ValueMix specials;
  specials.specials = true;
  bool pos_nan = false, neg_nan = false, inf = false;
  for (const float x : quantize_inputs(r, WideType::kFp32, 256, 64, specials, 4)) {
    pos_nan |= std::isnan(x) && !std::signbit(x);
    neg_nan |= std::isnan(x) && std::signbit(x);
    inf |= std::isinf(x);
  }
  EXPECT_TRUE(pos_nan && neg_nan && inf);
}

TEST(QuantizeInputs, ExtremeTensorAmaxReachesTheSEncEdges) {
  ValueMix mix;
  mix.extreme_tensor = true;
  bool overflow = false, underflow = false;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    const auto v = quantize_inputs(Recipe::nvfp4_te(), WideType::kFp32, 2, 32, mix, seed);
    const QuantizedActivations q = quantize_activations(Recipe::nvfp4_te(), v, 2, 32);
    const float amax = q.tensor.at(0).amax;
    overflow |= amax > 0.0f && amax < 1e-37f;
    underflow |= amax > 1e37f;
  }
  EXPECT_TRUE(overflow && underflow);
}

TEST(SwigluInputs, HitTheClampLimitAndItsNeighbours) {
  const Recipe r = Recipe::nvfp4_te();
  const auto v = swiglu_inputs(r, WideType::kFp32, 16, 64, ValueMix{}, 9);
  ASSERT_EQ(v.size(), 16u * 128u);
  bool at = false, above = false, below = false;
  for (const float x : v) {
    at |= x == r.limit;
    above |= x == std::nextafter(r.limit, 100.0f);
    below |= x == std::nextafter(r.limit, 0.0f);
  }
  EXPECT_TRUE(at && above && below);
}

TEST(BugHuntingValues, ReproducibleAndAimAtEdges) {
  const std::vector<float> a = bug_hunting_values(4096, 16, 99, true);
  const std::vector<float> b = bug_hunting_values(4096, 16, 99, true);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
  bool pos0 = false, neg0 = false, nan = false, inf = false, sub = false, mid = false, huge = false;
  for (const float x : a) {
    pos0 |= x == 0.0f && !std::signbit(x);
    neg0 |= x == 0.0f && std::signbit(x);
    nan |= std::isnan(x);
    inf |= std::isinf(x);
    sub |= std::fpclassify(x) == FP_SUBNORMAL;
    mid |= std::fabs(x) == 2.5f || std::fabs(x) == 5.0f;
    huge |= std::isfinite(x) && std::fabs(x) >= 0x1p20f;
  }
  EXPECT_TRUE(pos0 && neg0 && nan && inf && sub && mid && huge);
  for (const float x : bug_hunting_values(4096, 16, 99, false)) ASSERT_FALSE(std::isnan(x) || std::isinf(x));
}

TEST(WeightInputs, EdgeScalesOnlyWhenAskedAndTheSequenceOtherwiseFixed) {
  const Recipe r = Recipe::mxfp4_ocp();
  Rng g1(42), g2(42), g3(42);
  const WeightInputs plain = weight_inputs(r, 2, 8, 64, g1, false);
  const WeightInputs again = weight_inputs(r, 2, 8, 64, g2, false);
  const WeightInputs edges = weight_inputs(r, 2, 8, 64, g3, true);
  EXPECT_EQ(plain.packed, again.packed);
  EXPECT_EQ(plain.scales, again.scales);
  EXPECT_EQ(plain.packed, edges.packed) << "edges change scales only";
  EXPECT_EQ(plain.s_dec, edges.s_dec);
  EXPECT_NE(plain.scales, edges.scales);
  ASSERT_EQ(plain.packed.size(), 2u * 8u * 32u);
  ASSERT_EQ(plain.scales.size(), 2u * 8u * 2u);
  ASSERT_EQ(plain.s_dec.size(), 2u);
}

TEST(WeightInputs, Nvfp4EdgesIncludeLargeAndTinyGlobalScales) {
  const Recipe r = Recipe::nvfp4_te();
  Rng g1(42), g2(42);
  const WeightInputs plain = weight_inputs(r, 64, 2, 16, g1, false);
  const WeightInputs edges = weight_inputs(r, 64, 2, 16, g2, true);
  bool at_limit = false, tiny = false;
  for (const float s : plain.s_dec) ASSERT_TRUE(s >= 1e-3f && s < 1.0f) << s;
  for (const float s : edges.s_dec) {
    at_limit |= s >= 0x1p120f;
    tiny |= s > 0.0f && s <= 0x1p-126f;
  }
  EXPECT_TRUE(at_limit && tiny) << "64 experts draw an s_dec at or past 2^120 and one at or below 2^-126";
}

TEST(Seeds, MixAndNameHashAreStable) {
  EXPECT_EQ(name_hash("quantize"), name_hash("quantize"));
  EXPECT_NE(name_hash("quantize"), name_hash("dequantize"));
  EXPECT_NE(mix_seed(1, 2), mix_seed(2, 1));
  EXPECT_EQ(mix_seed(1, 2), mix_seed(1, 2));
}

}  // namespace
}  // namespace mxv::fuzz
