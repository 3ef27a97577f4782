// Tests of golden cases (golden/include/mxv/golden/golden_case.h): dataset shapes per operation
// written from the layouts in docs/golden-files.md (not from the code that computes them), known
// answers of the reference run, and the argument checks.
#include "mxv/golden/golden_case.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace mxv::golden {
namespace {

using Shape = std::vector<std::uint64_t>;

std::vector<std::uint8_t> fp32_bytes(std::initializer_list<float> v) {
  std::vector<std::uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), std::data(v), b.size());
  return b;
}

TEST(GoldenCaseSpecs, Quantize) {
  CaseParams p{.op = Op::kQuantize, .rows = 7, .cols = 17};
  const auto out = output_specs(p);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].name, "elements");
  EXPECT_EQ(out[0].kind, check::CodeKind::kE2M1x2);
  EXPECT_EQ(out[0].shape, (Shape{7, 9}));  // ceil(17 / 2) bytes per row
  EXPECT_EQ(out[1].name, "scales");
  EXPECT_EQ(out[1].kind, check::CodeKind::kUE4M3);
  EXPECT_EQ(out[1].shape, (Shape{7, 2}));  // ceil(17 / 16) blocks
  EXPECT_EQ(out[2].name, "amax");
  EXPECT_EQ(out[3].name, "s_dec");
  EXPECT_EQ(out[3].shape, (Shape{1}));
  EXPECT_EQ(input_specs(p)[0].shape, (Shape{7, 17}));
  // Swizzled: rows padded to 128, columns to 4, stored flat.
  p.scale_layout = ScaleLayout::kSwizzled128x4;
  EXPECT_EQ(output_specs(p)[1].shape, (Shape{128 * 4}));
  EXPECT_EQ(output_specs(p)[1].layout, check::Layout::kSwizzled128x4);
  // Grouped 1/127/128/129: each expert padded to 128 rows: 128 + 128 + 128 + 256.
  p.rows = 385;
  p.cols = 32;
  p.groups = {1, 127, 128, 129};
  EXPECT_EQ(output_specs(p)[1].shape, (Shape{640 * 4}));
  // MXFP8: one E4M3 byte per element, E8M0 scales, no tensor scale.
  p.recipe = Recipe::mxfp8_ocp();
  p.scale_layout = ScaleLayout::kLinear;
  const auto mx = output_specs(p);
  ASSERT_EQ(mx.size(), 2u);
  EXPECT_EQ(mx[0].kind, check::CodeKind::kE4M3);
  EXPECT_EQ(mx[0].shape, (Shape{385, 32}));
  EXPECT_EQ(mx[1].kind, check::CodeKind::kE8M0);
  EXPECT_EQ(mx[1].shape, (Shape{385, 1}));
}

TEST(GoldenCaseSpecs, DequantizeBothLayouts) {
  CaseParams p{.op = Op::kDequantize, .rows = 6, .cols = 80};
  p.experts = 2;
  p.dtype = WideType::kBf16;
  auto in = input_specs(p);
  ASSERT_EQ(in.size(), 3u);
  EXPECT_EQ(in[0].shape, (Shape{2, 6, 40}));  // K-packed [E, N, K/2]
  EXPECT_EQ(in[1].shape, (Shape{2, 6, 5}));   // [E, N, K/16]
  EXPECT_EQ(in[2].shape, (Shape{2}));         // one s_dec per expert
  p.packing = WeightPacking::kNPacked;
  EXPECT_EQ(input_specs(p)[0].shape, (Shape{2, 80, 3}));  // N-packed [E, K, N/2]
  EXPECT_EQ(output_specs(p)[0].shape, (Shape{2, 6, 80}));
  EXPECT_EQ(output_specs(p)[0].bytes(), 2u * 6 * 80 * 2);
  p.recipe = Recipe::mxfp4_ocp();
  EXPECT_EQ(input_specs(p).size(), 2u);  // MX: no global scale
}

