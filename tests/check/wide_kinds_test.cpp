// Tests of wide_kinds.h: every WideType has the check library's code kind and input kind of the
// same width and encoding (a bf16 tensor must be decoded as bf16 in a report, not as fp16), and
// the input bits of wide bytes are one little-endian word per element.
#include "mxv/check/wide_kinds.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mxv/check/storage_map.h"

namespace mxv::check {
namespace {

TEST(CheckWideKinds, EachWideTypeHasItsOwnKinds) {
  struct Row {
    WideType type;
    CodeKind code;
    InputKind input;
  };
  const Row rows[] = {
      {WideType::kFp32, CodeKind::kFp32, InputKind::kFp32},
      {WideType::kBf16, CodeKind::kBf16, InputKind::kBf16},
      {WideType::kFp16, CodeKind::kFp16, InputKind::kFp16},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(std::string(mxv::to_string(r.type)));
    EXPECT_EQ(code_kind(r.type), r.code);
    EXPECT_EQ(input_kind(r.type), r.input);
    EXPECT_EQ(slot_bits(code_kind(r.type)), 8 * mxv::bytes_of(r.type));
  }
}

TEST(CheckWideKinds, InputBitsAreOneWordPerElement) {
  // fp32 1.0 and -2.0; bf16 / fp16 words in the low 16 bits, little-endian bytes.
  const std::vector<std::uint8_t> f32 = {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0xC0};
  EXPECT_EQ(input_bits(WideType::kFp32, f32), (std::vector<std::uint32_t>{0x3F800000u, 0xC0000000u}));
  const std::vector<std::uint8_t> half = {0x80, 0x3F, 0x00, 0xC0, 0x01, 0x00};
  EXPECT_EQ(input_bits(WideType::kBf16, half), (std::vector<std::uint32_t>{0x3F80u, 0xC000u, 0x0001u}));
  EXPECT_EQ(input_bits(WideType::kFp16, half), (std::vector<std::uint32_t>{0x3F80u, 0xC000u, 0x0001u}));
  EXPECT_TRUE(input_bits(WideType::kFp32, {}).empty());
}

}  // namespace
}  // namespace mxv::check
