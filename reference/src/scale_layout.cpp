// Scale layouts, docs/semantics.md section 5. The swizzle is the formula of that section written
// out once; grouped rows reuse it on a matrix whose expert regions are each padded to 128 rows (a
// whole number of 128-row tiles each, so every expert's scales occupy their own tiles).
#include "mxv/reference/scale_layout.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mxv {
namespace {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t round_up(std::int64_t a, std::int64_t b) { return ceil_div(a, b) * b; }
}  // namespace

std::int64_t scale_cols(std::int64_t k, int block_size) { return ceil_div(k, block_size); }

std::int64_t swizzled_offset(std::int64_t b, std::int64_t r, std::int64_t k, std::int64_t rows, std::int64_t kb) {
  const std::int64_t n_r = ceil_div(rows, 128);
  const std::int64_t n_k = ceil_div(kb, 4);
  return b * n_r * n_k * 512 + (r / 128) * n_k * 512 + (k / 4) * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 + k % 4;
}

std::int64_t swizzled_size(std::int64_t batch, std::int64_t rows, std::int64_t kb) {
  return batch * round_up(rows, 128) * round_up(kb, 4);
}

GroupedRows GroupedRows::from_counts(std::span<const std::int64_t> counts) {
  if (counts.empty()) throw std::invalid_argument("group counts: at least one group is needed");
  GroupedRows g;
  for (std::size_t e = 0; e < counts.size(); ++e) {
    if (counts[e] < 0) {
      throw std::invalid_argument("group counts: count[" + std::to_string(e) + "] = " + std::to_string(counts[e]) +
                                  " must be >= 0");
    }
    g.counts.push_back(counts[e]);
    g.starts.push_back(g.total_rows);
    g.padded_starts.push_back(g.padded_rows);
    g.total_rows += counts[e];
    g.padded_rows += round_up(counts[e], 128);
  }
  return g;
}

GroupedRows GroupedRows::single(std::int64_t rows) {
  const std::int64_t c[1] = {rows};
  return from_counts(c);
}

std::size_t GroupedRows::group_of(std::int64_t row) const {
  if (row < 0 || row >= total_rows) {
    throw std::invalid_argument("row " + std::to_string(row) + " is outside [0, " + std::to_string(total_rows) + ")");
  }
  // The last group whose start is <= row. An empty group shares its start with the next group,
  // so upper_bound steps past it: the group found always holds the row.
  const auto it = std::upper_bound(starts.begin(), starts.end(), row);
  return static_cast<std::size_t>(it - starts.begin()) - 1;
}

std::int64_t scale_offset(ScaleLayout layout, const GroupedRows& groups, std::int64_t row, std::int64_t k,
                          std::int64_t kb) {
  if (layout == ScaleLayout::kLinear) return row * kb + k;
  const std::size_t g = groups.group_of(row);
  const std::int64_t padded_row = groups.padded_starts[g] + (row - groups.starts[g]);
  return swizzled_offset(0, padded_row, k, groups.padded_rows, kb);
}

std::int64_t scale_buffer_size(ScaleLayout layout, const GroupedRows& groups, std::int64_t kb) {
  if (layout == ScaleLayout::kLinear) return groups.total_rows * kb;
  return groups.padded_rows * round_up(kb, 4);
}

std::vector<std::uint8_t> arrange_scales(ScaleLayout layout, const GroupedRows& groups,
                                         std::span<const std::uint8_t> linear, std::int64_t kb) {
  if (static_cast<std::int64_t>(linear.size()) != groups.total_rows * kb) {
    throw std::invalid_argument("arrange_scales: linear scales must have rows*kb = " +
                                std::to_string(groups.total_rows * kb) + " bytes, got " +
                                std::to_string(linear.size()));
  }
  std::vector<std::uint8_t> out(static_cast<std::size_t>(scale_buffer_size(layout, groups, kb)), 0);
  for (std::int64_t r = 0; r < groups.total_rows; ++r) {
    for (std::int64_t k = 0; k < kb; ++k) {
      out[static_cast<std::size_t>(scale_offset(layout, groups, r, k, kb))] = linear[static_cast<std::size_t>(r * kb + k)];
    }
  }
  return out;
}

std::vector<std::uint8_t> gather_scales(ScaleLayout layout, const GroupedRows& groups,
                                        std::span<const std::uint8_t> arranged, std::int64_t kb) {
  const std::int64_t want = scale_buffer_size(layout, groups, kb);
  if (static_cast<std::int64_t>(arranged.size()) != want) {
    throw std::invalid_argument("scales: a " + std::string(to_string(layout)) + " scale buffer for these shapes has " +
                                std::to_string(want) + " bytes, got " + std::to_string(arranged.size()));
  }
  std::vector<std::uint8_t> out(static_cast<std::size_t>(groups.total_rows * kb));
  for (std::int64_t r = 0; r < groups.total_rows; ++r) {
    for (std::int64_t k = 0; k < kb; ++k) {
      out[static_cast<std::size_t>(r * kb + k)] = arranged[static_cast<std::size_t>(scale_offset(layout, groups, r, k, kb))];
    }
  }
  return out;
}

}  // namespace mxv
