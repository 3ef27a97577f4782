// The packed power-of-two E2M1 encoder of the MX bf16 paths (device/include/mxv/device/kernels/
// fp4_block.h, pack_e2m1_word_bf16_pow2; docs/design.md section 5.3), host branch, over every
// finite bf16 input under every E8M0 code it serves (1..252), held to the reference encoder of
// the fp32 product (reference/src/float_format.cpp, an independent algorithm): the quantize and
// fused SwiGLU kernels' MX bf16 codes come from it. The kernels' own tests run the same domain
// through the GPU's fma.rn.bf16x2 (tests/device/quantize_test.cpp, "every_e8m0_code"). And the
// slot cursor the quantize and fused kernels walk their scale bytes with, against the reference
// layout.
#include "mxv/device/kernels/fp4_block.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "mxv/reference/float_format.h"
#include "mxv/reference/scale_layout.h"

namespace {

using namespace mxv::device;

float bf16_value(std::uint32_t pattern) { return std::bit_cast<float>(pattern << 16); }

bool finite_bf16(std::uint32_t pattern) { return (pattern & 0x7F80u) != 0x7F80u; }

// The reference word of 8 bf16 patterns starting at `first` scaled by `multiplier`: element j's
// E2M1 code (sign included) in bits [4j+3:4j].
std::uint32_t reference_word(std::uint32_t first, float multiplier) {
  std::uint32_t word = 0;
  for (unsigned j = 0; j < 8; ++j) {
    word |= std::uint32_t{mxv::encode(mxv::kE2M1, bf16_value(first + j) * multiplier)} << (4u * j);
  }
  return word;
}

std::uint32_t pair(std::uint32_t first, unsigned i) { return (first + 2u * i) | ((first + 2u * i + 1u) << 16); }

// The first disagreement under `code` as a message, or "".
std::string sweep_code(std::uint32_t code) {
  const float multiplier = std::ldexp(1.0f, 127 - static_cast<int>(code));
  const fp4_block::MxBf16Factors f = fp4_block::mx_bf16_factors(code);
  char buf[200];
  for (std::uint32_t first = 0; first < 0x10000u; first += 8u) {
    if (!finite_bf16(first)) continue;  // groups of 8 never straddle the Inf / NaN patterns
    const std::uint32_t w0 = pair(first, 0), w1 = pair(first, 1), w2 = pair(first, 2), w3 = pair(first, 3);
    const std::uint32_t want = reference_word(first, multiplier);
    const std::uint32_t sat = fp4_block::pack_e2m1_word_bf16_pow2<true>(w0, w1, w2, w3, f);
    if (sat != want) {
      std::snprintf(buf, sizeof buf, "code %u, bf16 0x%04X..: saturating form 0x%08X, reference 0x%08X", code, first,
                    sat, want);
      return buf;
    }
    bool below_seven = true;  // the unsaturated form's domain: every product below 7
    for (unsigned j = 0; j < 8; ++j) below_seven = below_seven && std::fabs(bf16_value(first + j) * multiplier) < 7.0f;
    if (!below_seven) continue;
    const std::uint32_t unsat = fp4_block::pack_e2m1_word_bf16_pow2<false>(w0, w1, w2, w3, f);
    if (unsat != want) {
      std::snprintf(buf, sizeof buf, "code %u, bf16 0x%04X..: unsaturated form 0x%08X, reference 0x%08X", code, first,
                    unsat, want);
      return buf;
    }
  }
  return {};
}

TEST(Fp4BlockPow2, FactorsAreTheThreePowersOfTwoAndNormalExactlyForCodes1To252) {
  for (std::uint32_t code = 0; code < 256; ++code) {
    const bool normal = code >= 1u && code <= 252u;
    EXPECT_EQ(fp4_block::mx_bf16_factors_normal(code), normal) << "code " << code;
    if (!normal) continue;
    const fp4_block::MxBf16Factors f = fp4_block::mx_bf16_factors(code);
    const int k = 127 - static_cast<int>(code);
    for (const auto& [word, e] : {std::pair{f.twice, k + 1}, std::pair{f.once, k}, std::pair{f.half, k - 1}}) {
      EXPECT_EQ(bf16_value(word & 0xFFFFu), std::ldexp(1.0f, e)) << "code " << code;
      EXPECT_EQ(word >> 16, word & 0xFFFFu) << "code " << code;
    }
  }
}

TEST(Fp4BlockPow2, EqualsTheReferenceOnEveryBf16InputUnderEveryCodeItServes) {
  for (std::uint32_t code = 1; code <= 252; ++code) ASSERT_EQ(sweep_code(code), "");
}

// The checker can fail: a code outside the served range (0: the factor 2^128 is not a bf16
// number) gives wrong words, which the sweep reports.
TEST(Fp4BlockPow2, SweepReportsTheCodeItCannotServe) { EXPECT_NE(sweep_code(0), ""); }

// The slot cursors (fp4_block::SlotCursor, WholeAtomCursor) against the reference layout: at every
// step the cursor's (row, k) is where the reference puts the scale byte the step's item names
// (reference/src/scale_layout.cpp, written apart from the kernels). The message of the first
// disagreement, or "".
template <class Cursor>
std::string walk_disagreement(Cursor cursor, bool swizzled, std::int64_t scale_rows, std::int64_t kb_slots,
                              std::uint64_t first, std::uint64_t stride) {
  const std::uint64_t items = static_cast<std::uint64_t>(scale_rows * kb_slots);
  for (std::uint64_t i = first; i < items; i += stride) {
    const auto row = static_cast<std::int64_t>(cursor.row());
    const auto k = static_cast<std::int64_t>(cursor.k());
    const std::int64_t want = swizzled ? mxv::swizzled_offset(0, row, k, scale_rows, kb_slots) : row * kb_slots + k;
    if (row >= scale_rows || k >= kb_slots || want != static_cast<std::int64_t>(i)) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "%s, %lld x %lld slots, first %llu, stride %llu: item %llu at row %lld, k %lld",
                    swizzled ? "swizzled" : "linear", static_cast<long long>(scale_rows),
                    static_cast<long long>(kb_slots), static_cast<unsigned long long>(first),
                    static_cast<unsigned long long>(stride), static_cast<unsigned long long>(i),
                    static_cast<long long>(row), static_cast<long long>(k));
      return buf;
    }
    cursor.advance();
  }
  return {};
}

