// Tests of the SwiGLU layouts and activations (reference/src/swiglu.cpp; docs/semantics.md
// section 6): hand-derived known answers, the documented fp32 operation order re-derived with
// an independent exp, layouts de-interleaved on hand-written rows, and the property that
// interleaved(g) equals halves after a column permutation written independently here.
#include "mxv/reference/swiglu.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "mxv/reference/portable_exp.h"
#include "mxv/reference/wide_float.h"

namespace mxv {
namespace {

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();

// ---- Activations: known answers -----------------------------------------------------------

TEST(SwigluSilu, KnownAnswers) {
  // silu(0) = 0 / (1 + 1) = 0, times anything finite is (signed) zero.
  EXPECT_EQ(bits(swiglu_silu(0.0f, 5.0f)), bits(0.0f));
  EXPECT_EQ(bits(swiglu_silu(0.0f, -5.0f)), bits(-0.0f));
  // g = 20: exp(-20) = 2.06e-9 is below half an ulp of 1 (2^-24 = 5.96e-8), so d = 1 and
  // silu(20) = 20 exactly; times 3 is 60.
  EXPECT_EQ(swiglu_silu(20.0f, 3.0f), 60.0f);
  // g = -20: exp(20) = 4.85e8 > 2^24 so d = exp(20); the result is tiny and negative.
  EXPECT_LT(swiglu_silu(-20.0f, 1.0f), 0.0f);
  EXPECT_GT(swiglu_silu(-20.0f, 1.0f), -1e-7f);
  // up = 0 gives a zero with the product's sign.
  EXPECT_EQ(bits(swiglu_silu(2.0f, 0.0f)), bits(0.0f));
  EXPECT_EQ(bits(swiglu_silu(-2.0f, 0.0f)), bits(-0.0f));
}

TEST(SwigluSilu, SpecialValues) {
  // +Inf gate: exp(-Inf) = 0, d = 1, s = Inf.
  EXPECT_EQ(swiglu_silu(kInf, 2.0f), kInf);
  // -Inf gate: exp(+Inf) = Inf, -Inf / Inf is NaN (the formula's IEEE result, documented).
  EXPECT_EQ(bits(swiglu_silu(-kInf, 2.0f)), kCanonicalNanBits);
  // NaN anywhere gives the canonical NaN, whatever the payload.
  EXPECT_EQ(bits(swiglu_silu(std::bit_cast<float>(0xFFC01234u), 1.0f)), kCanonicalNanBits);
  EXPECT_EQ(bits(swiglu_silu(1.0f, kNan)), kCanonicalNanBits);
}

TEST(SwigluClamped, KnownAnswers) {
  // alpha = 10, g = 7: a = 70, exp(-70) = 4e-31, so d = 1, sigmoid = 1, t = 7;
  // out = 7 * (u + 1): u = 2 -> 21 exactly.
  EXPECT_EQ(swiglu_clamped(7.0f, 2.0f, 10.0f, 7.0f), 21.0f);
  // The gate is clamped from above only: g = 100 behaves as g = 7.
  EXPECT_EQ(swiglu_clamped(100.0f, 2.0f, 10.0f, 7.0f), 21.0f);
  // up is clamped on both sides: u = 100 -> 7, out = 7 * 8 = 56; u = -100 -> -7, out = -42.
  EXPECT_EQ(swiglu_clamped(7.0f, 100.0f, 10.0f, 7.0f), 56.0f);
  EXPECT_EQ(swiglu_clamped(7.0f, -100.0f, 10.0f, 7.0f), -42.0f);
  // u = -1 makes u + 1 = 0: the output is zero for any finite gate.
  EXPECT_EQ(swiglu_clamped(3.0f, -1.0f, 1.702f, 7.0f), 0.0f);
  // g = 0: t = 0 * 0.5 = 0.
  EXPECT_EQ(swiglu_clamped(0.0f, 5.0f, 1.702f, 7.0f), 0.0f);
  // limit 0 clamps every positive gate to 0.
  EXPECT_EQ(swiglu_clamped(5.0f, 5.0f, 1.702f, 0.0f), 0.0f);
  // The gate is NOT clamped from below: a very negative gate drives sigmoid to 0.
  EXPECT_EQ(bits(swiglu_clamped(-100.0f, 2.0f, 1.702f, 7.0f)), bits(-0.0f));
  // Defaults (1.702, 7): clamping is visible as equality of the clamped and unclamped calls.
  EXPECT_EQ(bits(swiglu_clamped(9.5f, 3.0f, 1.702f, 7.0f)), bits(swiglu_clamped(7.0f, 3.0f, 1.702f, 7.0f)));
  EXPECT_EQ(bits(swiglu_clamped(1.0f, -8.0f, 1.702f, 7.0f)), bits(swiglu_clamped(1.0f, -7.0f, 1.702f, 7.0f)));
  EXPECT_NE(bits(swiglu_clamped(6.5f, 3.0f, 1.702f, 7.0f)), bits(swiglu_clamped(7.0f, 3.0f, 1.702f, 7.0f)));
}

TEST(SwigluClamped, NanPropagatesThroughTheClamp) {
  // (g > limit) ? limit : g keeps a NaN gate; fminf would have turned it into the limit.
  EXPECT_EQ(bits(swiglu_clamped(kNan, 1.0f, 1.702f, 7.0f)), kCanonicalNanBits);
  EXPECT_EQ(bits(swiglu_clamped(1.0f, kNan, 1.702f, 7.0f)), kCanonicalNanBits);
  // +Inf gate is clamped to the limit, so the result is finite.
  EXPECT_EQ(bits(swiglu_clamped(kInf, 2.0f, 10.0f, 7.0f)), bits(21.0f));
}

// The documented order, re-derived with the correctly rounded exp as an independent oracle.
// Where portable_exp is itself correctly rounded (all but ~0.45% of inputs), the activation
// must equal it bit for bit; elsewhere only the exp differs, so we skip those inputs.
float silu_by_the_documented_order(float g, float u) {
  const float e = correctly_rounded_exp(-g);
  const float d = 1.0f + e;
  const float s = g / d;
  return s * u;
}
float clamped_by_the_documented_order(float g, float u, float alpha, float limit) {
  const float gc = std::fmin(g, limit);
  const float uc = std::fmax(std::fmin(u, limit), -limit);
  const float e = correctly_rounded_exp(-(alpha * gc));
  const float sig = 1.0f / (1.0f + e);
  const float t = gc * sig;
  return t * (uc + 1.0f);
}

RC_GTEST_PROP(SwigluActivations, FollowTheDocumentedOperationOrder, ()) {
  const float g = *rc::gen::map(rc::gen::inRange(-2'000'000, 2'000'000),
                                [](int v) { return static_cast<float>(v) / 65536.0f; });
  const float u = *rc::gen::map(rc::gen::inRange(-2'000'000, 2'000'000),
                                [](int v) { return static_cast<float>(v) / 65536.0f; });
  if (bits(portable_exp(-g)) == bits(correctly_rounded_exp(-g))) {
    RC_ASSERT(bits(swiglu_silu(g, u)) == bits(silu_by_the_documented_order(g, u)));
  }
  const float alpha = 1.702f;
  const float limit = 7.0f;
  const float a = -(alpha * std::fmin(g, limit));
  if (bits(portable_exp(a)) == bits(correctly_rounded_exp(a))) {
    RC_ASSERT(bits(swiglu_clamped(g, u, alpha, limit)) ==
              bits(clamped_by_the_documented_order(g, u, alpha, limit)));
  }
}

TEST(SwigluActivations, CloseToTheMathematicalFunction) {
  // Accuracy, not bit-exactness: against double-precision math, a handful of fp32 roundings
  // (exp <= 1 ulp, add, divide, multiply) stay within 4 ulp of the result, plus, for the
  // clamped form, the rounding of a = alpha * g (relative error 2^-24 in a, so 2^-24 * |a| in
  // exp(-a), up to |a| ulp more where sigmoid ~ exp(a)). The bound is not part of any
  // contract; it catches a wrong formula (e.g. exp(g) for exp(-g)).
  for (float g = -30.0f; g <= 30.0f; g += 0.0625f) {
    const double gd = g;
    const double want = gd / (1.0 + std::exp(-gd)) * 1.5;
    const float got = swiglu_silu(g, 1.5f);
    EXPECT_LE(ulp_distance(got, static_cast<float>(want)), 4u) << g;
    const double gc = std::min(gd, 7.0);
    const double want_c = gc / (1.0 + std::exp(-static_cast<double>(1.702f) * gc)) * (1.5 + 1.0);
    const auto bound = 4u + static_cast<std::uint64_t>(std::fabs(1.702 * gc) + 1.0);
    EXPECT_LE(ulp_distance(swiglu_clamped(g, 1.5f, 1.702f, 7.0f), static_cast<float>(want_c)), bound)
        << g;
  }
}

// ---- Layouts ------------------------------------------------------------------------------

TEST(GateUpLayout, ColumnsByHand) {
  // I = 4. halves: g0 g1 g2 g3 | u0 u1 u2 u3
  const GateUpLayout h = GateUpLayout::halves();
  const std::size_t halves_gate[] = {0, 1, 2, 3}, halves_up[] = {4, 5, 6, 7};
  // interleaved(1): g0 u0 g1 u1 g2 u2 g3 u3
  const GateUpLayout i1 = GateUpLayout::interleaved(1);
  const std::size_t i1_gate[] = {0, 2, 4, 6}, i1_up[] = {1, 3, 5, 7};
  // interleaved(2): g0 g1 u0 u1 g2 g3 u2 u3
  const GateUpLayout i2 = GateUpLayout::interleaved(2);
  const std::size_t i2_gate[] = {0, 1, 4, 5}, i2_up[] = {2, 3, 6, 7};
  for (std::size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(h.gate_column(j, 4), halves_gate[j]);
    EXPECT_EQ(h.up_column(j, 4), halves_up[j]);
    EXPECT_EQ(i1.gate_column(j, 4), i1_gate[j]);
    EXPECT_EQ(i1.up_column(j, 4), i1_up[j]);
    EXPECT_EQ(i2.gate_column(j, 4), i2_gate[j]);
    EXPECT_EQ(i2.up_column(j, 4), i2_up[j]);
  }
  // interleaved(8), I = 16: gate 0..7 at columns 0..7, up 0..7 at 8..15, gate 8..15 at 16..23,
  // up 8..15 at 24..31. An NVFP4 block of outputs 0..15 needs up columns 8..15 and 24..31:
  // not adjacent in the GEMM output.
  const GateUpLayout i8 = GateUpLayout::interleaved(8);
  EXPECT_EQ(i8.gate_column(7, 16), 7u);
  EXPECT_EQ(i8.up_column(7, 16), 15u);
  EXPECT_EQ(i8.gate_column(8, 16), 16u);
  EXPECT_EQ(i8.up_column(8, 16), 24u);
  EXPECT_EQ(i8.up_column(15, 16), 31u);
}

TEST(GateUpLayout, DeinterleavesAHandWrittenRow) {
  // Gates 2..5 and ups 10, 20, 30, -40, written in interleaved(2) order by hand. With
  // swiglu_clamped(alpha = 10, limit = 7) and gates >= 2, exp(-alpha g) <= exp(-20) = 2e-9 is
  // below half an ulp of 1, so sigmoid == 1 in fp32 and out = g * (clamp(u) + 1) exactly.
  const std::vector<float> row = {2.0f, 3.0f, 10.0f, 20.0f, 4.0f, 5.0f, 30.0f, -40.0f};
  const auto act = SwigluActivation::swiglu_clamped(10.0f, 7.0f);
  const std::vector<float> out =
      swiglu(GateUpView::from_fp32(row, 1, 4), GateUpLayout::interleaved(2), act);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0], 16.0f);   // g0 = 2, u0 = 10 -> 7: 2 * 8
  EXPECT_EQ(out[1], 24.0f);   // g1 = 3, u1 = 20 -> 7: 3 * 8
  EXPECT_EQ(out[2], 32.0f);   // g2 = 4, u2 = 30 -> 7: 4 * 8
  EXPECT_EQ(out[3], -30.0f);  // g3 = 5, u3 = -40 -> -7: 5 * -6
  // The same numbers in halves order give the same outputs.
  const std::vector<float> halves_row = {2.0f, 3.0f, 4.0f, 5.0f, 10.0f, 20.0f, 30.0f, -40.0f};
  EXPECT_EQ(swiglu(GateUpView::from_fp32(halves_row, 1, 4), GateUpLayout::halves(), act), out);
}

