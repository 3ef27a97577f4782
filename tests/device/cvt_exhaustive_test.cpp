// The software E2M1 encoders of the device conversion primitives (device/include/mxv/device/
// cvt.h) over every one of the 2^32 fp32 inputs, held to the reference encoder (an independent
// algorithm: reference/src/float_format.cpp). These encoders run in the quantize and fused SwiGLU
// kernels on sm_90 and in the emulator, where a single wrong code among four billion inputs would
// be a silent kernel bug that sampled tests are unlikely to hit.
//  - e2m1_from_f32_sw_branchless: every input, NaN included.
//  - e2m1_magnitude_biased_sat, the sign put back: every input that is not NaN (its domain).
//  - e2m1_magnitude_biased: every input below 7 in magnitude (its domain; the kernels call it
//    where the block scale proves that bound, fp4_block::e2m1_may_saturate).
// Two threads, each sweeping half of the patterns in chunks that the reference encodes in batch.
#include "mxv/device/cvt.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "mxv/reference/float_format.h"

namespace {

using namespace mxv::device;

// First disagreement in [first, first + count) as a message, or "" when every code agrees.
std::string sweep(std::uint64_t first, std::uint64_t count) {
  constexpr std::uint64_t kChunk = std::uint64_t{1} << 20;
  std::vector<std::uint8_t> want(kChunk);
  char buf[160];
  for (std::uint64_t base = first; base < first + count; base += kChunk) {
    mxv::encode_fp32_pattern_range(mxv::kE2M1, static_cast<std::uint32_t>(base), want);
    for (std::uint64_t j = 0; j < kChunk; ++j) {
      const auto bits = static_cast<std::uint32_t>(base + j);
      const float x = std::bit_cast<float>(bits);
      const unsigned general = cvt::e2m1_from_f32_sw_branchless(x);
      if (general != want[j]) {
        std::snprintf(buf, sizeof buf, "e2m1_from_f32_sw_branchless(0x%08X) = 0x%X, reference 0x%X", bits, general, want[j]);
        return buf;
      }
      const std::uint32_t abs_bits = bits & 0x7FFFFFFFu;
      const float magnitude = std::bit_cast<float>(abs_bits);
      const unsigned sign = (bits >> 28) & 0x8u;
      if (abs_bits <= 0x7F800000u) {
        const unsigned sat = sign | (cvt::e2m1_magnitude_biased_sat(magnitude) - cvt::kE2m1Biased);
        if (sat != want[j]) {
          std::snprintf(buf, sizeof buf, "e2m1_magnitude_biased_sat, sign put back (0x%08X) = 0x%X, reference 0x%X",
                        bits, sat, want[j]);
          return buf;
        }
      }
      if (magnitude < 7.0f) {
        const unsigned unsat = sign | (cvt::e2m1_magnitude_biased(magnitude) - cvt::kE2m1Biased);
        if (unsat != want[j]) {
          std::snprintf(buf, sizeof buf, "e2m1_magnitude_biased, sign put back (0x%08X) = 0x%X, reference 0x%X", bits,
                        unsat, want[j]);
          return buf;
        }
      }
    }
  }
  return {};
}

TEST(CvtExhaustive, E2M1SoftwareEncodersEqualTheReferenceOnEveryFp32Input) {
  constexpr std::uint64_t kHalf = std::uint64_t{1} << 31;
  std::string low, high;
  std::thread t([&] { high = sweep(kHalf, kHalf); });
  low = sweep(0, kHalf);
  t.join();
  EXPECT_EQ(low, "");
  EXPECT_EQ(high, "");
}

}  // namespace
