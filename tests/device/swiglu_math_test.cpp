// The device SwiGLU arithmetic's portable exp (device/include/mxv/device/kernels/swiglu_math.h,
// host branch: the one the emulator runs) against the reference's (reference/portable_exp.h), bit
// for bit: every input where step 0 decides (NaN, the overflow and underflow bounds and their fp32
// neighbours, infinities, zeros, subnormals) and a strided sample of all 2^32 fp32 patterns.
#include "mxv/device/kernels/swiglu_math.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "mxv/reference/portable_exp.h"

namespace {

using mxv::device::swiglu_math::exp_portable;

/// "" when the two agree on `bits`, else a message naming the input and both results.
std::string disagreement(std::uint32_t bits) {
  const float x = std::bit_cast<float>(bits);
  const std::uint32_t device = std::bit_cast<std::uint32_t>(exp_portable(x));
  const std::uint32_t reference = std::bit_cast<std::uint32_t>(mxv::portable_exp(x));
  if (device == reference) return {};
  char buf[128];
  std::snprintf(buf, sizeof buf, "exp(0x%08X): device 0x%08X, reference 0x%08X", bits, device, reference);
  return buf;
}

TEST(SwigluMathExp, StepZeroCasesAndTheirNeighbours) {
  std::vector<float> centres = {0x1.62e42ep+6f, -104.0f, 0.0f, -0.0f, std::numeric_limits<float>::max(),
                                -std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(),
                                -std::numeric_limits<float>::denorm_min(), 1.0f, -1.0f, 88.0f, -87.0f, -103.0f};
  std::vector<std::uint32_t> inputs = {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u, 0x7F800001u,
                                       0xFF800001u, 0x7FFFFFFFu, 0xFFFFFFFFu, 0x7FA00000u};
  for (float c : centres) {
    const auto b = std::bit_cast<std::uint32_t>(c);
    for (std::uint32_t d = 0; d <= 64; ++d) {
      inputs.push_back(b + d);
      inputs.push_back(b - d);
    }
  }
  for (std::uint32_t bits : inputs) EXPECT_EQ(disagreement(bits), "");
}

TEST(SwigluMathExp, StridedSampleOfEveryFp32Pattern) {
  constexpr std::uint64_t kStride = 257;  // coprime with 2^32: every exponent, varied mantissas
  std::uint64_t checked = 0;
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += kStride, ++checked) {
    const std::string d = disagreement(static_cast<std::uint32_t>(b));
    ASSERT_EQ(d, "");
  }
  std::printf("%llu inputs (stride %llu) equal the reference\n", static_cast<unsigned long long>(checked),
              static_cast<unsigned long long>(kStride));
}

}  // namespace
