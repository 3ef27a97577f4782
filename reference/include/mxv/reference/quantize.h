// Activation quantization [M, K] -> packed elements + block scales + per-tensor scale, for every
// recipe (MXFP4, NVFP4, MXFP8): docs/semantics.md sections 4 (block scaling) and 5 (layouts).
//
// Output layout (all row-major, little-endian):
//   elements  E2M1: [M, ceil(K/2)] bytes, element 2i in bits [3:0], 2i+1 in [7:4]; with K odd the
//             unused high nibble of a row's last byte is 0. E4M3 (MXFP8): [M, K] bytes.
//   scales    one byte per (row, block), blocks of recipe.block_size along K; ceil(K/block) per
//             row; linear [M, ceil(K/block)] or swizzled 128x4 (scale_layout.h), padding 0.
//   tensor    NVFP4: amax and the fp32 decode scale s_dec (dequant = elem * sf * s_dec). Grouped
//             rows may carry one tensor scale per group (QuantizeOptions::scale_per_group).
// Partial last block (K % block != 0): PartialBlock::kZeroPadded. The missing elements count as
// +0 for the amax (so they never change it) and are not stored.
// Inputs bf16/fp16 are widened exactly to fp32 first; there is no other intermediate rounding.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "mxv/reference/block_scale.h"
#include "mxv/reference/rcp_approx.h"
#include "mxv/reference/recipe.h"
#include "mxv/reference/scale_layout.h"
#include "mxv/reference/vocabulary.h"

namespace mxv {

/// Widens raw little-endian values of `type` to fp32, exactly. `bytes.size()` must be a
/// multiple of bytes_of(type) (throws).
std::vector<float> widen_to_fp32(WideType type, std::span<const std::uint8_t> bytes);
/// Rounds fp32 values to `type` (RNE) and returns their little-endian bytes.
std::vector<std::uint8_t> narrow_from_fp32(WideType type, std::span<const float> values);

struct QuantizeOptions {
  ScaleLayout scale_layout = ScaleLayout::kLinear;
  /// Grouped (MoE) rows: per-expert row counts summing to M. Empty: one group of M rows.
  std::vector<std::int64_t> group_counts;
  /// NVFP4: compute a tensor scale per group (per-expert global scale) instead of one for all.
  bool scale_per_group = false;
  /// NVFP4: use this tensor amax instead of max |x| (a calibrated amax). With scale_per_group,
  /// it applies to every group.
  std::optional<float> tensor_amax;
  /// Needed by recipes with Reciprocal::kRcpApproxTable; else the MXV_RCP_APPROX_TABLE one.
  const RcpApproxTable* rcp_table = nullptr;
};

/// Everything quantization produced, with the intermediates the check library needs
/// (check.h Context: pre_rounding per element, block_amax and block_scale per block).
struct QuantizedActivations {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t scale_cols = 0;        // ceil(cols / block)
  int element_bits = 4;               // 4: packed E2M1; 8: E4M3 bytes
  ScaleLayout scale_layout = ScaleLayout::kLinear;
  GroupedRows groups;
  std::vector<std::uint8_t> elements;  // see the file comment
  std::vector<std::uint8_t> scales;    // in scale_layout, padding 0
  std::vector<TensorScale> tensor;     // one per group if scale_per_group, else one

  // Intermediates, logical order (row-major, no padding).
  std::vector<std::uint8_t> scale_codes;  // [rows, scale_cols]: the codes before the layout
  std::vector<float> block_amax;          // [rows, scale_cols]
  std::vector<float> scale_input;         // [rows, scale_cols]: fp32 value rounded to the scale code
  std::vector<float> prescaled;           // [rows, cols]: fp32 value rounded to each element code

  /// Element code of (row, col) (a nibble for E2M1).
  std::uint8_t element(std::int64_t row, std::int64_t col) const;
  /// The tensor scale that applies to `row`.
  const TensorScale& tensor_scale_of(std::int64_t row) const;
};

/// Bytes of one packed element row: ceil(cols/2) for E2M1, cols for E4M3.
std::int64_t element_row_bytes(const Recipe& recipe, std::int64_t cols);

/// Quantizes fp32 activations [rows, cols] (row-major). Validates the recipe, the shapes
/// (rows >= 0, cols >= 1, input size rows*cols, group counts summing to rows) and throws
/// std::invalid_argument naming the argument.
QuantizedActivations quantize_activations(const Recipe& recipe, std::span<const float> input, std::int64_t rows,
                                          std::int64_t cols, const QuantizeOptions& options = {});

/// The same for raw little-endian input of any wide type (widened exactly to fp32 first).
QuantizedActivations quantize_activations(const Recipe& recipe, WideType type, std::span<const std::uint8_t> input,
                                          std::int64_t rows, std::int64_t cols, const QuantizeOptions& options = {});

}  // namespace mxv
