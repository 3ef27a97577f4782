// Tests of the golden catalogue's input generators (golden/include/mxv/golden/golden_inputs.h):
// the conversion probes hold the values the format specs name (SEMANTICS-derived, docs/semantics.md
// sections on formats: E2M1 midpoints 0.25 .. 5, the E4M3 overflow tie 464, the E4M3 subnormal
// tie 2^-10), every block kind the quantize inputs promise is present, and everything is a pure
// function of its seed.
#include "mxv/golden/golden_inputs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

namespace mxv::golden {
namespace {

bool has(const std::vector<float>& v, float x) {
  return std::any_of(v.begin(), v.end(), [&](float y) { return std::bit_cast<std::uint32_t>(y) == std::bit_cast<std::uint32_t>(x); });
}

void expect_with_neighbours(const std::vector<float>& v, float x) {
  EXPECT_TRUE(has(v, x)) << x;
  EXPECT_TRUE(has(v, std::nextafter(x, 0.0f))) << x << " - ulp";
  EXPECT_TRUE(has(v, std::nextafter(x, INFINITY))) << x << " + ulp";
  EXPECT_TRUE(has(v, -x)) << -x;
}

TEST(ConversionProbes, E2M1MidpointsAndOverflowWithNeighbours) {
  const std::vector<float> p = conversion_probes(kE2M1);
  // SEMANTICS section 2: ties at 0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5; 7 is the tie above 6.
  for (const float m : {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 7.0f}) expect_with_neighbours(p, m);
  for (const float c : {0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f}) expect_with_neighbours(p, c);
  EXPECT_TRUE(has(p, 0.0f));
  EXPECT_TRUE(has(p, -0.0f));
  EXPECT_TRUE(has(p, INFINITY));
  EXPECT_TRUE(has(p, -INFINITY));
  EXPECT_TRUE(has(p, std::numeric_limits<float>::denorm_min()));
  EXPECT_TRUE(has(p, std::numeric_limits<float>::max()));
  const auto nans = std::count_if(p.begin(), p.end(), [](float x) { return std::isnan(x); });
  EXPECT_EQ(nans, 2);  // one of each sign
  EXPECT_TRUE(std::isnan(p.back()) && std::signbit(p.back()));
}

TEST(ConversionProbes, E4M3SaturationAndSubnormalTies) {
  const std::vector<float> p = conversion_probes(kE4M3);
  expect_with_neighbours(p, 464.0f);            // 448 + half an ulp of the top binade (32 / 2)
  expect_with_neighbours(p, 448.0f);
  expect_with_neighbours(p, std::ldexp(1.0f, -10));  // half the smallest subnormal 2^-9
  expect_with_neighbours(p, 1.0625f);           // between 1 and 1.125
  expect_with_neighbours(p, 248.0f);            // between 240 and 256 (ties to 256: even)
  // Ascending apart from the trailing NaNs: the file lists them in value order.
  EXPECT_TRUE(std::is_sorted(p.begin(), p.end() - 2));
}

TEST(ConversionProbes, E8M0PowersOfTwoWithNeighbours) {
  const std::vector<float> p = conversion_probes(kE8M0);
  for (const int e : {-127, -126, -1, 0, 1, 126, 127}) expect_with_neighbours(p, std::ldexp(1.0f, e));
  expect_with_neighbours(p, 1.5f);  // between 1 and 2
}

TEST(WideProbes, Bf16KeepsItsOwnNeighboursAndNoDuplicates) {
  const std::vector<float> p = conversion_probes(kE2M1);
  const std::vector<std::uint8_t> b = wide_probes(WideType::kBf16, p);
  ASSERT_EQ(b.size() % 2, 0u);
  std::set<std::uint16_t> seen;
  for (std::size_t i = 0; i < b.size(); i += 2) {
    std::uint16_t v = 0;
    std::memcpy(&v, &b[i], 2);
    EXPECT_TRUE(seen.insert(v).second) << "duplicate " << v;
  }
  // bf16 5.0 = 0x40A0 (a tie of E2M1) and its bf16 neighbours.
  for (const std::uint16_t v : std::initializer_list<std::uint16_t>{0x40A0, 0x409F, 0x40A1, 0xC0A0}) EXPECT_TRUE(seen.count(v)) << std::hex << v;
  EXPECT_EQ(wide_probes(WideType::kFp32, p).size(), 4 * p.size());
}

TEST(QuantizeInputs, EveryBlockKindIsPresent) {
  const Recipe r = Recipe::nvfp4_te();
  const std::int64_t rows = 7, cols = 400;
  const std::vector<float> x = quantize_inputs(r, rows, cols, 42, true);
  bool zero_block = false, subnormal_block = false, midpoint_block = false, nan = false, inf = false;
  for (std::int64_t row = 0; row < rows; ++row) {
    for (std::int64_t b = 0; b < cols / 16; ++b) {
      const float* blk = &x[static_cast<std::size_t>(row * cols + b * 16)];
      bool all_zero = true, all_sub = true, neg_zero = false;
      float amax = 0;
      for (int i = 0; i < 16; ++i) {
        all_zero = all_zero && blk[i] == 0.0f;
        neg_zero = neg_zero || (blk[i] == 0.0f && std::signbit(blk[i]));
        all_sub = all_sub && std::fpclassify(blk[i]) == FP_SUBNORMAL;
        nan = nan || std::isnan(blk[i]);
        inf = inf || std::isinf(blk[i]);
        if (!std::isnan(blk[i])) amax = std::max(amax, std::fabs(blk[i]));
      }
      zero_block = zero_block || (all_zero && neg_zero);
      subnormal_block = subnormal_block || all_sub;
      // Midpoint-aligned: amax = 6 * 2^k and every element / 2^k an E2M1 midpoint or 6.
      int k = 0;
      const float m = std::frexp(amax / 6.0f, &k);
      if (amax > 0 && m == 0.5f) {
        bool on_midpoints = true;
        for (int i = 0; i < 16; ++i) {
          const float q = std::fabs(blk[i]) / std::ldexp(1.0f, k - 1);
          on_midpoints = on_midpoints && (q == 6.0f || q == 0.25f || q == 0.75f || q == 1.25f || q == 1.75f ||
                                          q == 2.5f || q == 3.5f || q == 5.0f);
        }
        midpoint_block = midpoint_block || on_midpoints;
      }
    }
  }
  EXPECT_TRUE(zero_block);
  EXPECT_TRUE(subnormal_block);
  EXPECT_TRUE(midpoint_block);
  EXPECT_TRUE(nan);
  EXPECT_TRUE(inf);
  const std::vector<float> plain = quantize_inputs(r, rows, cols, 42, false);
  EXPECT_TRUE(std::none_of(plain.begin(), plain.end(), [](float v) { return std::isnan(v) || std::isinf(v); }));
}

TEST(QuantizeInputs, APureFunctionOfTheSeed) {
  const Recipe r = Recipe::mxfp4_ocp();
  const auto a = quantize_inputs(r, 3, 100, 1, true), b = quantize_inputs(r, 3, 100, 1, true);
  const auto c = quantize_inputs(r, 3, 100, 2, true);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * 4), 0);
  EXPECT_NE(std::memcmp(a.data(), c.data(), a.size() * 4), 0);
}

