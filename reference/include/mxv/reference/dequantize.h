// Activation dequantization: packed elements + block scales (any layout) + tensor scale -> fp32
// [M, K]. docs/semantics.md section 4.5: one multiplication order for every recipe, in fp32:
//   MX:    x' = fp32(elem) * fp32(scale)
//   NVFP4: x' = (fp32(elem) * fp32(sf)) * s_dec
// fp32(elem) * fp32(sf) is exact (E2M1 has 2 significant bits, UE4M3 4), so x' is rounded once;
// narrowing to bf16/fp16 (narrow_from_fp32) is a second, separate rounding the caller asks for.
// Scale codes decode with the recipe's quirks (E8M0 0x00 -> 2^-127, or 0 for ort_qmoe /
// flush_e8m0_zero; 0xFF -> NaN, or +Inf for ort_qmoe).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "mxv/reference/quantize.h"
#include "mxv/reference/recipe.h"
#include "mxv/reference/scale_layout.h"

namespace mxv {

/// Dequantizes [rows, cols] from `elements` (layout of quantize.h), `scales` (in `layout`, for
/// `groups`), and `s_dec` (NVFP4: one per group or one for all; MX: ignored, may be empty).
/// Validates every size and throws std::invalid_argument naming the buffer.
std::vector<float> dequantize_activations(const Recipe& recipe, std::span<const std::uint8_t> elements,
                                          std::span<const std::uint8_t> scales, std::int64_t rows, std::int64_t cols,
                                          ScaleLayout layout, const GroupedRows& groups, std::span<const float> s_dec);

/// Dequantizes the outputs of quantize_activations.
std::vector<float> dequantize_activations(const Recipe& recipe, const QuantizedActivations& q);

}  // namespace mxv