TEST(GateUpLayout, ParseAndValidate) {
  EXPECT_EQ(GateUpLayout::parse("halves"), GateUpLayout::halves());
  EXPECT_EQ(GateUpLayout::parse("interleaved:8"), GateUpLayout::interleaved(8));
  EXPECT_EQ(to_string(GateUpLayout::interleaved(8)), "interleaved:8");
  for (const char* bad : {"", "interleaved", "interleaved:", "interleaved:0", "interleaved:-1",
                          "interleaved:8x", "halfs"}) {
    EXPECT_THROW(GateUpLayout::parse(bad), std::invalid_argument) << bad;
  }
  EXPECT_THROW(GateUpLayout::interleaved(0), std::invalid_argument);
  EXPECT_THROW(GateUpLayout::interleaved(8).validate(12), std::invalid_argument);  // 8 !| 12
  EXPECT_NO_THROW(GateUpLayout::interleaved(3).validate(12));
  EXPECT_THROW(GateUpLayout::halves().validate(0), std::invalid_argument);
}

TEST(Swiglu, ValidatesArguments) {
  const std::vector<float> data(16, 1.0f);
  const auto silu = SwigluActivation::silu();
  EXPECT_THROW(swiglu(GateUpView::from_fp32(data, 3, 4), GateUpLayout::halves(), silu),
               std::invalid_argument);  // 16 values, [3, 8] needs 24
  EXPECT_NO_THROW(swiglu(GateUpView::from_fp32(data, 2, 4), GateUpLayout::halves(), silu));
  auto ex2 = silu;
  ex2.exp = ExpKind::kEx2Approx;
  EXPECT_THROW(swiglu(GateUpView::from_fp32(data, 2, 4), GateUpLayout::halves(), ex2),
               std::invalid_argument);
  EXPECT_THROW(SwigluActivation::swiglu_clamped(kNan, 7.0f).validate(), std::invalid_argument);
  EXPECT_THROW(SwigluActivation::swiglu_clamped(1.702f, -1.0f).validate(), std::invalid_argument);
  EXPECT_THROW(SwigluActivation::parse_kind("gelu"), std::invalid_argument);
  std::vector<float> out(3);
  EXPECT_THROW(swiglu_row(GateUpView::from_fp32(data, 2, 4), 0, GateUpLayout::halves(), silu, out),
               std::invalid_argument);
}

