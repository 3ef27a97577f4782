// Activation quantization [M, K] (docs/semantics.md sections 4-5): packing and partial blocks by
// hand, layouts, wide input types, bad shapes, and the properties sign symmetry and power-of-two
// scale invariance for every recipe that allows them.
#include "mxv/reference/quantize.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>
#include <vector>

#include "mxv/reference/wide_float.h"

namespace mxv {
namespace {

QuantizeOptions unit_scale_options() {
  QuantizeOptions o;
  o.tensor_amax = 2688.0f;  // NVFP4: S_enc = S_dec = 1
  return o;
}

// One row, K = 3 (a partial block of 3 of 16). Block amax 6 -> sf 0x38 (1.0), enc 1: codes
// 6 -> 0x7, 0.5 -> 0x1, -1.5 -> 0xB. Packing: byte 0 = 0x7 | 0x1 << 4 = 0x17; byte 1 = 0xB with
// the unused high nibble 0.
TEST(Quantize, PackingAndPartialBlockByHand) {
  const std::vector<float> x = {6.0f, 0.5f, -1.5f};
  const auto q = quantize_activations(Recipe::nvfp4_te(), x, 1, 3, unit_scale_options());
  EXPECT_EQ(q.elements, (std::vector<std::uint8_t>{0x17, 0x0B}));
  EXPECT_EQ(q.scales, (std::vector<std::uint8_t>{0x38}));
  EXPECT_EQ(q.element(0, 2), 0xB);
  EXPECT_EQ(q.prescaled, x);
  EXPECT_EQ(q.tensor[0].s_dec, 1.0f);
}

// K = 20: block 0 = elements 0..15 (amax 6 -> 0x38), block 1 = elements 16..19, zero-padded for
// the amax: amax 3 -> 3 * fl(1/6) = 0.5 -> 0x30 (0b0'0110'000 = 2^-1); enc = 2: 1.5 -> 3 (0x5).
TEST(Quantize, PartialLastBlockUsesOnlyItsElements) {
  std::vector<float> x(20, 0.0f);
  x[0] = 6.0f;
  x[16] = 3.0f;
  x[17] = 1.5f;
  const auto q = quantize_activations(Recipe::nvfp4_te(), x, 1, 20, unit_scale_options());
  EXPECT_EQ(q.scale_cols, 2);
  EXPECT_EQ(q.scales, (std::vector<std::uint8_t>{0x38, 0x30}));
  EXPECT_EQ(q.elements.size(), 10u);
  EXPECT_EQ(q.elements[8], 0x7 | (0x5 << 4));  // elements 16, 17
  EXPECT_EQ(q.block_amax[1], 3.0f);
}

// Swizzled scales of 3 rows x 2 blocks (K = 32): a 512-byte tile, data at (r%32)*16 + k, the
// rest zero.
TEST(Quantize, SwizzledScalesHaveZeroPadding) {
  std::vector<float> x(3 * 32, 1.0f);
  QuantizeOptions o = unit_scale_options();
  o.scale_layout = ScaleLayout::kSwizzled128x4;
  const auto q = quantize_activations(Recipe::nvfp4_te(), x, 3, 32, o);
  ASSERT_EQ(q.scales.size(), 512u);
  // amax 1 -> fl(1/6) = 0.16666667 -> E4M3 binade [2^-3, 2^-2) (exponent field 4), quantum
  // 2^-6: between 0.15625 (0b0'0100'010 = 0x22) and 0.171875 (0x23); nearer 0.171875 -> 0x23.
  for (std::size_t i = 0; i < 512; ++i) {
    const bool data = (i / 16) < 3 && (i % 16) < 2;
    EXPECT_EQ(q.scales[i], data ? 0x23 : 0x00) << i;
  }
}

// Grouped rows {2, 0, 3} with a tensor scale per group: the groups' own amaxes; swizzled buffer
// = (128 + 0 + 128) rows x 4 columns.
TEST(Quantize, GroupedRowsWithPerGroupScale) {
  std::vector<float> x(5 * 16, 0.0f);
  x[0] = 4.0f;   // group 0 amax 4
  x[40] = 8.0f;  // row 2 (group 2) amax 8
  QuantizeOptions o;
  o.group_counts = {2, 0, 3};
  o.scale_per_group = true;
  o.scale_layout = ScaleLayout::kSwizzled128x4;
  const auto q = quantize_activations(Recipe::nvfp4_te(), x, 5, 16, o);
  ASSERT_EQ(q.tensor.size(), 3u);
  EXPECT_EQ(q.tensor[0].amax, 4.0f);
  EXPECT_EQ(q.tensor[1].amax, 0.0f);
  EXPECT_EQ(q.tensor[2].amax, 8.0f);
  EXPECT_EQ(q.scales.size(), 256u * 4u);
  EXPECT_EQ(q.tensor_scale_of(2).amax, 8.0f);
  // Row 2 is group 2's first row -> padded row 128 -> byte 512.
  EXPECT_EQ(q.scales[512], q.scale_codes[2]);
  EXPECT_NE(q.scale_codes[2], 0);
}

// bf16 / fp16 input: widened exactly, so the result equals that of the widened fp32 values.
TEST(Quantize, WideInputsWidenExactly) {
  const std::vector<std::uint16_t> h = {0x3c00, 0xc200, 0x3555, 0x0001};  // fp16: 1, -3, 0.333, 2^-24
  std::vector<std::uint8_t> bytes;
  std::vector<float> f;
  for (const auto v : h) {
    bytes.push_back(static_cast<std::uint8_t>(v & 0xFF));
    bytes.push_back(static_cast<std::uint8_t>(v >> 8));
    f.push_back(fp16_to_float(v));
  }
  for (const Recipe& r : {Recipe::nvfp4_te(), Recipe::mxfp4_ocp()}) {
    const auto a = quantize_activations(r, WideType::kFp16, bytes, 1, 4);
    const auto b = quantize_activations(r, f, 1, 4);
    EXPECT_EQ(a.elements, b.elements);
    EXPECT_EQ(a.scales, b.scales);
  }
}

// MXFP8 stores one E4M3 byte per element: amax 448 -> ocp X = 8 - 8 = 0 -> 0x7F; 448 -> 0x7E,
// -1 -> 0xB8 (0b1'0111'000).
TEST(Quantize, Mxfp8OneBytePerElement) {
  const std::vector<float> x = {448.0f, -1.0f};
  const auto q = quantize_activations(Recipe::mxfp8_ocp(), x, 1, 2);
  EXPECT_EQ(q.elements, (std::vector<std::uint8_t>{0x7E, 0xB8}));
  EXPECT_EQ(q.scales, (std::vector<std::uint8_t>{0x7F}));
}

TEST(Quantize, BadShapesThrow) {
  const std::vector<float> x(6, 1.0f);
  EXPECT_THROW(quantize_activations(Recipe::nvfp4_te(), x, 2, 4), std::invalid_argument);
  EXPECT_THROW(quantize_activations(Recipe::nvfp4_te(), x, 6, 0), std::invalid_argument);
  QuantizeOptions o;
  o.group_counts = {1, 2};  // sums to 3, not 2
  EXPECT_THROW(quantize_activations(Recipe::nvfp4_te(), x, 2, 3, o), std::invalid_argument);
  EXPECT_THROW(quantize_activations(Recipe::nvfp4_te(), WideType::kBf16, std::vector<std::uint8_t>(5), 1, 2),
               std::invalid_argument);
}

// --- properties ----------------------------------------------------------------------------------

// Finite values spread over binades [2^-20, 2^20], some exact zeros.
rc::Gen<float> finite_value() {
  return rc::gen::map(rc::gen::tuple(rc::gen::inRange(0, 2), rc::gen::inRange(-20, 21), rc::gen::inRange(0, 1 << 23),
                                     rc::gen::inRange(0, 10)),
                      [](const std::tuple<int, int, int, int>& t) {
                        if (std::get<3>(t) == 0) return 0.0f;
                        const float m = 1.0f + static_cast<float>(std::get<2>(t)) * 0x1p-23f;
                        const float v = std::ldexp(m, std::get<1>(t));
                        return std::get<0>(t) != 0 ? -v : v;
                      });
}

const Recipe kSymmetricRecipes[] = {Recipe::nvfp4_te(),    Recipe::nvfp4_cutlass_ref(), Recipe::mxfp4_nvidia(),
                                    Recipe::mxfp4_ocp(),    Recipe::mxfp8_nvidia(),      Recipe::mxfp8_ocp()};

// Negating the input negates every element (the sign bit flips, zeros too: cuda dialect stores
// -0 as 0x8 / 0x80) and leaves every scale unchanged. (ModelOpt maps -0 to 0x0; torchao divides
// an all-zero tensor by a zero tensor scale and stores the NaN's codes: both excluded.)
RC_GTEST_PROP(QuantizeProperty, SignSymmetry, ()) {
  const auto rows = *rc::gen::inRange<std::int64_t>(1, 4);
  const auto cols = *rc::gen::inRange<std::int64_t>(1, 70);
  const auto x = *rc::gen::container<std::vector<float>>(static_cast<std::size_t>(rows * cols), finite_value());
  std::vector<float> neg(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) neg[i] = -x[i];
  for (const Recipe& r : kSymmetricRecipes) {
    const auto a = quantize_activations(r, x, rows, cols);
    const auto b = quantize_activations(r, neg, rows, cols);
    RC_ASSERT(a.scales == b.scales);
    const std::uint8_t sign = r.element == ElementFormat::kFp4E2M1 ? 0x8 : 0x80;
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t k = 0; k < cols; ++k) RC_ASSERT((a.element(i, k) ^ sign) == b.element(i, k));
    }
  }
}

