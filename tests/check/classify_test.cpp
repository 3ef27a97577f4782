// Tests of the check library's classification (classify.cpp): for every class a planted
// mismatch that must be classified exactly as that class and no other, identical buffers, the
// precedence between classes, and argument validation. Every expected code and class below is
// written by hand from docs/semantics.md; nothing is computed with the code under test.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "mxv/check/check.h"

namespace mxv::check {
namespace {

using Bytes = std::vector<std::uint8_t>;
constexpr std::uint8_t kFill = 0xCD;

// `payload` with `guard` bytes of kFill on each side, as a kernel's output buffer would sit.
Bytes guarded(const Bytes& payload, std::size_t guard) {
  Bytes out(guard, kFill);
  out.insert(out.end(), payload.begin(), payload.end());
  out.insert(out.end(), guard, kFill);
  return out;
}

Options guards(std::size_t guard) {
  Options o;
  o.guard_before = o.guard_after = guard;
  o.guard_fill = kFill;
  return o;
}

// Options under which a byte still holding `fill` reads as never written.
Options sentinel(std::uint8_t fill) { return {.sentinel = fill}; }

// The report holds exactly `n` mismatches, all of class `cls`.
void expect_only(const Report& r, MismatchClass cls, std::size_t n) {
  EXPECT_EQ(r.mismatch_count, n) << r;
  EXPECT_EQ(r.count(cls), n) << "class " << to_string(cls) << "\n" << r;
}

TEST(CheckClassify, IdenticalBuffersAreOk) {
  const Bytes q = {0x21, 0x43, 0x65, 0x87};
  const Report r = compare(OutputSpec::packed_e2m1("q", 2, 4), q, guarded(q, 8), {}, guards(8));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.mismatch_count, 0u);
  EXPECT_TRUE(r.listed.empty());
  EXPECT_EQ(r.bytes_compared, 20u);
  EXPECT_EQ(r.elements_compared, 8u);
  for (std::size_t c = 0; c < kMismatchClassCount; ++c) EXPECT_EQ(r.counts[c], 0u);
}

TEST(CheckClassify, OutOfBoundsGuardByteChanged) {
  const Bytes q = {0x21, 0x43, 0x65, 0x87};
  Bytes actual = guarded(q, 8);
  actual[8 + 4 + 2] = 0x00;  // third guard byte after the output
  actual[7] = 0x11;          // last guard byte before it
  const Report r = compare(OutputSpec::packed_e2m1("q", 2, 4), q, actual, {}, guards(8));
  expect_only(r, MismatchClass::kOutOfBounds, 2);
  ASSERT_EQ(r.listed.size(), 2u);
  EXPECT_EQ(r.listed[0].region, Region::kGuardBefore);
  EXPECT_EQ(r.listed[0].byte_offset, -1);
  EXPECT_EQ(r.listed[0].actual, 0x11u);
  EXPECT_EQ(r.listed[1].region, Region::kGuardAfter);
  EXPECT_EQ(r.listed[1].byte_offset, 6);
  EXPECT_EQ(r.listed[1].expected, kFill);
}

TEST(CheckClassify, NonzeroPaddingInSwizzledScales) {
  // 2 rows x 1 block, swizzled: data at bytes 0 (row 0) and 16 (row 1); 510 bytes of padding.
  Bytes sf(512, 0);
  sf[0] = 0x38;
  sf[16] = 0x40;
  Bytes actual = sf;
  actual[5] = 0x38;  // stale scale left in padding
  const Report r = compare(OutputSpec::scales("sf", CodeKind::kUE4M3, 2, 1, Layout::kSwizzled128x4), sf, actual);
  expect_only(r, MismatchClass::kNonzeroPadding, 1);
  EXPECT_EQ(r.listed[0].region, Region::kPadding);
  EXPECT_EQ(r.listed[0].byte_offset, 5);
}

TEST(CheckClassify, NonzeroPaddingInTrailingNibble) {
  // K = 3: the high nibble of each row's second byte is padding and must be 0.
  const Bytes q = {0x21, 0x03};
  const Report r = compare(OutputSpec::packed_e2m1("q", 1, 3), q, Bytes{0x21, 0x53});
  expect_only(r, MismatchClass::kNonzeroPadding, 1);
  EXPECT_EQ(r.listed[0].nibble, 1);
  EXPECT_EQ(r.listed[0].actual, 0x5u);
}

TEST(CheckClassify, NeverWrittenSentinelSurvived) {
  const Bytes e = {0x38, 0x40, 0x48, 0x50};
  const Bytes a = {0x38, 0xAA, 0x48, 0x50};
  const Report r = compare(OutputSpec::tensor("x", CodeKind::kE4M3, 1, 4), e, a, {}, sentinel(0xAA));
  expect_only(r, MismatchClass::kNeverWritten, 1);
  EXPECT_EQ(r.listed[0].coord, (std::array<std::size_t, 3>{0, 0, 1}));
  // Without a sentinel the same byte is just a wrong value (0xAA is E4M3 -0.3125).
  const Report plain = compare(OutputSpec::tensor("x", CodeKind::kE4M3, 1, 4), e, a);
  expect_only(plain, MismatchClass::kOther, 1);
}

TEST(CheckClassify, NeverWrittenWideElementNeedsAllItsBytes) {
  // bf16 [1.0, 2.0]; element 1 is 0xAAAA (never written), element 0 has one sentinel byte only.
  const Bytes e = {0x80, 0x3F, 0x00, 0x40};
  const Bytes a = {0xAA, 0x3F, 0xAA, 0xAA};
  const Report r = compare(OutputSpec::tensor("y", CodeKind::kBf16, 1, 2), e, a, {}, sentinel(0xAA));
  EXPECT_EQ(r.mismatch_count, 2u);
  EXPECT_EQ(r.count(MismatchClass::kNeverWritten), 1u);
  EXPECT_EQ(r.count(MismatchClass::kOther), 1u);
  EXPECT_EQ(r.listed[1].cls, MismatchClass::kNeverWritten);
}

TEST(CheckClassify, NibbleSwapBeatsPermutation) {
  // Elements 0,1 = 1.0 (0x2), 0.5 (0x1) belong in byte 0 as 0x12; the candidate wrote 0x21.
  const Bytes e = {0x12, 0x43};
  const Report r = compare(OutputSpec::packed_e2m1("q", 1, 4), e, Bytes{0x21, 0x43});
  expect_only(r, MismatchClass::kNibbleSwap, 2);
  EXPECT_EQ(r.listed[0].nibble, 0);
  EXPECT_EQ(r.listed[1].nibble, 1);
}

TEST(CheckClassify, LayoutPermutationRowsSwapped) {
  const Bytes e = {0x30, 0x31, 0x32, 0x33, 0x40, 0x41, 0x42, 0x43};
  const Bytes a = {0x40, 0x41, 0x42, 0x43, 0x30, 0x31, 0x32, 0x33};
  const Report r = compare(OutputSpec::scales("sf", CodeKind::kUE4M3, 2, 4, Layout::kRowMajor), e, a);
  expect_only(r, MismatchClass::kLayoutPermutation, 8);
  ASSERT_TRUE(r.listed[0].found_at.has_value());
  EXPECT_EQ(*r.listed[0].found_at, (std::array<std::size_t, 3>{0, 1, 0}));
  EXPECT_EQ(r.listed[0].found_byte_offset, 4);
  EXPECT_EQ(*r.listed[6].found_at, (std::array<std::size_t, 3>{0, 0, 2}));
}

TEST(CheckClassify, LayoutPermutationIntoAnUnwrittenSlot) {
  // The value of element 0 was written to element 2; element 0 kept the sentinel.
  const Bytes e = {0x3C, 0x38, 0x44};
  const Bytes a = {0xAA, 0x38, 0x3C};
  const Report r = compare(OutputSpec::tensor("x", CodeKind::kE4M3, 1, 3), e, a, {}, sentinel(0xAA));
  EXPECT_EQ(r.mismatch_count, 2u);
  EXPECT_EQ(r.listed[0].cls, MismatchClass::kNeverWritten);
  EXPECT_EQ(r.listed[1].cls, MismatchClass::kLayoutPermutation);
  EXPECT_EQ(*r.listed[1].found_at, (std::array<std::size_t, 3>{0, 0, 0}));
}

TEST(CheckClassify, PermutationPrefersTheSwapPartner) {
  // Elements 0<->3 and 1<->2 swapped; 0x40 is expected at both 1 and 3. Element 0's value is
  // reported as belonging at 3 (which holds element 0's value in turn), not at the nearer 1.
  const Bytes e = {0x30, 0x40, 0x50, 0x40};
  const Bytes a = {0x40, 0x50, 0x40, 0x30};
  const Report r = compare(OutputSpec::tensor("x", CodeKind::kE4M3, 1, 4), e, a);
  expect_only(r, MismatchClass::kLayoutPermutation, 4);
  EXPECT_EQ(*r.listed[0].found_at, (std::array<std::size_t, 3>{0, 0, 3}));
  EXPECT_EQ(*r.listed[2].found_at, (std::array<std::size_t, 3>{0, 0, 1}));
}

TEST(CheckClassify, PermutationNeedsOneSourcePerMovedValue) {
  // 0x71 appears three times among the actual values but is expected at only one differing
  // slot: one value cannot have moved to three places, so this is not a permutation (each
  // difference is then a scale offset: +1, -1, -1, -2 binades).
  const Bytes e = {0x70, 0x71, 0x72, 0x73};
  const Bytes a = {0x71, 0x70, 0x71, 0x71};
  const Report r = compare(OutputSpec::scales("sf", CodeKind::kE8M0, 1, 4, Layout::kRowMajor), e, a);
  expect_only(r, MismatchClass::kScaleOffBinades, 4);
  EXPECT_EQ(r.listed[3].k, -2);
}

TEST(CheckClassify, LinearOffsetsIntoSwizzledBufferShowPaddingAndUnwritten) {
  // A kernel that writes row-major offsets (r*4 + k) into a swizzled 2x4 scale buffer: row 1
  // lands in padding (bytes 4..7) and its true place (bytes 16..19) keeps the sentinel.
  Bytes e(512, 0);
  for (std::uint8_t k = 0; k < 4; ++k) {
    e[k] = static_cast<std::uint8_t>(0x30 + k);
    e[16 + k] = static_cast<std::uint8_t>(0x40 + k);
  }
  Bytes a(512, 0);
  for (std::size_t i = 16; i < 20; ++i) a[i] = 0xEE;
  for (std::uint8_t k = 0; k < 4; ++k) {
    a[k] = static_cast<std::uint8_t>(0x30 + k);
    a[4 + k] = static_cast<std::uint8_t>(0x40 + k);
  }
  const Report r =
      compare(OutputSpec::scales("sf", CodeKind::kUE4M3, 2, 4, Layout::kSwizzled128x4), e, a, {}, sentinel(0xEE));
  EXPECT_EQ(r.mismatch_count, 8u);
  EXPECT_EQ(r.count(MismatchClass::kNonzeroPadding), 4u);
  EXPECT_EQ(r.count(MismatchClass::kNeverWritten), 4u);
}

TEST(CheckClassify, NanPolicyE4m3Overflow) {
  // satfinite gives 448 (0x7E); a non-saturating conversion gives NaN (0x7F).
  const Report r = compare(OutputSpec::tensor("x", CodeKind::kE4M3, 1, 2), Bytes{0x7E, 0x38}, Bytes{0x7F, 0x38});
  expect_only(r, MismatchClass::kNanPolicy, 1);
}

TEST(CheckClassify, NanPolicyE2m1FromNanInput) {
  // A NaN input converts to 0x7 (+6) in the cuda dialect, to 0x0 in TE's python reference.
  const Bytes e = {0x27};  // element 0 = NaN input -> 0x7, element 1 = 1.0
  const std::vector<std::uint32_t> input = {0x7FC00000u, 0x3F800000u};
  Context ctx;
  ctx.input_kind = InputKind::kFp32;
  ctx.input_bits = input;
  const Report r = compare(OutputSpec::packed_e2m1("q", 1, 2), e, Bytes{0x20}, ctx);
  expect_only(r, MismatchClass::kNanPolicy, 1);
  // Without the input bits, 6 vs 0 is unexplained.
  const Report plain = compare(OutputSpec::packed_e2m1("q", 1, 2), e, Bytes{0x20});
  expect_only(plain, MismatchClass::kOther, 1);
}

TEST(CheckClassify, NanPolicyBlockAmax) {
  // NaN in a block's amax: torchao stores scale 0xFF; TE ignores the NaN (here scale 2^1 = 0x80).
  const std::vector<float> amax = {std::nanf(""), 3.0f};
  Context ctx;
  ctx.block_size = 1;
  ctx.block_amax = amax;
  const Report r = compare(OutputSpec::scales("sf", CodeKind::kE8M0, 1, 2, Layout::kRowMajor),
                           Bytes{0xFF, 0x80}, Bytes{0x80, 0x80}, ctx);
  expect_only(r, MismatchClass::kNanPolicy, 1);
}

TEST(CheckClassify, SignOfZero) {
  // -0.0 -> E2M1 0x8 (cuda); TE python reference and ModelOpt write 0x0.
  const Report r = compare(OutputSpec::packed_e2m1("q", 1, 2), Bytes{0x28}, Bytes{0x20});
  expect_only(r, MismatchClass::kSignOfZero, 1);
  const Report wide = compare(OutputSpec::tensor("y", CodeKind::kBf16, 1, 1), Bytes{0x00, 0x80}, Bytes{0x00, 0x00});
  expect_only(wide, MismatchClass::kSignOfZero, 1);
}

TEST(CheckClassify, TieFlipE2m1) {
  // x * enc = 2.5 is the midpoint of 2 (0x4) and 3 (0x5): RNE keeps the even 2, half-away 3.
  // x * enc = 0.25: the midpoint of 0 and 0.5: RNE gives 0 (0x0), half-away 0.5 (0x1).
  const std::vector<float> pre = {2.5f, 0.25f};
  Context ctx;
  ctx.pre_rounding = pre;
  const Report r = compare(OutputSpec::packed_e2m1("q", 1, 2), Bytes{0x04}, Bytes{0x15}, ctx);
  expect_only(r, MismatchClass::kTieFlip, 2);
}

TEST(CheckClassify, TieFlipBeatsScaleOffCodes) {
  // Pre-rounding scale 1.0625 is the midpoint of UE4M3 1.0 (0x38) and 1.125 (0x39).
  const std::vector<float> pre = {1.0625f};
  Context ctx;
  ctx.pre_rounding = pre;
  const OutputSpec spec = OutputSpec::scales("sf", CodeKind::kUE4M3, 1, 1, Layout::kRowMajor);
  expect_only(compare(spec, Bytes{0x38}, Bytes{0x39}, ctx), MismatchClass::kTieFlip, 1);
  // Without the context the same pair is one code off.
  const Report plain = compare(spec, Bytes{0x38}, Bytes{0x39});
  expect_only(plain, MismatchClass::kScaleOffCodes, 1);
  EXPECT_EQ(plain.listed[0].k, 1);
}

TEST(CheckClassify, BoundaryFlipWithinTheStatedUlps) {
  // One fp32 ulp below the 2.5 midpoint: RNE gives 2 (0x4); another operation order landed on
  // or above the midpoint and gave 3 (0x5). Ten ulps below is beyond the default bound of 4.
  const float one_below = std::nextafter(2.5f, 0.0f);
  float ten_below = 2.5f;
  for (int i = 0; i < 10; ++i) ten_below = std::nextafter(ten_below, 0.0f);
  const std::vector<float> pre = {one_below, ten_below};
  Context ctx;
  ctx.pre_rounding = pre;
  const Report r = compare(OutputSpec::packed_e2m1("q", 1, 2), Bytes{0x44}, Bytes{0x55}, ctx);
  EXPECT_EQ(r.mismatch_count, 2u);
  EXPECT_EQ(r.listed[0].cls, MismatchClass::kBoundaryFlip);
  EXPECT_EQ(r.listed[0].k, -1);
  EXPECT_EQ(r.listed[1].cls, MismatchClass::kOther);
  Options wide;
  wide.boundary_ulps = 10;
  const Report r10 = compare(OutputSpec::packed_e2m1("q", 1, 2), Bytes{0x44}, Bytes{0x55}, ctx, wide);
  expect_only(r10, MismatchClass::kBoundaryFlip, 2);
}

TEST(CheckClassify, ScaleOffByOneBinadeE8m0) {
  // ocp vs nvidia MX scale rule: every block one binade up. The shifted ramp must not be taken
  // for a permutation: 0x74 is expected nowhere.
  const Bytes e = {0x70, 0x71, 0x72, 0x73};
  const Bytes a = {0x71, 0x72, 0x73, 0x74};
  const Report r = compare(OutputSpec::scales("sf", CodeKind::kE8M0, 1, 4, Layout::kRowMajor), e, a);
  expect_only(r, MismatchClass::kScaleOffBinades, 4);
  EXPECT_EQ(r.listed[0].k, 1);
  const Report down = compare(OutputSpec::scales("sf", CodeKind::kE8M0, 1, 1, Layout::kRowMajor), Bytes{0x85}, Bytes{0x83});
  expect_only(down, MismatchClass::kScaleOffBinades, 1);
  EXPECT_EQ(down.listed[0].k, -2);
}

TEST(CheckClassify, ScaleOffBinadesInDequantizedOutput) {
  // bf16 1.5 (0x3FC0) dequantized with a scale one binade high: 3.0 (0x4040).
  const Report r = compare(OutputSpec::tensor("y", CodeKind::kBf16, 1, 1), Bytes{0xC0, 0x3F}, Bytes{0x40, 0x40});
  expect_only(r, MismatchClass::kScaleOffBinades, 1);
  EXPECT_EQ(r.listed[0].k, 1);
}

TEST(CheckClassify, ScaleOffCodesUe4m3) {
  const Report r = compare(OutputSpec::scales("sf", CodeKind::kUE4M3, 1, 2, Layout::kRowMajor),
                           Bytes{0x38, 0x50}, Bytes{0x38, 0x4E});
  expect_only(r, MismatchClass::kScaleOffCodes, 1);
  EXPECT_EQ(r.listed[0].k, -2);
}

TEST(CheckClassify, OtherWhenNothingFits) {
  // E2M1 1.5 (0x3) vs 4 (0x6), no context; fp32 scalar one ulp off.
  expect_only(compare(OutputSpec::packed_e2m1("q", 1, 2), Bytes{0x03}, Bytes{0x06}), MismatchClass::kOther, 1);
  const Bytes one = {0x00, 0x00, 0x80, 0x3F};
  const Bytes next = {0x01, 0x00, 0x80, 0x3F};
  expect_only(compare(OutputSpec::scalar("amax"), one, next), MismatchClass::kOther, 1);
  // A UE4M3 scale with its (nonexistent) sign bit set is not "k codes off".
  expect_only(compare(OutputSpec::scales("sf", CodeKind::kUE4M3, 1, 1, Layout::kRowMajor), Bytes{0x38}, Bytes{0xB8}),
              MismatchClass::kOther, 1);
  // bf16 1.5 vs 2.0: other exponent AND other significand, so not a power-of-two scale error.
  expect_only(compare(OutputSpec::tensor("y", CodeKind::kBf16, 1, 1), Bytes{0xC0, 0x3F}, Bytes{0x00, 0x40}),
              MismatchClass::kOther, 1);
}

TEST(CheckClassify, PaddingBeatsNeverWritten) {
  // A padding slot that still holds the sentinel is stale padding, not a missing element.
  Bytes e(512, 0);
  e[0] = 0x38;
  Bytes a = e;
  a[1] = 0xEE;
  const Report r =
      compare(OutputSpec::scales("sf", CodeKind::kUE4M3, 1, 1, Layout::kSwizzled128x4), e, a, {}, sentinel(0xEE));
  expect_only(r, MismatchClass::kNonzeroPadding, 1);
}

TEST(CheckClassify, GroupedCoordinates) {
  OutputSpec spec = OutputSpec::scales("sf", CodeKind::kUE4M3, 0, 4, Layout::kSwizzled128x4, 3);
  spec.group_rows = {3, 0, 130};
  spec.axes = {"expert", "row", "block"};
  Bytes e(1536, 0);
  e[1043] = 0x38;  // expert 2, row 129, block 3: 512 + 512 + 1*16 + 3
  Bytes a = e;
  a[1043] = 0x3A;
  const Report r = compare(spec, e, a);
  expect_only(r, MismatchClass::kScaleOffCodes, 1);
  EXPECT_EQ(r.listed[0].coord, (std::array<std::size_t, 3>{2, 129, 3}));
  EXPECT_EQ(r.listed[0].byte_offset, 1043);
}

TEST(CheckClassify, ContextIsReportedPerElementAndBlock) {
  // NVFP4-like: 1 row of 4 elements, blocks of 2; element 3 differs.
  const std::vector<std::uint32_t> input = {0x3F800000u, 0x40000000u, 0x40400000u, 0x40800000u};
  const std::vector<float> pre = {1.0f, 2.0f, 3.0f, 4.0f};
  const std::vector<float> amax = {2.0f, 4.0f};
  const std::vector<float> scale = {0.5f, 0.75f};
  Context ctx{InputKind::kFp32, input, pre, 2, amax, scale};
  const Report r = compare(OutputSpec::packed_e2m1("q", 1, 4), Bytes{0x42, 0x65}, Bytes{0x42, 0x75}, ctx);
  ASSERT_EQ(r.listed.size(), 1u);
  EXPECT_EQ(r.listed[0].input_bits, 0x40800000u);
  EXPECT_EQ(r.listed[0].pre_rounding, 4.0f);
  EXPECT_EQ(r.listed[0].block_amax, 4.0f);
  EXPECT_EQ(r.listed[0].block_scale, 0.75f);
}

TEST(CheckClassify, MaxListedLimitsTheListNotTheCounts) {
  const Bytes e(64, 0x38);
  const Bytes a(64, 0x39);
  Options o;
  o.max_listed = 3;
  const Report r = compare(OutputSpec::scales("sf", CodeKind::kUE4M3, 8, 8, Layout::kRowMajor), e, a, {}, o);
  EXPECT_EQ(r.mismatch_count, 64u);
  EXPECT_EQ(r.listed.size(), 3u);
  EXPECT_EQ(r.count(MismatchClass::kScaleOffCodes), 64u);
}

TEST(CheckClassify, BadArgumentsNameTheRule) {
  const OutputSpec spec = OutputSpec::packed_e2m1("q", 1, 4);
  auto message_of = [](auto&& call) {
    try {
      call();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no throw");
  };
  EXPECT_NE(message_of([&] { compare(spec, Bytes(3), Bytes(2)); }).find("expected has 3 bytes"), std::string::npos);
  EXPECT_NE(message_of([&] { compare(spec, Bytes(2), Bytes(2), {}, guards(4)); }).find("guard_before"), std::string::npos);
  const std::vector<float> pre(3);
  Context ctx;
  ctx.pre_rounding = pre;
  EXPECT_NE(message_of([&] { compare(spec, Bytes(2), Bytes(2), ctx); }).find("context.pre_rounding"), std::string::npos);
  const std::vector<float> amax(2);
  Context blocks;
  blocks.block_amax = amax;
  EXPECT_NE(message_of([&] { compare(spec, Bytes(2), Bytes(2), blocks); }).find("block_size"), std::string::npos);
}

// Nothing is ever excused: for any corruption, the number of mismatches equals the number of
// differing nibbles (counted here independently) plus changed guard bytes, and ok() iff none.
RC_GTEST_PROP(CheckClassifyProperty, EveryDifferenceIsCountedOnce, ()) {
  const auto rows = *rc::gen::inRange<std::size_t>(1, 5);
  const auto cols = *rc::gen::inRange<std::size_t>(1, 40);
  const std::size_t bytes = rows * ((cols + 1) / 2);
  Bytes e = *rc::gen::container<Bytes>(bytes, rc::gen::arbitrary<std::uint8_t>());
  for (std::size_t r = 0; r < rows && cols % 2 == 1; ++r) e[r * ((cols + 1) / 2) + cols / 2] &= 0x0F;
  Bytes a = guarded(e, 4);
  const auto flips = *rc::gen::container<std::vector<std::pair<std::size_t, std::uint8_t>>>(
      rc::gen::pair(rc::gen::inRange<std::size_t>(0, a.size()), rc::gen::arbitrary<std::uint8_t>()));
  for (const auto& [pos, v] : flips) a[pos] = v;
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i < 4 || i >= 4 + bytes) {
      differing += a[i] != kFill;
    } else {
      differing += (a[i] & 0xF) != (e[i - 4] & 0xF);
      differing += (a[i] >> 4) != (e[i - 4] >> 4);
    }
  }
  Options o = guards(4);
  o.sentinel = 0xAA;
  const Report r = compare(OutputSpec::packed_e2m1("q", rows, cols), e, a, {}, o);
  RC_ASSERT(r.mismatch_count == differing);
  RC_ASSERT(r.ok() == (differing == 0));
  std::size_t total = 0;
  for (const std::size_t c : r.counts) total += c;
  RC_ASSERT(total == differing);
}

}  // namespace
}  // namespace mxv::check