TEST(Swiglu, FromRecipe) {
  Recipe r = Recipe::nvfp4_te();
  r.activation = Activation::kSwigluClamped;
  r.alpha = 1.5f;
  r.limit = 3.0f;
  const SwigluActivation act = SwigluActivation::from_recipe(r);
  EXPECT_EQ(act.kind, Activation::kSwigluClamped);
  EXPECT_EQ(act.alpha, 1.5f);
  EXPECT_EQ(act.limit, 3.0f);
  r.activation = Activation::kNone;  // a recipe without an activation: SwiGLU means silu
  EXPECT_EQ(SwigluActivation::from_recipe(r).kind, Activation::kSilu);
}

// ---- Properties ---------------------------------------------------------------------------

// Values that include the specials and the activation's interesting ranges.
rc::Gen<float> gate_up_value() {
  return rc::gen::weightedOneOf<float>({
      {8, rc::gen::map(rc::gen::inRange(-1'000'000, 1'000'000),
                       [](int v) { return static_cast<float>(v) / 32768.0f; })},
      {1, rc::gen::element(0.0f, -0.0f, kInf, -kInf, kNan, 7.0f, -7.0f, 88.0f, -104.0f)},
      {1, rc::gen::map(rc::gen::arbitrary<std::uint32_t>(),
                       [](std::uint32_t b) { return std::bit_cast<float>(b); })},
  });
}