TEST(WeightInputs, EveryByteAndEveryScaleCode) {
  const std::vector<std::uint8_t> packed = packed_weight_bytes(256, 9);
  EXPECT_EQ(std::set<std::uint8_t>(packed.begin(), packed.end()).size(), 256u);
  const std::vector<std::uint8_t> ue4m3 = scale_code_bytes(Recipe::nvfp4_te(), 128, 9);
  EXPECT_EQ(std::set<std::uint8_t>(ue4m3.begin(), ue4m3.end()).size(), 128u);
  EXPECT_TRUE(std::all_of(ue4m3.begin(), ue4m3.end(), [](std::uint8_t v) { return v < 0x80; }));
  const std::vector<std::uint8_t> e8m0 = scale_code_bytes(Recipe::mxfp4_nvidia(), 256, 9);
  EXPECT_EQ(std::set<std::uint8_t>(e8m0.begin(), e8m0.end()).size(), 256u);
}

TEST(SwigluInputs, ClampAndExpEdges) {
  const std::vector<float> x = swiglu_inputs(8, 64, 3, true);
  EXPECT_TRUE(has(x, 7.0f) || has(x, -7.0f));
  EXPECT_TRUE(has(x, 88.7f) || has(x, -88.7f));
  EXPECT_TRUE(std::any_of(x.begin(), x.end(), [](float v) { return std::isnan(v); }));
  EXPECT_TRUE(std::any_of(x.begin(), x.end(), [](float v) { return std::fpclassify(v) == FP_SUBNORMAL; }));
}

TEST(CaseSeed, DependsOnTheNameAndTheSeed) {
  EXPECT_EQ(case_seed(1, "a"), case_seed(1, "a"));
  EXPECT_NE(case_seed(1, "a"), case_seed(1, "b"));
  EXPECT_NE(case_seed(1, "a"), case_seed(2, "a"));
}

}  // namespace
}  // namespace mxv::golden