// Scaling the input by 2^s: MX scale codes move by s, elements stay; NVFP4 (computed tensor
// amax) keeps scales and elements and multiplies s_dec by 2^s. Holds while nothing under- or
// overflows: inputs within [2^-20, 2^20], |s| <= 30.
RC_GTEST_PROP(QuantizeProperty, PowerOfTwoScaleInvariance, ()) {
  const auto rows = *rc::gen::inRange<std::int64_t>(1, 3);
  const auto cols = *rc::gen::inRange<std::int64_t>(1, 70);
  const auto s = *rc::gen::inRange(-30, 31);
  const auto x = *rc::gen::container<std::vector<float>>(static_cast<std::size_t>(rows * cols), finite_value());
  std::vector<float> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = std::ldexp(x[i], s);
  const Recipe recipes[] = {Recipe::nvfp4_te(), Recipe::nvfp4_cutlass_ref(), Recipe::nvfp4_modelopt(),
                            Recipe::nvfp4_torchao(), Recipe::mxfp4_nvidia(), Recipe::mxfp4_ocp(),
                            Recipe::mxfp8_ocp()};
  for (const Recipe& r : recipes) {
    const auto a = quantize_activations(r, x, rows, cols);
    const auto b = quantize_activations(r, y, rows, cols);
    RC_ASSERT(a.elements == b.elements);
    if (r.is_nvfp4()) {
      if (a.tensor[0].amax == 0.0f) continue;  // all zero: s_dec = 1 on both sides
      RC_ASSERT(a.scales == b.scales);
      RC_ASSERT(std::ldexp(a.tensor[0].s_dec, s) == b.tensor[0].s_dec);
    } else {
      for (std::size_t i = 0; i < a.scale_codes.size(); ++i) {
        if (a.block_amax[i] == 0.0f) {
          RC_ASSERT(b.scale_codes[i] == 0);
        } else {
          RC_ASSERT(static_cast<int>(b.scale_codes[i]) == static_cast<int>(a.scale_codes[i]) + s);
        }
      }
    }
  }
}

}  // namespace
}  // namespace mxv
