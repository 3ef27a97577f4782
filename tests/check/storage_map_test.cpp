// Tests of the check library's storage maps (storage_map.cpp) against offsets derived by hand
// from docs/semantics.md section 5 (packing, padded rows, swizzled 128x4 scales, grouped rows).
#include "mxv/check/storage_map.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

namespace mxv::check {
namespace {

TEST(CheckLayout, SwizzleKnownAnswersFromSemantics) {
  // R = 128, K = 128, NVFP4 (Kb = 8): (5,2) -> 82 and (5,5) -> 593 (docs/semantics.md section 5).
  EXPECT_EQ(swizzled_offset(5, 2, 8), 82u);
  EXPECT_EQ(swizzled_offset(5, 5, 8), 593u);
  // Row 32 starts the second 4-byte group of the first 16-byte line; row 128 the next tile row.
  EXPECT_EQ(swizzled_offset(32, 0, 8), 4u);
  EXPECT_EQ(swizzled_offset(128, 0, 8), 1024u);  // n_k = 2 column tiles of 512 bytes per row tile
}

TEST(CheckLayout, SwizzledStorageIsPaddedTo128RowsAnd4Columns) {
  const OutputSpec spec = OutputSpec::scales("sf", CodeKind::kUE4M3, 130, 5, Layout::kSwizzled128x4);
  EXPECT_EQ(storage_bytes(spec), 2u * 2u * 512u);  // ceil(130/128) = 2 row tiles, ceil(5/4) = 2
  EXPECT_EQ(element_count(spec), 650u);
  const StorageMap map(spec);
  EXPECT_EQ(map.slots(), 2048u);
  // Every element has its own slot; the rest is padding.
  std::set<std::size_t> used;
  for (std::size_t e = 0; e < map.elements(); ++e) {
    used.insert(map.slot_of(e));
    ASSERT_EQ(map.element_of(map.slot_of(e)), e);
  }
  EXPECT_EQ(used.size(), 650u);
  // Row 0, block 4 (the second column tile) sits at 512 + 0; byte 513 is block 5: padding.
  EXPECT_EQ(map.slot_of(4), 512u);
  EXPECT_FALSE(map.element_of(513).has_value());
  // Row 129 (second row tile), block 3: 2*512 + (1)*16 + 0*4 + 3 = 1043.
  EXPECT_EQ(map.slot_of(129 * 5 + 3), 1043u);
  EXPECT_EQ(map.coord_of(129 * 5 + 3), (std::array<std::size_t, 3>{0, 129, 3}));
}

TEST(CheckLayout, PackedE2m1TwoElementsPerByteLowNibbleFirst) {
  // Odd K: a row of 3 elements takes 2 bytes; the high nibble of byte 1 is padding.
  const OutputSpec spec = OutputSpec::packed_e2m1("q", 2, 3);
  EXPECT_EQ(storage_bytes(spec), 4u);
  const StorageMap map(spec);
  EXPECT_EQ(map.bits_per_slot(), 4u);
  EXPECT_EQ(map.slot_of(0), 0u);  // element 0: byte 0 low
  EXPECT_EQ(map.slot_of(1), 1u);  // element 1: byte 0 high
  EXPECT_EQ(map.slot_of(3), 4u);  // row 1 element 0: byte 2 low
  EXPECT_FALSE(map.element_of(3).has_value());
  EXPECT_EQ(map.byte_of(5), 2u);
  EXPECT_EQ(map.nibble_of(5), 1);
  const std::uint8_t bytes[4] = {0x21, 0x03, 0x54, 0x06};
  EXPECT_EQ(map.read(bytes, 0), 0x1u);
  EXPECT_EQ(map.read(bytes, 1), 0x2u);
  EXPECT_EQ(map.read(bytes, 5), 0x5u);
}

TEST(CheckLayout, RowAlignPadsEachBatch) {
  OutputSpec spec = OutputSpec::tensor("t", CodeKind::kBf16, 3, 2, 2);
  spec.row_align = 4;
  EXPECT_EQ(storage_bytes(spec), 2u * 4u * 2u * 2u);  // 2 batches x 4 rows x 2 cols x 2 bytes
  const StorageMap map(spec);
  // Batch 1 starts at row 4 of storage: its element (1, 0, 1) is slot 4*2 + 1 = 9, byte 18.
  EXPECT_EQ(map.slot_of(6 + 1), 9u);
  EXPECT_EQ(map.byte_of(9), 18u);
  EXPECT_FALSE(map.element_of(6).has_value());  // row 3 of batch 0 is padding
  const std::uint8_t bytes[4] = {0x80, 0x3f, 0x00, 0x40};
  EXPECT_EQ(map.read(bytes, 0), 0x3f80u);  // little-endian
}

TEST(CheckLayout, GroupedRowsSwizzlePerGroup) {
  OutputSpec spec = OutputSpec::scales("sf", CodeKind::kUE4M3, 0, 4, Layout::kSwizzled128x4, 3);
  spec.group_rows = {3, 0, 130};  // an empty expert in the middle
  EXPECT_EQ(storage_bytes(spec), 512u + 0u + 1024u);
  const StorageMap map(spec);
  // Group 2, row 129, block 3: 512 + 512 + 1*16 + 0*4 + 3 = 1043.
  const std::size_t element = 3 * 4 + 129 * 4 + 3;
  EXPECT_EQ(map.slot_of(element), 1043u);
  EXPECT_EQ(map.coord_of(element), (std::array<std::size_t, 3>{2, 129, 3}));
  EXPECT_EQ(map.coord_of(12), (std::array<std::size_t, 3>{2, 0, 0}));  // skips the empty group
}

TEST(CheckLayout, SlotAndElementMapsAreInverse) {
  // On every slot: padding, or the element it holds maps back to it; every element is reached.
  OutputSpec grouped = OutputSpec::scales("sf", CodeKind::kE8M0, 0, 7, Layout::kSwizzled128x4, 4);
  grouped.group_rows = {0, 129, 5, 0};
  OutputSpec aligned = OutputSpec::packed_e2m1("q", 5, 7, 2);
  aligned.row_align = 4;
  for (const OutputSpec& spec : {grouped, aligned, OutputSpec::tensor("t", CodeKind::kFp32, 3, 5)}) {
    const StorageMap map(spec);
    std::size_t data_slots = 0;
    for (std::size_t s = 0; s < map.slots(); ++s) {
      if (const auto e = map.element_of(s)) {
        ++data_slots;
        ASSERT_EQ(map.slot_of(*e), s) << spec.name << " slot " << s;
      }
    }
    EXPECT_EQ(data_slots, map.elements()) << spec.name;
  }
}

TEST(CheckLayout, InvalidSpecsAreRejectedWithTheRule) {
  auto message_of = [](const OutputSpec& s) {
    try {
      (void)storage_bytes(s);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no throw");
  };
  EXPECT_NE(message_of(OutputSpec::tensor("t", CodeKind::kBf16, 1, 0)).find("cols must be >= 1"), std::string::npos);
  OutputSpec swz = OutputSpec::tensor("t", CodeKind::kBf16, 1, 4);
  swz.layout = Layout::kSwizzled128x4;
  EXPECT_NE(message_of(swz).find("block scales only"), std::string::npos);
  OutputSpec grouped = OutputSpec::packed_e2m1("q", 0, 4, 2);
  grouped.group_rows = {1};
  EXPECT_NE(message_of(grouped).find("group_rows"), std::string::npos);
  OutputSpec aligned = OutputSpec::packed_e2m1("q", 1, 4);
  aligned.row_align = 0;
  EXPECT_NE(message_of(aligned).find("row_align"), std::string::npos);
}

}  // namespace
}  // namespace mxv::check
