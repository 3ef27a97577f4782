// Tests of SwiGLU fused with NVFP4 quantization (reference/src/swiglu_quantize.cpp;
// docs/semantics.md section 6): hand-derived known answers (codes, scale bytes, swizzled offsets of
// grouped rows, the global scale from a first pass or a given amax, the fp32/bf16 intermediate
// difference, the interleaved(8) block assembly), and the property fused(bf16 intermediate) ==
// unfused pair.
#include "mxv/reference/swiglu_quantize.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace mxv {
namespace {

// With swiglu_clamped(alpha = 10, limit = 7) and a gate of exactly 2, sigmoid(20) rounds to 1
// in fp32 (exp(-20) = 2.1e-9 is below half an ulp of 1), so the activated value is
// 2 * (clamp(u) + 1), exact for the u used here. This lets the tests choose activated values.
Recipe te_clamped(Intermediate intermediate = Intermediate::kFp32) {
  Recipe r = Recipe::nvfp4_te();
  r.activation = Activation::kSwigluClamped;
  r.alpha = 10.0f;
  r.limit = 7.0f;
  r.intermediate = intermediate;
  return r;
}

// One halves row [gates | ups] whose activated value j is 2 * (ups[j] + 1).
std::vector<float> halves_row_with_ups(const std::vector<float>& ups) {
  std::vector<float> row(2 * ups.size(), 2.0f);
  for (std::size_t j = 0; j < ups.size(); ++j) row[ups.size() + j] = ups[j];
  return row;
}

// u -> activated 2(u+1) -> with sf = 2.0 (block amax 12, S_enc = 1): x * 0.5 -> E2M1 code.
//   u = 5    -> 12 -> 6   -> 0x7
//   u = 0    ->  2 -> 1   -> 0x2
//   u = -1   ->  0 -> 0   -> 0x0
//   u = 2    ->  6 -> 3   -> 0x5
//   u = -3   -> -4 -> -2  -> 0xC
//   u = 0.5  ->  3 -> 1.5 -> 0x3
//   u = 1    ->  4 -> 2   -> 0x4
//   u = 3    ->  8 -> 4   -> 0x6
//   u = -0.5 ->  1 -> 0.5 -> 0x1
//   u = -2   -> -2 -> -1  -> 0xA
const std::vector<float> kUps = {5, 0, -1, 2, -3, 0.5f, 1, 3, -0.5f, -2, 0, 0, 0, 0, 0, 0};
const std::vector<std::uint8_t> kCodes = {0x7, 0x2, 0x0, 0x5, 0xC, 0x3, 0x4, 0x6,
                                          0x1, 0xA, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2};

TEST(SwigluQuantize, KnownAnswerOneBlock) {
  // Given tensor amax 2688 = 448 * 6: S_enc = 1, S_dec = 1. Block amax 12:
  // sf = E4M3(12 * (1 * fl(1/6))) = E4M3(2.0000000596) = 2.0 = 0x40 (0 1000 000);
  // enc = 1 / (2.0 * 1) = 0.5.
  const auto row = halves_row_with_ups(kUps);
  SwigluQuantizeOptions opt;
  opt.tensor_amax = 2688.0f;
  opt.scale_layout = ScaleLayout::kLinear;
  const auto out = swiglu_quantize_fused(te_clamped(), GateUpView::from_fp32(row, 1, 16), opt);
  ASSERT_EQ(out.activated.size(), 16u);
  EXPECT_EQ(out.activated[0], 12.0f);
  EXPECT_EQ(out.activated[4], -4.0f);
  ASSERT_EQ(out.quantized.scales.size(), 1u);
  EXPECT_EQ(out.quantized.scales[0], 0x40);
  EXPECT_EQ(out.quantized.tensor.at(0).s_dec, 1.0f);
  ASSERT_EQ(out.quantized.elements.size(), 8u);  // [1, 16/2]
  for (std::int64_t j = 0; j < 16; ++j) {
    EXPECT_EQ(out.quantized.element(0, j), kCodes[static_cast<std::size_t>(j)]) << j;
  }
  // Packing: element 2i in the low nibble: byte 0 = code1 << 4 | code0 = 0x27.
  EXPECT_EQ(out.quantized.elements[0], 0x27);
}

TEST(SwigluQuantize, GlobalScaleFromAFirstPass) {
  // Without a given amax the first pass finds max |activated| = 12: S_enc = 2688 / 12 = 224
  // exactly, S_dec = fl(1/224).
  const auto row = halves_row_with_ups(kUps);
  const auto out = swiglu_quantize_fused(te_clamped(), GateUpView::from_fp32(row, 1, 16));
  ASSERT_EQ(out.quantized.tensor.size(), 1u);
  EXPECT_EQ(out.quantized.tensor[0].amax, 12.0f);
  EXPECT_EQ(out.quantized.tensor[0].s_enc, 224.0f);
  EXPECT_EQ(out.quantized.tensor[0].s_dec, 1.0f / 224.0f);
}

TEST(SwigluQuantize, Interleaved8AssemblesABlockFromTwoSeparateUpGroups) {
  // I = 16, interleaved(8): GEMM columns [g0..g7 | u0..u7 | g8..g15 | u8..u15]. Output block 0
  // (outputs 0..15) takes its ups from columns 8..15 and 24..31: not adjacent in the GEMM
  // output, adjacent in the compact activated output. The hand-made row puts ups 8..15 in
  // columns 24..31; the block must come out exactly as the halves known answer.
  std::vector<float> row(32, 2.0f);
  for (std::size_t j = 0; j < 8; ++j) {
    row[8 + j] = kUps[j];
    row[24 + j] = kUps[8 + j];
  }
  const GateUpLayout i8 = GateUpLayout::interleaved(8);
  for (std::size_t j = 0; j < 16; ++j) {
    const std::size_t c = i8.up_column(j, 16);
    EXPECT_TRUE((c >= 8 && c < 16) || (c >= 24 && c < 32)) << j;
  }
  SwigluQuantizeOptions opt;
  opt.layout = i8;
  opt.tensor_amax = 2688.0f;
  const auto out = swiglu_quantize_fused(te_clamped(), GateUpView::from_fp32(row, 1, 16), opt);
  for (std::int64_t j = 0; j < 16; ++j) {
    EXPECT_EQ(out.quantized.element(0, j), kCodes[static_cast<std::size_t>(j)]) << j;
  }
  EXPECT_EQ(out.quantized.scale_codes.at(0), 0x40);
  // The same row read as halves mixes gates and ups: a different block.
  opt.layout = GateUpLayout::halves();
  const auto wrong = swiglu_quantize_fused(te_clamped(), GateUpView::from_fp32(row, 1, 16), opt);
  EXPECT_NE(wrong.quantized.elements, out.quantized.elements);
}

TEST(SwigluQuantize, Bf16IntermediateRoundsBeforeQuantizing) {
  // Block amax 6 (u = 2) with S_enc = 1: sf = E4M3(6 * fl(1/6)) = E4M3(1.0000000298) = 1.0,
  // enc = 1. Element 1 is 2.5 + 2^-20 (u = 0.25 + 2^-21, exact in fp32):
  //   fp32 intermediate: 2.5 + 2^-20 is above the E2M1 midpoint 2.5 -> 3 (0x5);
  //   bf16 intermediate: bf16(2.5 + 2^-20) = 2.5 (bf16 ulp at 2 is 2^-6), a tie -> 2 (0x4).
  std::vector<float> ups(16, -1.0f);  // activated 0
  ups[0] = 2.0f;
  ups[1] = 0.25f + 0x1p-21f;
  const auto row = halves_row_with_ups(ups);
  SwigluQuantizeOptions opt;
  opt.tensor_amax = 2688.0f;
  const auto view = GateUpView::from_fp32(row, 1, 16);
  const auto fp32 = swiglu_quantize_fused(te_clamped(Intermediate::kFp32), view, opt);
  const auto bf16 = swiglu_quantize_fused(te_clamped(Intermediate::kBf16), view, opt);
  const auto unfused = swiglu_quantize_unfused(te_clamped(Intermediate::kFp32), view, opt);
  EXPECT_EQ(fp32.activated[1], 2.5f + 0x1p-20f);
  EXPECT_EQ(bf16.activated[1], 2.5f);
  EXPECT_EQ(fp32.quantized.element(0, 1), 0x5);
  EXPECT_EQ(bf16.quantized.element(0, 1), 0x4);
  EXPECT_EQ(unfused.quantized.element(0, 1), 0x4);
  EXPECT_EQ(fp32.quantized.scale_codes.at(0), 0x38);  // 1.0 = 0 0111 000
}

TEST(SwigluQuantize, GroupedRowsSwizzledScalesByHand) {
  // Experts of 2 and 1 rows, I = 32 (two scale columns, n_k = 1). Swizzled per expert: expert 1
  // starts at padded row 128, so its row 0, scale column 1 sits at
  // (128/128) * n_k * 512 + 0*16 + 0*4 + 1 = 513. Buffer: 256 padded rows * 4 columns = 1024,
  // every other byte zero. All activated values are 12 in expert 1's second block and 0
  // elsewhere (sf 0x40 there; all-zero blocks store 0x00 under nvfp4_te).
  std::vector<float> gate_up(3 * 64, 2.0f);
  for (std::size_t r = 0; r < 3; ++r) {
    for (std::size_t j = 0; j < 32; ++j) gate_up[r * 64 + 32 + j] = -1.0f;  // activated 0
  }
  for (std::size_t j = 16; j < 32; ++j) gate_up[2 * 64 + 32 + j] = 5.0f;  // row 2 = expert 1 row 0
  SwigluQuantizeOptions opt;
  opt.group_counts = {2, 1};
  opt.tensor_amax = 2688.0f;
  const auto out = swiglu_quantize_fused(te_clamped(), GateUpView::from_fp32(gate_up, 3, 32), opt);
  ASSERT_EQ(out.quantized.scales.size(), 1024u);
  for (std::size_t i = 0; i < out.quantized.scales.size(); ++i) {
    EXPECT_EQ(out.quantized.scales[i], i == 513 ? 0x40 : 0x00) << i;
  }
  // Elements stay compact: [3, 16] bytes, expert 1's row right after expert 0's.
  ASSERT_EQ(out.quantized.elements.size(), 48u);
  EXPECT_EQ(out.quantized.element(2, 16), 0x7);  // 12 * 0.5 = 6
  EXPECT_EQ(out.quantized.element(2, 15), 0x0);
}

TEST(SwigluQuantize, ScalePerExpert) {
  // Expert 0's amax is 12, expert 1's is 6: one first-pass global scale each.
  std::vector<float> gate_up(2 * 32, 2.0f);
  for (std::size_t j = 0; j < 16; ++j) {
    gate_up[16 + j] = 5.0f;       // row 0: 12
    gate_up[32 + 16 + j] = 2.0f;  // row 1: 6
  }
  SwigluQuantizeOptions opt;
  opt.group_counts = {1, 1};
  opt.scale_per_group = true;
  const auto out = swiglu_quantize_fused(te_clamped(), GateUpView::from_fp32(gate_up, 2, 16), opt);
  ASSERT_EQ(out.quantized.tensor.size(), 2u);
  EXPECT_EQ(out.quantized.tensor[0].amax, 12.0f);
  EXPECT_EQ(out.quantized.tensor[1].amax, 6.0f);
  EXPECT_EQ(out.quantized.tensor[1].s_enc, 448.0f);
}

TEST(SwigluQuantize, ValidatesArguments) {
  const std::vector<float> data(64, 1.0f);
  const auto view = GateUpView::from_fp32(data, 2, 16);
  EXPECT_THROW(swiglu_quantize_fused(Recipe::mxfp4_ocp(), view), std::invalid_argument);
  EXPECT_THROW(swiglu_quantize_unfused(Recipe::mxfp4_nvidia(), view), std::invalid_argument);
  SwigluQuantizeOptions opt;
  opt.group_counts = {1, 2};  // sums to 3, input has 2 rows
  EXPECT_THROW(swiglu_quantize_fused(Recipe::nvfp4_te(), view, opt), std::invalid_argument);
  opt.group_counts = {};
  opt.layout = GateUpLayout::interleaved(3);  // does not divide 16
  EXPECT_THROW(swiglu_quantize_fused(Recipe::nvfp4_te(), view, opt), std::invalid_argument);
  EXPECT_THROW(swiglu_quantize_fused(Recipe::nvfp4_te(), GateUpView::from_fp32(data, 3, 16)),
               std::invalid_argument);
  SwigluQuantizeOptions negative;
  negative.tensor_amax = -1.0f;
  EXPECT_THROW(swiglu_quantize_fused(Recipe::nvfp4_te(), view, negative), std::invalid_argument);
}

// ---- Property: fused with a bf16 intermediate == the unfused pair, bit for bit ------------

const RcpApproxTable& zero_delta_table() {
  // A correctly rounded stand-in for the captured rcp.approx table, so that the TRT-LLM
  // operation order takes part (the property holds for any table).
  static const RcpApproxTable table = [] {
    const std::vector<std::int8_t> deltas(RcpApproxTable::kEntries, 0);
    return RcpApproxTable::from_deltas(deltas);
  }();
  return table;
}

rc::Gen<float> gemm_output_value() {
  return rc::gen::weightedOneOf<float>({
      {10, rc::gen::map(rc::gen::inRange(-600'000, 600'000),
                        [](int v) { return static_cast<float>(v) / 65536.0f; })},
      {2, rc::gen::map(rc::gen::arbitrary<std::uint32_t>(),
                       [](std::uint32_t b) { return std::bit_cast<float>(b); })},
      {1, rc::gen::element(0.0f, -0.0f, 7.0f, -7.0f, -1.0f,
                           std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN())},
  });
}

RC_GTEST_PROP(SwigluQuantizeProperty, FusedBf16EqualsUnfused, ()) {
  const auto preset = *rc::gen::element<std::string_view>("nvfp4_te", "nvfp4_trtllm",
                                                          "nvfp4_cutlass_ref", "nvfp4_modelopt",
                                                          "nvfp4_torchao");
  Recipe recipe = Recipe::by_name(preset);
  recipe.activation = *rc::gen::element(Activation::kSilu, Activation::kSwigluClamped);
  recipe.intermediate = Intermediate::kBf16;
  const std::size_t g = *rc::gen::element<std::size_t>(1, 2, 8);
  const std::size_t intermediate = g * *rc::gen::inRange<std::size_t>(1, 6);
  const std::size_t experts = *rc::gen::inRange<std::size_t>(1, 4);
  std::vector<std::int64_t> counts;
  std::size_t rows = 0;
  for (std::size_t e = 0; e < experts; ++e) {
    counts.push_back(*rc::gen::inRange<std::int64_t>(0, 5));
    rows += static_cast<std::size_t>(counts.back());
  }
  const bool bf16_input = *rc::gen::arbitrary<bool>();
  const auto values = *rc::gen::container<std::vector<float>>(rows * 2 * intermediate,
                                                              gemm_output_value());
  std::vector<std::uint16_t> bf16(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    bf16[i] = static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(values[i]) >> 16);
  }
  const GateUpView view = bf16_input ? GateUpView::from_bf16(bf16, rows, intermediate)
                                     : GateUpView::from_fp32(values, rows, intermediate);
  SwigluQuantizeOptions opt;
  opt.layout = *rc::gen::arbitrary<bool>() ? GateUpLayout::interleaved(g) : GateUpLayout::halves();
  opt.group_counts = counts;
  opt.scale_per_group = *rc::gen::arbitrary<bool>();
  if (*rc::gen::arbitrary<bool>()) opt.tensor_amax = *rc::gen::element(1.0f, 30.0f, 2688.0f);
  opt.rcp_table = &zero_delta_table();

  const SwigluQuantized fused = swiglu_quantize_fused(recipe, view, opt);
  const SwigluQuantized unfused = swiglu_quantize_unfused(recipe, view, opt);
  RC_ASSERT(fused.quantized.elements == unfused.quantized.elements);
  RC_ASSERT(fused.quantized.scales == unfused.quantized.scales);
  RC_ASSERT(fused.quantized.tensor.size() == unfused.quantized.tensor.size());
  for (std::size_t t = 0; t < fused.quantized.tensor.size(); ++t) {
    const auto& a = fused.quantized.tensor[t];
    const auto& b = unfused.quantized.tensor[t];
    RC_ASSERT(std::bit_cast<std::uint32_t>(a.s_dec) == std::bit_cast<std::uint32_t>(b.s_dec));
    RC_ASSERT(std::bit_cast<std::uint32_t>(a.amax) == std::bit_cast<std::uint32_t>(b.amax));
  }
}

}  // namespace
}  // namespace mxv
