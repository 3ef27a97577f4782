// The correctly rounded operations the kernels' arithmetic is written in
// (device/include/mxv/device/kernels/rounded_arith.h), on the host (the emulator's side; the GPU's
// are the _rn intrinsics): each rounds once, ties to even, and the fused multiply-add is not a
// multiply and an add. Known answers worked by hand.
#include "mxv/device/kernels/rounded_arith.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>

namespace {

namespace q = mxv::device::qrules;

std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }

constexpr float kA = 1.0f + 0x1p-12f;  // a * a = 1 + 2^-11 + 2^-24: half an ulp above 1 + 2^-11

TEST(RoundedArith, MultiplyRoundsAHalfUlpTieToEven) {
  EXPECT_EQ(bits(q::mul_rn(kA, kA)), bits(1.0f + 0x1p-11f));  // 1 + 2^-11 has the even significand
}

TEST(RoundedArith, FusedMultiplyAddRoundsOnce) {
  // The exact product keeps its 2^-24; a multiply then an add would give 0.
  EXPECT_EQ(bits(q::fma_rn(kA, kA, -(1.0f + 0x1p-11f))), bits(0x1p-24f));
}

TEST(RoundedArith, DivideIsCorrectlyRounded) {
  EXPECT_EQ(bits(q::div_rn(1.0f, 3.0f)), 0x3EAAAAABu);  // 1/3 = 0x1.555555...p-2 rounds up
  EXPECT_EQ(bits(q::div_rn(2.0f, 3.0f)), 0x3F2AAAABu);
  EXPECT_EQ(bits(q::div_rn(1.0f, 0.0f)), 0x7F800000u);
  EXPECT_EQ(bits(q::div_rn(1.0f, -0.0f)), 0xFF800000u);
}

}  // namespace