// The permutation from interleaved(g) columns to halves columns, written from the column's
// side (the layout code computes it from the element's side).
std::size_t halves_column_of_interleaved(std::size_t c, std::size_t g, std::size_t intermediate) {
  const std::size_t pair = c / (2 * g);
  const std::size_t pos = c % (2 * g);
  return pos < g ? pair * g + pos : intermediate + pair * g + (pos - g);
}

RC_GTEST_PROP(SwigluLayouts, InterleavedEqualsHalvesAfterPermutation, ()) {
  const std::size_t g = *rc::gen::element<std::size_t>(1, 2, 3, 8, 16);
  const std::size_t groups = *rc::gen::inRange<std::size_t>(1, 5);
  const std::size_t intermediate = g * groups;
  const std::size_t rows = *rc::gen::inRange<std::size_t>(1, 4);
  const bool clamped = *rc::gen::arbitrary<bool>();
  const auto act = clamped ? SwigluActivation::swiglu_clamped() : SwigluActivation::silu();
  const auto interleaved_data =
      *rc::gen::container<std::vector<float>>(rows * 2 * intermediate, gate_up_value());
  std::vector<float> halves_data(interleaved_data.size());
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < 2 * intermediate; ++c) {
      halves_data[r * 2 * intermediate + halves_column_of_interleaved(c, g, intermediate)] =
          interleaved_data[r * 2 * intermediate + c];
    }
  }
  const auto a = swiglu(GateUpView::from_fp32(interleaved_data, rows, intermediate),
                        GateUpLayout::interleaved(g), act);
  const auto b = swiglu(GateUpView::from_fp32(halves_data, rows, intermediate),
                        GateUpLayout::halves(), act);
  RC_ASSERT(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) RC_ASSERT(bits(a[i]) == bits(b[i]));
}

