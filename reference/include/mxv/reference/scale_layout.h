// Where each block scale byte lives. docs/semantics.md section 5: linear [rows, ceil(K/block)], and
// the swizzled 128x4 layout of cuBLAS block-scaled GEMMs / CUTLASS Sm1xx / TRT-LLM (512-byte
// tiles of 128 rows x 4 scale columns, rows padded to 128, columns to 4, padding bytes zero),
// batched (one swizzled matrix per batch) and grouped (MoE: one swizzled region per expert,
// starting at a row offset padded to 128; per-expert counts need not be multiples of 128).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "mxv/reference/vocabulary.h"

namespace mxv {

/// Number of scale columns for K elements: ceil(K / block).
std::int64_t scale_cols(std::int64_t k, int block_size);

/// The swizzled offset of scale (b, r, k) of a batch of matrices with `rows` rows and `kb`
/// scale columns each (docs/semantics.md section 5, verbatim):
///   off = b*n_r*n_k*512 + (r/128)*n_k*512 + (k/4)*512 + (r%32)*16 + ((r%128)/32)*4 + k%4
/// with n_r = ceil(rows/128), n_k = ceil(kb/4). The kernels (qrules::swizzled_offset) and the check
/// library write it again on purpose, so none checks itself (docs/design.md section 3.7).
std::int64_t swizzled_offset(std::int64_t b, std::int64_t r, std::int64_t k, std::int64_t rows, std::int64_t kb);

/// Bytes of a swizzled batch: batch * ceil(rows/128)*128 * ceil(kb/4)*4.
std::int64_t swizzled_size(std::int64_t batch, std::int64_t rows, std::int64_t kb);

/// Grouped (MoE) rows: expert e owns rows [start[e], start[e] + count[e]) of the compact
/// activation matrix, and scale rows [padded_start[e], padded_start[e] + count[e]) of a scale
/// matrix whose expert regions are each padded to a multiple of 128 rows.
struct GroupedRows {
  std::vector<std::int64_t> counts;
  std::vector<std::int64_t> starts;         // prefix sums of counts
  std::vector<std::int64_t> padded_starts;  // prefix sums of round_up(count, 128)
  std::int64_t total_rows = 0;              // sum of counts
  std::int64_t padded_rows = 0;             // sum of round_up(count, 128)

  /// Validates (every count >= 0, at least one group); throws std::invalid_argument.
  static GroupedRows from_counts(std::span<const std::int64_t> counts);
  /// One group of `rows` rows (a plain matrix).
  static GroupedRows single(std::int64_t rows);
  /// Which group row `row` (of the compact matrix) belongs to.
  std::size_t group_of(std::int64_t row) const;
};

/// Byte offset of the scale of compact row `row`, scale column `k`, in the layout:
///  linear: row * kb + k (grouping does not matter);
///  swizzled: the 128x4 tile layout of a matrix of groups.padded_rows rows with row
///  padded_start[g] + (row - start[g]), i.e. each expert's scales swizzled in its own tiles.
std::int64_t scale_offset(ScaleLayout layout, const GroupedRows& groups, std::int64_t row, std::int64_t k,
                          std::int64_t kb);

/// Total bytes of the scale buffer (linear: total_rows * kb; swizzled: padded_rows * round_up(kb, 4)).
std::int64_t scale_buffer_size(ScaleLayout layout, const GroupedRows& groups, std::int64_t kb);

/// Lays out linear scales [total_rows, kb] into the layout, padding bytes 0.
std::vector<std::uint8_t> arrange_scales(ScaleLayout layout, const GroupedRows& groups,
                                         std::span<const std::uint8_t> linear, std::int64_t kb);
/// The inverse: reads linear scales [total_rows, kb] out of a buffer in the layout (padding
/// ignored). Throws std::invalid_argument if the buffer has the wrong size.
std::vector<std::uint8_t> gather_scales(ScaleLayout layout, const GroupedRows& groups,
                                        std::span<const std::uint8_t> arranged, std::int64_t kb);

}  // namespace mxv
