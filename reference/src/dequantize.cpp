// Activation dequantization, docs/semantics.md section 4.5: (elem * scale) [* s_dec] in fp32.
#include "mxv/reference/dequantize.h"

#include <stdexcept>
#include <string>

#include "mxv/io/checked_size.h"
#include "mxv/reference/block_scale.h"

namespace mxv {

std::vector<float> dequantize_activations(const Recipe& recipe, std::span<const std::uint8_t> elements,
                                          std::span<const std::uint8_t> scales, std::int64_t rows, std::int64_t cols,
                                          ScaleLayout layout, const GroupedRows& groups, std::span<const float> s_dec) {
  recipe.validate();
  if (rows < 0) throw std::invalid_argument("rows: must be >= 0, got " + std::to_string(rows));
  if (cols < 1) throw std::invalid_argument("cols: must be >= 1, got " + std::to_string(cols));
  if (groups.total_rows != rows) {
    throw std::invalid_argument("group counts: they sum to " + std::to_string(groups.total_rows) + " but rows is " +
                                std::to_string(rows));
  }
  const std::int64_t row_bytes = element_row_bytes(recipe, cols);
  const std::int64_t want = io::SizeProduct("elements: rows * row bytes").times(rows, "rows").times(row_bytes).value();
  if (static_cast<std::int64_t>(elements.size()) != want) {
    throw std::invalid_argument("elements: expected rows * " + std::to_string(row_bytes) + " = " + std::to_string(want) +
                                " bytes, got " + std::to_string(elements.size()));
  }
  if (recipe.is_nvfp4() && s_dec.size() != 1 && s_dec.size() != groups.counts.size()) {
    throw std::invalid_argument("global scale: NVFP4 needs one s_dec or one per group (" +
                                std::to_string(groups.counts.size()) + "), got " + std::to_string(s_dec.size()));
  }
  const std::int64_t kb = scale_cols(cols, recipe.block_size);
  const std::vector<std::uint8_t> linear = gather_scales(layout, groups, scales, kb);  // validates the size
  std::vector<float> out(static_cast<std::size_t>(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r) {
    float dec = 1.0f;
    if (recipe.is_nvfp4()) dec = s_dec.size() == 1 ? s_dec[0] : s_dec[groups.group_of(r)];
    for (std::int64_t k = 0; k < cols; ++k) {
      std::uint8_t code;
      if (recipe.element == ElementFormat::kFp8E4M3) {
        code = elements[static_cast<std::size_t>(r * row_bytes + k)];
      } else {
        const std::uint8_t byte = elements[static_cast<std::size_t>(r * row_bytes + k / 2)];
        code = static_cast<std::uint8_t>(k % 2 == 0 ? byte & 0x0Fu : byte >> 4);
      }
      const std::uint8_t sc = linear[static_cast<std::size_t>(r * kb + k / recipe.block_size)];
      out[static_cast<std::size_t>(r * cols + k)] = dequantize_value(recipe, code, sc, dec);
    }
  }
  return out;
}

std::vector<float> dequantize_activations(const Recipe& recipe, const QuantizedActivations& q) {
  std::vector<float> s_dec;
  for (const TensorScale& t : q.tensor) s_dec.push_back(t.s_dec);
  return dequantize_activations(recipe, q.elements, q.scales, q.rows, q.cols, q.scale_layout, q.groups, s_dec);
}

}  // namespace mxv
