// Weight layouts (docs/semantics.md section 5.1, "Packing axis"): K-packed [E, N, K/2] and N-packed
// [E, K, N/2] dequantize to the same [E, N, K], checked against an independent index model
// written here (logical codes placed by their own formula), not only against each other.
#include "mxv/reference/weight_layout.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace mxv {
namespace {

// E2M1 value table, written out (OCP MX v1.0 section 5.3.3).
const float kE2m1[16] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6};

// Independent placement: byte and nibble of (e, n, k) per layout.
void place(std::vector<std::uint8_t>& buf, std::size_t byte, int nibble, std::uint8_t code) {
  buf[byte] = static_cast<std::uint8_t>(buf[byte] | (nibble == 0 ? code : code << 4));
}

RC_GTEST_PROP(WeightLayout, KPackedAndNPackedAgreeWithIndexModel, ()) {
  const bool nvfp4 = *rc::gen::arbitrary<bool>();
  const Recipe r = nvfp4 ? Recipe::nvfp4_te() : Recipe::mxfp4_ocp();
  const std::size_t E = *rc::gen::inRange<std::size_t>(1, 3);
  const std::size_t N = 2 * *rc::gen::inRange<std::size_t>(1, 5);
  const std::size_t K = 2 * *rc::gen::inRange<std::size_t>(1, 40);
  const std::size_t B = static_cast<std::size_t>(r.block_size);
  const std::size_t KB = (K + B - 1) / B;
  const auto codes = *rc::gen::container<std::vector<std::uint8_t>>(E * N * K, rc::gen::inRange<std::uint8_t>(0, 16));
  // Scales: NVFP4 UE4M3 0x30..0x40 (0.5 .. 2); MX E8M0 120..134.
  const auto scales = *rc::gen::container<std::vector<std::uint8_t>>(
      E * N * KB, nvfp4 ? rc::gen::inRange<std::uint8_t>(0x30, 0x41) : rc::gen::inRange<std::uint8_t>(120, 135));
  std::vector<float> s_dec;
  for (std::size_t e = 0; e < E; ++e) s_dec.push_back(0.25f * static_cast<float>(e + 1));

  std::vector<std::uint8_t> kp(E * N * K / 2, 0), np(E * K * N / 2, 0);
  for (std::size_t e = 0; e < E; ++e) {
    for (std::size_t n = 0; n < N; ++n) {
      for (std::size_t k = 0; k < K; ++k) {
        const std::uint8_t c = codes[(e * N + n) * K + k];
        place(kp, e * N * K / 2 + n * K / 2 + k / 2, static_cast<int>(k % 2), c);
        place(np, e * K * N / 2 + k * N / 2 + n / 2, static_cast<int>(n % 2), c);
      }
    }
  }
  const WeightShape shape{static_cast<std::int64_t>(E), static_cast<std::int64_t>(N), static_cast<std::int64_t>(K)};
  const auto a = dequantize_weights(r, WeightPacking::kKPacked, shape, kp, scales, s_dec);
  const auto b = dequantize_weights(r, WeightPacking::kNPacked, shape, np, scales, s_dec);
  RC_ASSERT(a.size() == E * N * K);
  for (std::size_t e = 0; e < E; ++e) {
    for (std::size_t n = 0; n < N; ++n) {
      for (std::size_t k = 0; k < K; ++k) {
        const std::size_t i = (e * N + n) * K + k;
        const std::uint8_t sc = scales[(e * N + n) * KB + k / B];
        // Scale value by its own formula: UE4M3 normal 2^(E-7) * (1 + M/8); E8M0 2^(c-127).
        const float scale = nvfp4 ? std::ldexp(1.0f + static_cast<float>(sc & 7) / 8.0f, (sc >> 3) - 7)
                                  : std::ldexp(1.0f, static_cast<int>(sc) - 127);
        float want = kE2m1[codes[i]] * scale;
        if (nvfp4) want *= s_dec[e];
        RC_ASSERT(std::bit_cast<std::uint32_t>(a[i]) == std::bit_cast<std::uint32_t>(want));
        RC_ASSERT(std::bit_cast<std::uint32_t>(b[i]) == std::bit_cast<std::uint32_t>(want));
      }
    }
  }
}

// bf16 / fp16 outputs are the fp32 result rounded once: 6 * 2^0 * ... = exact values here.
TEST(WeightLayout, OutputTypesAndBadShapes) {
  const Recipe r = Recipe::mxfp4_ocp();
  const WeightShape s{1, 2, 2};
  const std::vector<std::uint8_t> packed = {0x71, 0xA2};  // n0: k0 0.5, k1 6; n1: k0 1, k1 -1
  const std::vector<std::uint8_t> scales = {128, 127};    // n0 x2, n1 x1
  const auto f = dequantize_weights(r, WeightPacking::kKPacked, s, packed, scales, {});
  EXPECT_EQ(f, (std::vector<float>{1.0f, 12.0f, 1.0f, -1.0f}));
  const auto bf = dequantize_weights_to(r, WeightPacking::kKPacked, s, packed, scales, {}, WideType::kBf16);
  EXPECT_EQ(bf, (std::vector<std::uint8_t>{0x80, 0x3F, 0x40, 0x41, 0x80, 0x3F, 0x80, 0xBF}));
  // N-packed [E, K, N/2]: byte (k0) = n0 | n1 << 4 = 0x1 | 0x2 << 4, byte (k1) = 0x7 | 0xA << 4.
  const std::vector<std::uint8_t> npacked = {0x21, 0xA7};
  EXPECT_EQ(dequantize_weights(r, WeightPacking::kNPacked, s, npacked, scales, {}), f);
  EXPECT_THROW(dequantize_weights(r, WeightPacking::kKPacked, WeightShape{1, 2, 3}, packed, scales, {}),
               std::invalid_argument);
  EXPECT_THROW(dequantize_weights(r, WeightPacking::kKPacked, s, std::vector<std::uint8_t>(3), scales, {}),
               std::invalid_argument);
  EXPECT_THROW(dequantize_weights(Recipe::mxfp8_ocp(), WeightPacking::kKPacked, s, packed, scales, {}),
               std::invalid_argument);
  EXPECT_THROW(weight_packing_by_name("x"), std::invalid_argument);
}

// A shape whose byte count does not fit in 64 bits is an error naming the factors, never a
// wrapped-around size (E = 2^20, N = K = 2^32: E*N*K = 2^84).
TEST(WeightLayout, ShapesTooLargeFor64BitsAreRefused) {
  const WeightShape huge{std::int64_t{1} << 20, std::int64_t{1} << 32, std::int64_t{1} << 32};
  EXPECT_THROW(packed_weight_bytes(WeightPacking::kKPacked, huge), std::invalid_argument);
  EXPECT_THROW(weight_scale_bytes(Recipe::mxfp4_ocp(), huge), std::invalid_argument);
  EXPECT_THROW(dequantize_weights(Recipe::mxfp4_ocp(), WeightPacking::kKPacked, huge, {}, {}, {}), std::invalid_argument);
  // The largest shape that fits still computes: 2^20 * 2^21 * 2^21 / 2 = 2^61 bytes.
  EXPECT_EQ(packed_weight_bytes(WeightPacking::kKPacked, {std::int64_t{1} << 20, std::int64_t{1} << 21, std::int64_t{1} << 21}),
            std::int64_t{1} << 61);
}

}  // namespace
}  // namespace mxv