TEST(GoldenCaseSpecs, EncodePacksE2M1) {
  CaseParams p{.op = Op::kEncode, .rows = 1, .cols = 5};
  p.format = "e2m1";
  EXPECT_EQ(output_specs(p)[0].shape, (Shape{3}));
  p.format = "e8m0";
  p.mode.rounding = Rounding::kUp;
  EXPECT_EQ(output_specs(p)[0].shape, (Shape{5}));
  EXPECT_EQ(output_specs(p)[0].kind, check::CodeKind::kE8M0);
}

TEST(GoldenCaseReference, EncodeKnownAnswers) {
  // docs/semantics.md section 2.3, E2M1 RNE satfinite (cuda): 0.25 -> 0 (tie to even), 0.75 -> 1.0
  // (code 2, tie to even), -0 -> 0x8, NaN -> 0x7 (+6), 7 -> 6 (0x7).
  CaseParams p{.op = Op::kEncode, .rows = 1, .cols = 5};
  p.format = "e2m1";
  const GoldenCase c = make_case("t", p, {input_dataset(p, "x", fp32_bytes({0.25f, 0.75f, -0.0f, NAN, 7.0f}))});
  ASSERT_EQ(c.expected.size(), 1u);
  EXPECT_EQ(c.expected[0].bytes, (std::vector<std::uint8_t>{0x20, 0x78, 0x07}));
  EXPECT_NE(c.oracle.find("encode"), std::string::npos);
}

TEST(GoldenCaseReference, QuantizeKnownAnswer) {
  // One NVFP4 block with S_enc = 1 (tensor amax 2688): amax 6 gives scale 1.0 (UE4M3 0x38), and
  // the elements 6, 0.75 (tie -> 1.0, code 2), -0.25 (tie -> -0, code 0x8) and zeros.
  CaseParams p{.op = Op::kQuantize, .rows = 1, .cols = 16};
  p.tensor_amax = 2688.0f;
  const GoldenCase c = make_case(
      "t", p, {input_dataset(p, "x", fp32_bytes({6, 0.75f, -0.25f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}))});
  ASSERT_EQ(c.expected.size(), 4u);
  EXPECT_EQ(c.expected[1].bytes, (std::vector<std::uint8_t>{0x38}));
  const std::vector<std::uint8_t> e = c.expected[0].bytes;
  ASSERT_EQ(e.size(), 8u);
  EXPECT_EQ(e[0], 0x27);  // element 0 = 0x7 (6) low, element 1 = 0x2 (1.0) high
  EXPECT_EQ(e[1], 0x08);  // element 2 = 0x8 (-0), element 3 = 0
  float s_dec = 0;
  std::memcpy(&s_dec, c.expected[3].bytes.data(), 4);
  EXPECT_EQ(s_dec, 1.0f);
}

TEST(GoldenCaseValidation, RejectsWhatCannotBeComputed) {
  CaseParams p{.op = Op::kSwigluQuantize, .rows = 1, .cols = 32};
  p.recipe = Recipe::mxfp4_ocp();
  EXPECT_THROW(p.validate(), std::invalid_argument);  // swiglu_quantize is NVFP4 only
  p.op = Op::kDequantize;
  p.recipe = Recipe::nvfp4_te();
  p.cols = 17;  // K-packed needs even K
  EXPECT_THROW(p.validate(), std::invalid_argument);
  p.op = Op::kQuantize;
  p.rows = 4;
  p.groups = {1, 2};
  EXPECT_THROW(p.validate(), std::invalid_argument);  // groups sum to 3, not 4
  p.groups.clear();
  EXPECT_NO_THROW(p.validate());
  // Inputs of the wrong size or name.
  EXPECT_THROW(input_dataset(p, "x", std::vector<std::uint8_t>(3)), std::invalid_argument);
  EXPECT_THROW(input_dataset(p, "y", std::vector<std::uint8_t>(4 * 4 * 17)), std::invalid_argument);
  std::vector<Dataset> none;
  EXPECT_THROW(run_reference(p, none), std::invalid_argument);
  EXPECT_THROW(op_by_name("transpose"), std::invalid_argument);
}

}  // namespace
}  // namespace mxv::golden
