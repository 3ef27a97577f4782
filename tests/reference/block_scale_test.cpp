// Block scale rules (docs/semantics.md section 4): hand-derived known answers for MX and NVFP4, and
// the presets disagreeing exactly where the section says they do. Each expected byte is derived
// in the comment next to it from the rule, never computed with the code under test. Values
// marked [numpy] were found and checked with an independent numpy float32 + exact-fraction
// oracle (E4M3/E2M1 as nearest value of the code grid, ties to the even code).
#include "mxv/reference/block_scale.h"

#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <vector>

#include "mxv/reference/recipe.h"

namespace mxv {
namespace {

float hexf(std::uint32_t bits) { return std::bit_cast<float>(bits); }

struct BlockOut {
  BlockScale scale;
  std::vector<std::uint8_t> codes;
};

BlockOut run_block(const Recipe& r, const std::vector<float>& x, float tensor_amax) {
  const TensorScale t = tensor_scale(r, tensor_amax);
  BlockOut out;
  out.scale = choose_block_scale(r, block_amax(r, x), t);
  for (const float v : x) out.codes.push_back(element_code(r, prescale(out.scale, v)));
  return out;
}

// --- MX: the two scale rules -------------------------------------------------------------------

// amax = 7 = 1.75 * 2^2 (significand 1.75 > 1.5):
//  ocp:    X = floor(log2 7) - 2 = 0 -> code 127 (0x7F); 7 / 1 = 7 saturates to 6 (0x7).
//  nvidia: 7 * fl(1/6) = 1.1666.. -> RP -> 2^1 -> code 128 (0x80); 7 / 2 = 3.5, tie between 3
//          (0b101) and 4 (0b110) -> even -> 0x6. The rules differ by one binade.
TEST(BlockScaleMx, OcpAndNvidiaDifferByOneBinadeAboveSignificand1p5) {
  const auto ocp = run_block(Recipe::mxfp4_ocp(), {7.0f, 1.0f}, 0);
  const auto nv = run_block(Recipe::mxfp4_nvidia(), {7.0f, 1.0f}, 0);
  EXPECT_EQ(ocp.scale.code, 0x7F);
  EXPECT_EQ(nv.scale.code, 0x80);
  EXPECT_EQ(ocp.codes, (std::vector<std::uint8_t>{0x7, 0x2}));  // 1 / 1 = 1 -> 0x2
  EXPECT_EQ(nv.codes, (std::vector<std::uint8_t>{0x6, 0x1}));   // 1 / 2 = 0.5 -> 0x1
}

// amax = 5 = 1.25 * 2^2 and amax = 6 = 1.5 * 2^2 (significand <= 1.5): the rules agree.
//  ocp: floor(log2) = 2 -> code 0x7F. nvidia: 5 * fl(1/6) = 0.833 -> RP -> 2^0 -> 0x7F;
//  6 * fl(1/6): fl(1/6) = 11184811 * 2^-26, times 6 = 1 + 2^-25, which rounds to 1.0 in fp32
//  (below half an ulp, 2^-24) -> RP of exactly 1.0 -> 0x7F.
TEST(BlockScaleMx, RulesAgreeAtOrBelowSignificand1p5) {
  for (const float amax : {5.0f, 6.0f, 4.0f}) {
    EXPECT_EQ(run_block(Recipe::mxfp4_ocp(), {amax}, 0).scale.code, 0x7F) << amax;
    EXPECT_EQ(run_block(Recipe::mxfp4_nvidia(), {amax}, 0).scale.code, 0x7F) << amax;
  }
}

// MXFP8 (E4M3, emax 8): amax = 480 = 1.875 * 2^8 (significand > 1.75).
//  ocp: X = 8 - 8 = 0 -> 0x7F; 480 saturates to 448 (0x7E).
//  nvidia: 480 * fl(1/448) = 1.07 -> RP -> 2 -> 0x80; 480 / 2 = 240 = 1.875 * 2^7 -> exponent
//  field 7 + 7 = 14, mantissa 7 -> 0b0'1110'111 = 0x77.
TEST(BlockScaleMx, Mxfp8RulesDifferAboveSignificand1p75) {
  const auto ocp = run_block(Recipe::mxfp8_ocp(), {480.0f}, 0);
  const auto nv = run_block(Recipe::mxfp8_nvidia(), {480.0f}, 0);
  EXPECT_EQ(ocp.scale.code, 0x7F);
  EXPECT_EQ(ocp.codes[0], 0x7E);
  EXPECT_EQ(nv.scale.code, 0x80);
  EXPECT_EQ(nv.codes[0], 0x77);
}

// Zero block: ocp clamps the exponent to -127 (0x00); nvidia: E8M0_RP(0) = 0x00. Elements stay
// +-0 (0 / 2^-127 = 0): 0x0 and 0x8.
TEST(BlockScaleMx, ZeroBlockIsCode00) {
  for (const Recipe& r : {Recipe::mxfp4_ocp(), Recipe::mxfp4_nvidia()}) {
    const auto b = run_block(r, {0.0f, -0.0f}, 0);
    EXPECT_EQ(b.scale.code, 0x00) << r.name;
    EXPECT_EQ(b.codes, (std::vector<std::uint8_t>{0x0, 0x8})) << r.name;
  }
}

// NaN: ocp (NaN propagates) -> scale 0xFF, every element x / NaN = NaN -> 0x7 (cuda dialect).
// nvidia (TE, NaN ignored): amax = 2 -> 2 * fl(1/6) = 0.333 -> RP -> 2^-1 (0x7E); 2 / 0.5 = 4
// -> 0x6; the NaN element alone -> NaN -> 0x7.
TEST(BlockScaleMx, NanPolicies) {
  const float nan = std::bit_cast<float>(0x7fc00000u);
  const auto ocp = run_block(Recipe::mxfp4_ocp(), {nan, 2.0f}, 0);
  EXPECT_EQ(ocp.scale.code, 0xFF);
  EXPECT_EQ(ocp.codes, (std::vector<std::uint8_t>{0x7, 0x7}));
  const auto nv = run_block(Recipe::mxfp4_nvidia(), {nan, 2.0f}, 0);
  EXPECT_EQ(nv.scale.code, 0x7E);
  EXPECT_EQ(nv.codes, (std::vector<std::uint8_t>{0x7, 0x6}));
}

// Subnormal amax: 2^-140 -> ocp: -140 - 2 = -142 < -127 -> clamp -> 0x00.
TEST(BlockScaleMx, TinyAmaxClampsToCode00) {
  EXPECT_EQ(run_block(Recipe::mxfp4_ocp(), {std::ldexp(1.0f, -140)}, 0).scale.code, 0x00);
}

// --- NVFP4 --------------------------------------------------------------------------------------

// Tensor scale (TE): amax 10 -> S_enc = fl(2688/10) = 268.8 -> 0x1.0ccccc p+8 [numpy]; amax 0 ->
// 1; amax Inf -> 2688/Inf = 0 -> 1; NaN -> fminf drops the NaN -> FLT_MAX.
TEST(BlockScaleNvfp4, TensorScaleTe) {
  const Recipe r = Recipe::nvfp4_te();
  EXPECT_EQ(tensor_scale(r, 10.0f).s_enc, hexf(0x43866666u));  // 0x1.0ccccc p+8
  EXPECT_EQ(tensor_scale(r, 10.0f).s_dec, hexf(0x3b73cf3eu));  // 1 / that = 0x1.e79e7c p-9 [numpy]
  EXPECT_EQ(tensor_scale(r, 0.0f).s_enc, 1.0f);
  EXPECT_EQ(tensor_scale(r, INFINITY).s_enc, 1.0f);
  EXPECT_EQ(tensor_scale(r, NAN).s_enc, FLT_MAX);
  EXPECT_EQ(tensor_scale(r, 2688.0f).s_enc, 1.0f);
  // modelopt stores amax / 2688 = 0x1.e79e7a p-9, one ulp below TE's 1 / fl(2688/10) [numpy].
  EXPECT_EQ(tensor_scale(Recipe::nvfp4_modelopt(), 10.0f).s_dec, hexf(0x3b73cf3du));
  Recipe reject = Recipe::nvfp4_te();
  reject.tensor_amax = TensorAmaxPolicy::kReject;
  EXPECT_THROW(tensor_scale(reject, 0.0f), std::invalid_argument);
  EXPECT_THROW(tensor_scale(reject, NAN), std::invalid_argument);
}

// All-zero block (te): sf = E4M3(0) = 0x00, enc = min(1/(0 * S_dec), FLT_MAX) = FLT_MAX, and
// +-0 * FLT_MAX = +-0 -> 0x0 / 0x8. modelopt: scale 0 replaced by 1.0 = 0x38 (0b0'0111'000).
// torchao: clamp to 2^-6 = 0x08 (0b0'0001'000).
TEST(BlockScaleNvfp4, AllZeroBlock) {
  const auto te = run_block(Recipe::nvfp4_te(), {0.0f, -0.0f, 0.0f}, 10.0f);
  EXPECT_EQ(te.scale.code, 0x00);
  EXPECT_EQ(te.scale.factor, FLT_MAX);
  EXPECT_EQ(te.codes, (std::vector<std::uint8_t>{0x0, 0x8, 0x0}));
  EXPECT_EQ(run_block(Recipe::nvfp4_modelopt(), {0.0f, 0.0f}, 10.0f).scale.code, 0x38);
  EXPECT_EQ(run_block(Recipe::nvfp4_torchao(), {0.0f, 0.0f}, 10.0f).scale.code, 0x08);
  // ModelOpt's _cast_fp4 takes the sign from x < 0, so -0 stores 0x0 (docs/semantics.md section 3).
  EXPECT_EQ(run_block(Recipe::nvfp4_modelopt(), {0.0f, -0.0f}, 10.0f).codes[1], 0x0);
}

// One huge element (te), tensor amax 1e30: amax_block * (S_enc / 6) = 448 up to a few fp32
// ulps, far inside (440, 464) -> sf 0x7E (448). enc ~ 6 / 1e30: 1e30 -> ~6 -> 0x7; 1 -> 6e-30
// -> 0x0; -2e29 -> -1.2 -> -1.0 = 0xA.
TEST(BlockScaleNvfp4, OneHugeElement) {
  const auto te = run_block(Recipe::nvfp4_te(), {1e30f, 1.0f, -2e29f}, 1e30f);
  EXPECT_EQ(te.scale.code, 0x7E);
  EXPECT_EQ(te.codes, (std::vector<std::uint8_t>{0x7, 0x0, 0xA}));
}

// NaN in the block (te ignores it): amax 3, tensor amax 3 -> S_enc = 896; 3 * fl(896/6) =
// 448.00003 -> 0x7E; enc = 1/(448 * fl(1/896)) ~ 2: 3 -> 6 (0x7), 1.5 -> 3 (0x5), NaN -> 0x7.
// modelopt propagates: amax NaN -> sf NaN 0x7F, every element / NaN -> NaN -> 0x7.
TEST(BlockScaleNvfp4, NanInBlock) {
  const float nan = std::bit_cast<float>(0x7fc00000u);
  const auto te = run_block(Recipe::nvfp4_te(), {3.0f, 1.5f, nan}, 3.0f);
  EXPECT_EQ(te.scale.code, 0x7E);
  EXPECT_EQ(te.codes, (std::vector<std::uint8_t>{0x7, 0x5, 0x7}));
  const auto mo = run_block(Recipe::nvfp4_modelopt(), {3.0f, 1.5f, nan}, 3.0f);
  EXPECT_EQ(mo.scale.code, 0x7F);
  EXPECT_EQ(mo.codes, (std::vector<std::uint8_t>{0x7, 0x7, 0x7}));
}

// E2M1 midpoints with unit scales: tensor amax 2688 -> S_enc = S_dec = 1; block amax 6 ->
// 6 * fl(1/6) = 1.0 (see the MX test) -> sf 0x38, enc = 1. Elements convert as themselves:
// ties go to the even code, their fp32 neighbours to the nearer value.
TEST(BlockScaleNvfp4, E2m1Midpoints) {
  const Recipe r = Recipe::nvfp4_te();
  struct Case { float x; std::uint8_t code; };
  const Case cases[] = {
      {0.25f, 0x0}, {0.75f, 0x2}, {1.25f, 0x2}, {1.75f, 0x4}, {2.5f, 0x4}, {3.5f, 0x6}, {5.0f, 0x6},
      {std::nextafter(0.25f, 1.0f), 0x1}, {std::nextafter(0.75f, 0.0f), 0x1},
      {std::nextafter(2.5f, 3.0f), 0x5},  {std::nextafter(5.0f, 6.0f), 0x7}, {-3.5f, 0xE}, {-0.25f, 0x8}};
  for (const Case& c : cases) {
    const auto b = run_block(r, {6.0f, c.x}, 2688.0f);
    EXPECT_EQ(b.scale.code, 0x38);
    EXPECT_EQ(b.scale.factor, 1.0f);
    EXPECT_EQ(b.codes[1], c.code) << c.x;
  }
}

// E4M3 midpoint of the block scale, te vs modelopt [numpy]: tensor amax 10, block amax
// 0x1.e00002p-8. te: amax * fl(S_enc * fl(1/6)) = amax * 0x1.666666p+5 = 0x1.500002p-2, just
// above the midpoint 0.328125 = 0x1.5p-2 of 0.3125 (0x2A) and 0.34375 (0x2B) -> 0x2B.
// modelopt: amax / (6 * fl(10/2688)) = amax / 0x1.6db6dcp-6 = 0x1.5p-2 exactly, a tie -> even
// mantissa -> 0x2A. cutlass_ref stores TE's byte.
TEST(BlockScaleNvfp4, PresetsDisagreeOnE4m3Midpoint) {
  const float amax = hexf(0x3bf00001u);  // 0x1.e00002p-8
  EXPECT_EQ(run_block(Recipe::nvfp4_te(), {amax}, 10.0f).scale.code, 0x2B);
  EXPECT_EQ(run_block(Recipe::nvfp4_cutlass_ref(), {amax}, 10.0f).scale.code, 0x2B);
  EXPECT_EQ(run_block(Recipe::nvfp4_modelopt(), {amax}, 10.0f).scale.code, 0x2A);
  EXPECT_EQ(run_block(Recipe::nvfp4_modelopt(), {amax}, 10.0f).scale.scale_input, hexf(0x3ea80000u));
}

// Element multiplier, te vs cutlass_ref [numpy]: tensor amax 10, block amax 0x1.c92494p-8 ->
// sf 0x2A (0.3125). te: enc = 1/(0.3125 * S_dec) = 0x1.ae1478p+9; cutlass: S_enc * (1/0.3125) =
// 0x1.ae147ap+9 (one ulp apart). x = amax / 8 = 0x1.c92494p-11: te product 0x1.7ffffep-1 < 0.75
// -> 0.5 (0x1); cutlass product = 0.75 exactly, a tie -> 1.0 (0x2); modelopt divides by
// 0.3125 * fl(10/2688) and also lands on 0x2.
TEST(BlockScaleNvfp4, PresetsDisagreeOnE2m1MidpointAfterScale) {
  const float amax = hexf(0x3be4924au);
  const float x = hexf(0x3a64924au);
  const auto te = run_block(Recipe::nvfp4_te(), {amax, x}, 10.0f);
  const auto cu = run_block(Recipe::nvfp4_cutlass_ref(), {amax, x}, 10.0f);
  const auto mo = run_block(Recipe::nvfp4_modelopt(), {amax, x}, 10.0f);
  EXPECT_EQ(te.scale.code, 0x2A);
  EXPECT_EQ(cu.scale.code, 0x2A);
  EXPECT_EQ(te.codes, (std::vector<std::uint8_t>{0x7, 0x1}));
  EXPECT_EQ(cu.codes, (std::vector<std::uint8_t>{0x7, 0x2}));
  EXPECT_EQ(mo.codes, (std::vector<std::uint8_t>{0x7, 0x2}));
}

// Away from midpoints the presets store the same bytes: unit scales (tensor amax 2688, block
// amax 6), elements on the E2M1 grid.
TEST(BlockScaleNvfp4, PresetsAgreeAwayFromMidpoints) {
  const std::vector<float> x = {6.0f, 0.5f, -1.5f, 3.0f, 0.0f, -4.0f};
  const std::vector<std::uint8_t> want = {0x7, 0x1, 0xB, 0x5, 0x0, 0xE};
  for (const Recipe& r : {Recipe::nvfp4_te(), Recipe::nvfp4_cutlass_ref(), Recipe::nvfp4_modelopt(),
                          Recipe::nvfp4_torchao()}) {
    const auto b = run_block(r, x, 2688.0f);
    EXPECT_EQ(b.scale.code, 0x38) << r.name;
    EXPECT_EQ(b.codes, want) << r.name;
  }
}

// TransformerEngine's exp2f_rcp (mxfp4_te, source-modelled): block amax 6 * 2^-128 = 1.5 * 2^-126.
// amax * fl(1/6) = 2^-128 * (1 + 2^-25) rounds to the subnormal 2^-128; round-up to E8M0 gives
// 0x00 (2^-127) for both rules. nvidia divides by 2^-127: 1.5 * 2^-126 -> 3.0 (0x5), -3 * 2^-128
// -> -1.5 (0xB). TE multiplies by 1.0 for code 0x00: both stay tiny and become +-0 (0x0, 0x8).
// Inf amax: Inf * fl(1/6) = Inf -> satfinite 0xFE; TE's multiplier (254 - 254) << 23 = +0.0, so
// finite elements become 0 and Inf * 0 = NaN -> cuda E2M1 NaN 0x7. TE dequantize (exp2f):
// 0x00 -> 0.0, 0xFF -> +Inf.
TEST(BlockScaleMx, TeMultipliesCodeZeroByOne) {
  const float a = std::ldexp(1.5f, -126);
  const float b = std::ldexp(-3.0f, -128);
  const auto nv = run_block(Recipe::mxfp4_nvidia(), {a, b}, 0);
  const auto te = run_block(Recipe::mxfp4_te(), {a, b}, 0);
  EXPECT_EQ(nv.scale.code, 0x00);
  EXPECT_EQ(te.scale.code, 0x00);
  EXPECT_EQ(nv.codes, (std::vector<std::uint8_t>{0x5, 0xB}));
  EXPECT_EQ(te.codes, (std::vector<std::uint8_t>{0x0, 0x8}));
  const auto inf = run_block(Recipe::mxfp4_te(), {INFINITY, 3.0f}, 0);
  EXPECT_EQ(inf.scale.code, 0xFE);
  EXPECT_EQ(inf.scale.factor, 0.0f);
  EXPECT_EQ(inf.codes, (std::vector<std::uint8_t>{0x7, 0x0}));
  EXPECT_EQ(decode_scale(Recipe::mxfp4_te(), 0x00), 0.0f);
  EXPECT_EQ(decode_scale(Recipe::mxfp4_te(), 0xFF), INFINITY);
}

// torchao FLOOR (mx_tensor.py to_mx): amax Inf has exponent field 255 -> 128 - 2 = 126 -> 0xFD
// (E2M1) and 128 - 8 = 120 -> 0xF7 (E4M3), elements divided by 2^126 / 2^120 (finite -> 0).
// Code 0x00 (amax 2^-127, field 0 -> -127 - 2 clamped to -127) divides by 2^-126 (the fp32
// (0 << 23) = 0 clamped up to the smallest normal): 2^-127 / 2^-126 = 0.5 -> 0x1 (the OCP preset
// divides by 2^-127: 1.0 -> 0x2).
TEST(BlockScaleMx, TorchaoFloorInfAndTinyBlocks) {
  const Recipe fp4 = Recipe::by_name("mxfp4_torchao_floor");
  const Recipe fp8 = Recipe::by_name("mxfp8_torchao_floor");
  EXPECT_EQ(run_block(fp4, {INFINITY, 1.0f}, 0).scale.code, 0xFD);
  EXPECT_EQ(run_block(fp4, {INFINITY, 1.0f}, 0).codes[1], 0x0);
  EXPECT_EQ(run_block(fp8, {-INFINITY, 1.0f}, 0).scale.code, 0xF7);
  const float tiny = std::ldexp(1.0f, -127);
  EXPECT_EQ(run_block(fp4, {tiny}, 0).scale.code, 0x00);
  EXPECT_EQ(run_block(fp4, {tiny}, 0).codes[0], 0x1);
  EXPECT_EQ(run_block(Recipe::mxfp4_ocp(), {tiny}, 0).codes[0], 0x2);
}

// torchao RCEIL: descale = amax / 6 in fp32. amax = 6 * (1 + 2^-22) (two ulps above 6):
// descale = 1 + 2^-22 (exact), log2 = 2^-22 / ln 2 ~ 3.4e-7 > 0 -> ceil 1 -> 0x80. amax one ulp
// above 6 * 2^-21 (= 1.5 * 2^-19 + 2^-42): descale = 2^-21 (1 + 2^-23 * 2/3) rounds to
// 2^-21 (1 + 2^-23); log2 = -21 + 1.7e-7 rounds to -21 in fp32 (half an ulp of 21 is 9.5e-7) ->
// ceil -21 -> code 106 (0x6A), one binade below the round-up rule: amax * fl(1/6) =
// 2^-21 (1 + 0.92 * 2^-23) -> 2^-21 (1 + 2^-23) -> RP 2^-20 (0x6B). Element: amax * 2^21 =
// 6 + 2^-21 -> 0x7.
TEST(BlockScaleMx, TorchaoRceilLog2InFp32) {
  const Recipe r = Recipe::by_name("mxfp4_torchao_rceil");
  EXPECT_EQ(run_block(r, {6.0f * (1.0f + 0x1p-22f)}, 0).scale.code, 0x80);
  const float amax = std::nextafter(std::ldexp(1.5f, -19), 1.0f);
  const auto b = run_block(r, {amax}, 0);
  EXPECT_EQ(b.scale.code, 0x6A);
  EXPECT_EQ(b.codes[0], 0x7);
  EXPECT_EQ(run_block(Recipe::mxfp4_nvidia(), {amax}, 0).scale.code, 0x6B);
}

// Decode quirks: spec E8M0 0x00 = 2^-127 (subnormal), 0xFF NaN; ort_qmoe 0 and +Inf; FTZ 0.
TEST(BlockScaleDecode, E8m0Quirks) {
  EXPECT_EQ(decode_scale(Recipe::mxfp4_ocp(), 0x00), std::ldexp(1.0f, -127));
  EXPECT_TRUE(std::isnan(decode_scale(Recipe::mxfp4_ocp(), 0xFF)));
  EXPECT_EQ(decode_scale(Recipe::ort_qmoe(), 0x00), 0.0f);
  EXPECT_EQ(decode_scale(Recipe::ort_qmoe(), 0xFF), INFINITY);
  Recipe ftz = Recipe::mxfp4_nvidia();
  ftz.flush_e8m0_zero = true;
  EXPECT_EQ(decode_scale(ftz, 0x00), 0.0f);
  EXPECT_EQ(decode_scale(ftz, 0x01), std::ldexp(1.0f, -126));
}

// Dequantization order: (elem * sf) * s_dec. elem 6 (0x7), sf 0x2A (0.3125), s_dec 0.1 ->
// 1.875 * fl(0.1) in fp32. MX: elem * 2^(c-127): 0x3 (1.5) * 2^3 = 12.
TEST(BlockScaleDecode, DequantizeValue) {
  EXPECT_EQ(dequantize_value(Recipe::nvfp4_te(), 0x7, 0x2A, 0.1f), 1.875f * 0.1f);
  EXPECT_EQ(dequantize_value(Recipe::mxfp4_ocp(), 0x3, 130, 1.0f), 12.0f);
  EXPECT_EQ(dequantize_value(Recipe::mxfp4_ocp(), 0xB, 130, 1.0f), -12.0f);
}

}  // namespace
}  // namespace mxv