RC_GTEST_PROP(SwigluInputs, Bf16InputEqualsItsExactWidening, ()) {
  const std::size_t intermediate = *rc::gen::inRange<std::size_t>(1, 20);
  const auto raw = *rc::gen::container<std::vector<std::uint16_t>>(2 * intermediate,
                                                                    rc::gen::arbitrary<std::uint16_t>());
  std::vector<float> widened(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    widened[i] = std::bit_cast<float>(static_cast<std::uint32_t>(raw[i]) << 16);  // bf16 = top half
  }
  const auto act = SwigluActivation::swiglu_clamped();
  const auto a = swiglu(GateUpView::from_bf16(raw, 1, intermediate), GateUpLayout::halves(), act);
  const auto b = swiglu(GateUpView::from_fp32(widened, 1, intermediate), GateUpLayout::halves(), act);
  for (std::size_t i = 0; i < a.size(); ++i) RC_ASSERT(bits(a[i]) == bits(b[i]));
  const auto rounded = swiglu_to_bf16(GateUpView::from_bf16(raw, 1, intermediate),
                                      GateUpLayout::halves(), act);
  for (std::size_t i = 0; i < a.size(); ++i) RC_ASSERT(rounded[i] == float_to_bf16(a[i]));
}

}  // namespace
}  // namespace mxv
