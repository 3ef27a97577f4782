// Tests of gate_up_bytes.h: fp32 and fp16 bytes are widened to fp32, bf16 bytes are viewed as
// their bits, and either way the view reads back the values the bytes hold.
#include "mxv/reference/gate_up_bytes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace mxv {
namespace {

// One row, I = 2: gate 1.0, 2.0 and up -3.0, 0.5 in each wide type's little-endian bytes.
const std::vector<float> kValues = {1.0f, 2.0f, -3.0f, 0.5f};

void expect_values(const GateUpView& view) {
  ASSERT_EQ(view.rows, 1u);
  ASSERT_EQ(view.intermediate, 2u);
  for (std::size_t c = 0; c < kValues.size(); ++c) EXPECT_EQ(view.at(0, c), kValues[c]) << c;
}

TEST(GateUpBytes, Fp32IsReadAsIs) {
  const std::vector<std::uint8_t> bytes = {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0x40,
                                           0x00, 0x00, 0x40, 0xC0, 0x00, 0x00, 0x00, 0x3F};
  const GateUpBytes g(WideType::kFp32, bytes, 1, 2);
  EXPECT_TRUE(g.view().bf16.empty());
  expect_values(g.view());
}

TEST(GateUpBytes, Bf16IsViewedAsItsBits) {
  const std::vector<std::uint8_t> bytes = {0x80, 0x3F, 0x00, 0x40, 0x40, 0xC0, 0x00, 0x3F};
  const GateUpBytes g(WideType::kBf16, bytes, 1, 2);
  EXPECT_EQ(g.view().bf16.size(), 4u);
  EXPECT_EQ(g.view().bf16[2], 0xC040u);
  expect_values(g.view());
}

TEST(GateUpBytes, Fp16IsWidened) {
  const std::vector<std::uint8_t> bytes = {0x00, 0x3C, 0x00, 0x40, 0x00, 0xC2, 0x00, 0x38};
  const GateUpBytes g(WideType::kFp16, bytes, 1, 2);
  EXPECT_TRUE(g.view().bf16.empty());
  expect_values(g.view());
}

}  // namespace
}  // namespace mxv
