// Activation dequantization (docs/semantics.md section 4.5): the multiplication order by hand, the
// decode quirks, and quantize -> dequantize returning values that are already on the grid.
#include "mxv/reference/dequantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <stdexcept>
#include <vector>

namespace mxv {
namespace {

// NVFP4: elements {0x7 (6), 0xB (-1.5)} packed as 0xB7, sf 0x2A (0.3125), s_dec 0.1:
// (6 * 0.3125) * fl(0.1) = 1.875 * fl(0.1) and (-1.5 * 0.3125) * fl(0.1) = -0.46875 * fl(0.1).
TEST(Dequantize, Nvfp4OrderByHand) {
  const std::vector<std::uint8_t> elements = {0xB7};
  const std::vector<std::uint8_t> scales = {0x2A};
  const std::vector<float> s_dec = {0.1f};
  const auto out = dequantize_activations(Recipe::nvfp4_te(), elements, scales, 1, 2, ScaleLayout::kLinear,
                                          GroupedRows::single(1), s_dec);
  EXPECT_EQ(out, (std::vector<float>{1.875f * 0.1f, -0.46875f * 0.1f}));
}

// ort_qmoe decodes E8M0 0x00 as 0 and 0xFF as +Inf: 1.0 * 0 = 0, 1.0 * Inf = Inf; the spec
// decode gives 2^-127 and NaN.
TEST(Dequantize, OrtQmoeQuirks) {
  std::vector<std::uint8_t> elements(32, 0x22);  // 1.0, 1.0
  const std::vector<std::uint8_t> scales = {0x00, 0xFF};
  const std::vector<float> none;
  const auto ort = dequantize_activations(Recipe::ort_qmoe(), elements, scales, 1, 64, ScaleLayout::kLinear,
                                          GroupedRows::single(1), none);
  EXPECT_EQ(ort[0], 0.0f);
  EXPECT_EQ(ort[32], INFINITY);
  const auto spec = dequantize_activations(Recipe::mxfp4_ocp(), elements, scales, 1, 64, ScaleLayout::kLinear,
                                           GroupedRows::single(1), none);
  EXPECT_EQ(spec[0], std::ldexp(1.0f, -127));
  EXPECT_TRUE(std::isnan(spec[32]));
}

// Values already representable (E2M1 grid times a power of two, one block amax of 6 * 2^e)
// come back exactly, in any layout, for MX and NVFP4 with unit tensor scale.
TEST(Dequantize, GridValuesRoundTrip) {
  const float grid[] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  std::vector<float> x;
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < 64; ++k) {
      const float v = std::ldexp(grid[(k * 5 + r) % 8], r - 1) * ((k % 3) == 0 ? -1.0f : 1.0f);
      x.push_back(k % 32 == 0 ? std::ldexp(6.0f, r - 1) : v);
    }
  }
  for (const ScaleLayout l : {ScaleLayout::kLinear, ScaleLayout::kSwizzled128x4}) {
    QuantizeOptions o;
    o.scale_layout = l;
    o.tensor_amax = 2688.0f;
    for (const Recipe& r : {Recipe::mxfp4_ocp(), Recipe::mxfp4_nvidia(), Recipe::nvfp4_te()}) {
      const auto q = quantize_activations(r, x, 3, 64, o);
      EXPECT_EQ(dequantize_activations(r, q), x) << r.name << " " << to_string(l);
    }
  }
}

TEST(Dequantize, BadSizesThrow) {
  const std::vector<std::uint8_t> elements(3), scales(1);
  const std::vector<float> s_dec = {1.0f};
  EXPECT_THROW(dequantize_activations(Recipe::nvfp4_te(), elements, scales, 1, 4, ScaleLayout::kLinear,
                                      GroupedRows::single(1), s_dec),
               std::invalid_argument);
  const std::vector<std::uint8_t> two(2);
  EXPECT_THROW(dequantize_activations(Recipe::nvfp4_te(), two, scales, 1, 4, ScaleLayout::kSwizzled128x4,
                                      GroupedRows::single(1), s_dec),
               std::invalid_argument);
}

// rows * bytes per row beyond 64 bits (M = 2^40, K = 2^32) is refused before anything is indexed.
TEST(Dequantize, ShapesTooLargeFor64BitsAreRefused) {
  const Recipe r = Recipe::nvfp4_te();
  const std::int64_t rows = std::int64_t{1} << 40;
  const float s_dec = 1.0f;
  EXPECT_THROW(dequantize_activations(r, {}, {}, rows, std::int64_t{1} << 32, ScaleLayout::kLinear, GroupedRows::single(rows),
                                      std::span<const float>(&s_dec, 1)),
               std::invalid_argument);
}

}  // namespace
}  // namespace mxv