// Shapes with 1, 2 and 3 row tiles and 1 to 16 column groups (swizzled kb_slots is a multiple of
// 4), strides below, at and above one row tile's items, 132 SMs x 256 threads (an H200's one-wave
// grid) among them; first items 0, 7, ..., 595 (some beyond a small shape's items: an empty walk).
struct CursorShape {
  std::int64_t scale_rows;
  std::int64_t kb_slots;
};
const std::vector<CursorShape> kCursorShapes = {{128, 4}, {128, 8}, {256, 28}, {384, 64}, {128, 12}, {3, 5}, {7, 1}};

TEST(Fp4BlockCursors, SlotCursorStandsOnEveryItemOfItsWalk) {
  for (const CursorShape& s : kCursorShapes) {
    const bool swizzled = s.scale_rows % 128 == 0 && s.kb_slots % 4 == 0;
    for (const std::uint64_t stride : {1ull, 32ull, 256ull, 512ull, 1000ull, 1536ull, 33792ull}) {
      for (std::uint64_t first = 0; first < 600; first += 7) {
        const auto c = fp4_block::slot_cursor<std::uint64_t>(first, stride, static_cast<std::uint64_t>(s.kb_slots), swizzled);
        ASSERT_EQ(walk_disagreement(c, swizzled, s.scale_rows, s.kb_slots, first, stride), "");
      }
    }
  }
}

TEST(Fp4BlockCursors, WholeAtomCursorStandsOnEveryItemOfItsWalk) {
  int walks = 0;
  for (const CursorShape& s : kCursorShapes) {
    const bool swizzled = s.scale_rows % 128 == 0 && s.kb_slots % 4 == 0;
    // Whole atoms: any stride when linear, a multiple of 512 items when swizzled.
    for (const std::uint64_t stride : {1ull, 32ull, 256ull, 512ull, 1000ull, 1536ull, 33792ull}) {
      const auto probe = fp4_block::slot_cursor<std::uint32_t>(0, static_cast<std::uint32_t>(stride),
                                                              static_cast<std::uint32_t>(s.kb_slots), swizzled);
      ASSERT_EQ(probe.d_o == 0u, !swizzled || stride % 512 == 0) << stride;
      if (probe.d_o != 0u) continue;
      for (std::uint32_t first = 0; first < 600; first += 7) {
        const auto c = fp4_block::slot_cursor<std::uint32_t>(first, static_cast<std::uint32_t>(stride),
                                                            static_cast<std::uint32_t>(s.kb_slots), swizzled);
        ASSERT_EQ(walk_disagreement(fp4_block::whole_atom_cursor(c), swizzled, s.scale_rows, s.kb_slots, first, stride),
                  "");
        ++walks;
      }
    }
  }
  EXPECT_GT(walks, 500);  // the shapes above do take the whole-atom walks
}

}  // namespace
