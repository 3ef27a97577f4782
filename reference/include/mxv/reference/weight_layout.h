// MoE expert weight layouts and their dequantization to [E, N, K]. docs/semantics.md section 5
// ("Packing axis"): weights pack along K ([E, N, K/2], most GEMM libraries) or, in ONNX Runtime
// QMoE, along N ([E, K, N/2]); scales are [E, N, ceil(K/block)] in both, one per block of K of
// one output row n. The dequantized output is [E, N, K] (ORT's layout) in fp32, bf16 or fp16:
// value = fp32(elem) * fp32(scale) [* s_dec[e]] in fp32 (ONNX Runtime computes fp4 * scale *
// global in fp32), rounded once to the output type.
//
// Byte and nibble of logical element (e, n, k):
//   K-packed: byte e*N*(K/2) + n*(K/2) + k/2, nibble k%2 (0 = bits [3:0])
//   N-packed: byte e*K*(N/2) + k*(N/2) + n/2, nibble n%2
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "mxv/reference/quantize.h"
#include "mxv/reference/recipe.h"
#include "mxv/reference/vocabulary.h"

namespace mxv {

struct WeightShape {
  std::int64_t experts = 1;
  std::int64_t n = 0;  // output features
  std::int64_t k = 0;  // reduction axis
};

/// Bytes of the packed weights: E*N*K/2. Throws std::invalid_argument when the packed axis is
/// odd (K for K-packed, N for N-packed) or a dimension is < 1.
std::int64_t packed_weight_bytes(WeightPacking packing, const WeightShape& shape);
/// Bytes of the scales: E * N * ceil(K/block).
std::int64_t weight_scale_bytes(const Recipe& recipe, const WeightShape& shape);

/// Dequantizes packed E2M1 weights (MXFP4 or NVFP4 recipes) to fp32 [E, N, K]. `s_dec` has one
/// value per expert for NVFP4 (or one for all), and is ignored for MX. Validates every size.
std::vector<float> dequantize_weights(const Recipe& recipe, WeightPacking packing, const WeightShape& shape,
                                      std::span<const std::uint8_t> packed, std::span<const std::uint8_t> scales,
                                      std::span<const float> s_dec);

/// The same, rounded once to `out_type`; returns little-endian bytes.
std::vector<std::uint8_t> dequantize_weights_to(const Recipe& recipe, WeightPacking packing, const WeightShape& shape,
                                                std::span<const std::uint8_t> packed,
                                                std::span<const std::uint8_t> scales, std::span<const float> s_dec,
                                                WideType out_type);

}  // namespace mxv
