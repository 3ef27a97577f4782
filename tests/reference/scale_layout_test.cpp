// Scale layouts (docs/semantics.md section 5): the swizzle's known answers, its bijection on the
// unpadded region with zero padding (rapidcheck), and grouped rows' padded starts.
#include "mxv/reference/scale_layout.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>
#include <vector>

namespace mxv {
namespace {

// R = 128, K = 128, NVFP4 (Kb = 8): n_r = 1, n_k = 2.
//  (r=5, k=2): (5%32)*16 + (5/32)*4 + 2%4 = 80 + 0 + 2 = 82.
//  (r=5, k=5): (5/4)*512 + 80 + 0 + 1 = 593.
TEST(ScaleLayout, SwizzleKnownAnswers) {
  EXPECT_EQ(swizzled_offset(0, 5, 2, 128, 8), 82);
  EXPECT_EQ(swizzled_offset(0, 5, 5, 128, 8), 593);
  // r = 37 = 32 + 5: the second 32-row group adds 4: 80 + 4 + 2 = 86.
  EXPECT_EQ(swizzled_offset(0, 37, 2, 128, 8), 86);
  // r = 130 (second 128-row tile): 1 * n_k * 512 + (2%32)*16 = 1024 + 32 = 1056.
  EXPECT_EQ(swizzled_offset(0, 130, 0, 200, 8), 1056);
  // batch 1 of R = 200 (n_r = 2), Kb = 8 (n_k = 2): 1 * 2 * 2 * 512 = 2048.
  EXPECT_EQ(swizzled_offset(1, 0, 0, 200, 8), 2048);
  EXPECT_EQ(swizzled_size(2, 200, 8), 2 * 256 * 8);
}

// The bijection: every (b, r, k) of the unpadded region lands on a distinct byte, inside the
// buffer; arranging then leaves every other (padding) byte zero.
RC_GTEST_PROP(ScaleLayout, SwizzleIsABijectionWithZeroPadding, ()) {
  const auto rows = *rc::gen::inRange<std::int64_t>(1, 300);
  const auto kb = *rc::gen::inRange<std::int64_t>(1, 20);
  const auto batch = *rc::gen::inRange<std::int64_t>(1, 3);
  const std::int64_t size = swizzled_size(batch, rows, kb);
  std::set<std::int64_t> seen;
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t k = 0; k < kb; ++k) {
        const std::int64_t off = swizzled_offset(b, r, k, rows, kb);
        RC_ASSERT(off >= 0);
        RC_ASSERT(off < size);
        RC_ASSERT(seen.insert(off).second);
      }
    }
  }
  // Batched == grouped with equal counts: arrange all-0xAB scales and check padding is 0.
  std::vector<std::int64_t> counts(static_cast<std::size_t>(batch), rows);
  const GroupedRows g = GroupedRows::from_counts(counts);
  const std::vector<std::uint8_t> linear(static_cast<std::size_t>(batch * rows * kb), 0xAB);
  const auto arranged = arrange_scales(ScaleLayout::kSwizzled128x4, g, linear, kb);
  RC_ASSERT(static_cast<std::int64_t>(arranged.size()) == size);
  for (std::int64_t i = 0; i < size; ++i) {
    const bool data = seen.count(i) != 0;
    RC_ASSERT(arranged[static_cast<std::size_t>(i)] == (data ? 0xAB : 0x00));
  }
}

// Grouped rows: counts {3, 0, 130}: starts {0, 3, 3}, padded starts {0, 128, 128}, padded rows
// 128 + 0 + 256 = 384. Row 3 is expert 2's local row 0 -> padded row 128 -> tile 1.
TEST(ScaleLayout, GroupedRowsPaddedStarts) {
  const std::int64_t counts[] = {3, 0, 130};
  const GroupedRows g = GroupedRows::from_counts(counts);
  EXPECT_EQ(g.starts, (std::vector<std::int64_t>{0, 3, 3}));
  EXPECT_EQ(g.padded_starts, (std::vector<std::int64_t>{0, 128, 128}));
  EXPECT_EQ(g.padded_rows, 384);
  EXPECT_EQ(g.group_of(2), 0u);
  EXPECT_EQ(g.group_of(3), 2u);
  // Kb = 4 (n_k = 1): padded row 128 -> (128/128) * 512 = 512.
  EXPECT_EQ(scale_offset(ScaleLayout::kSwizzled128x4, g, 3, 0, 4), 512);
  // Row 132 = expert 2 local 129 -> padded 257 -> tile 2: 1024 + (1 % 32) * 16 = 1040.
  EXPECT_EQ(scale_offset(ScaleLayout::kSwizzled128x4, g, 132, 0, 4), 1040);
  EXPECT_EQ(scale_offset(ScaleLayout::kLinear, g, 132, 3, 4), 132 * 4 + 3);
  EXPECT_EQ(scale_buffer_size(ScaleLayout::kSwizzled128x4, g, 3), 384 * 4);
}

TEST(ScaleLayout, GatherInvertsArrange) {
  const std::int64_t counts[] = {5, 129};
  const GroupedRows g = GroupedRows::from_counts(counts);
  std::vector<std::uint8_t> linear(134 * 3);
  for (std::size_t i = 0; i < linear.size(); ++i) linear[i] = static_cast<std::uint8_t>(i * 7 + 1);
  for (const ScaleLayout l : {ScaleLayout::kLinear, ScaleLayout::kSwizzled128x4}) {
    EXPECT_EQ(gather_scales(l, g, arrange_scales(l, g, linear, 3), 3), linear);
  }
}

TEST(ScaleLayout, BadInputsThrow) {
  const std::int64_t bad[] = {4, -1};
  EXPECT_THROW(GroupedRows::from_counts(bad), std::invalid_argument);
  EXPECT_THROW(GroupedRows::from_counts(std::span<const std::int64_t>{}), std::invalid_argument);
  EXPECT_THROW(scale_layout_by_name("tiled"), std::invalid_argument);
  const GroupedRows g = GroupedRows::single(4);
  EXPECT_THROW(gather_scales(ScaleLayout::kSwizzled128x4, g, std::vector<std::uint8_t>(10), 2), std::invalid_argument);
  EXPECT_THROW(g.group_of(4), std::invalid_argument);
}

}  // namespace
}  // namespace mxv
