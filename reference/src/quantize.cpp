// Activation quantization, docs/semantics.md sections 4-5: per block, the amax under the recipe's
// NaN policy, the block scale (block_scale.cpp), then each element prescaled in fp32 and converted;
// scales placed by scale_layout.cpp. The partial last block is zero-padded for the amax.
#include "mxv/reference/quantize.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "mxv/reference/wide_float.h"

namespace mxv {

std::vector<float> widen_to_fp32(WideType type, std::span<const std::uint8_t> bytes) {
  const std::size_t w = bytes_of(type);
  if (bytes.size() % w != 0) {
    throw std::invalid_argument("input: " + std::to_string(bytes.size()) + " bytes is not a whole number of " +
                                std::string(to_string(type)) + " values");
  }
  std::vector<float> out(bytes.size() / w);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint8_t* p = bytes.data() + i * w;
    if (type == WideType::kFp32) {
      const std::uint32_t u = static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
                              (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
      out[i] = std::bit_cast<float>(u);
    } else {
      const auto h = static_cast<std::uint16_t>(p[0] | (p[1] << 8));
      out[i] = type == WideType::kBf16 ? bf16_to_float(h) : fp16_to_float(h);
    }
  }
  return out;
}

std::vector<std::uint8_t> narrow_from_fp32(WideType type, std::span<const float> values) {
  std::vector<std::uint8_t> out(values.size() * bytes_of(type));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (type == WideType::kFp32) {
      const auto u = std::bit_cast<std::uint32_t>(values[i]);
      for (int b = 0; b < 4; ++b) out[i * 4 + static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(u >> (8 * b));
    } else {
      const std::uint16_t h = type == WideType::kBf16 ? float_to_bf16(values[i]) : float_to_fp16(values[i]);
      out[i * 2] = static_cast<std::uint8_t>(h & 0xFFu);
      out[i * 2 + 1] = static_cast<std::uint8_t>(h >> 8);
    }
  }
  return out;
}

std::int64_t element_row_bytes(const Recipe& recipe, std::int64_t cols) {
  return recipe.element == ElementFormat::kFp4E2M1 ? (cols + 1) / 2 : cols;
}

std::uint8_t QuantizedActivations::element(std::int64_t row, std::int64_t col) const {
  if (element_bits == 8) return elements[static_cast<std::size_t>(row * cols + col)];
  const std::uint8_t byte = elements[static_cast<std::size_t>(row * ((cols + 1) / 2) + col / 2)];
  return static_cast<std::uint8_t>(col % 2 == 0 ? byte & 0x0Fu : byte >> 4);
}

const TensorScale& QuantizedActivations::tensor_scale_of(std::int64_t row) const {
  return tensor.size() == 1 ? tensor[0] : tensor[groups.group_of(row)];
}

namespace {

// max |x| over rows [first, first + count) under the recipe's NaN policy.
float tensor_amax_of(const Recipe& recipe, std::span<const float> input, std::int64_t first, std::int64_t count,
                     std::int64_t cols) {
  return block_amax(recipe, input.subspan(static_cast<std::size_t>(first * cols), static_cast<std::size_t>(count * cols)));
}

}  // namespace

QuantizedActivations quantize_activations(const Recipe& recipe, std::span<const float> input, std::int64_t rows,
                                          std::int64_t cols, const QuantizeOptions& options) {
  recipe.validate();
  if (rows < 0) throw std::invalid_argument("rows: must be >= 0, got " + std::to_string(rows));
  if (cols < 1) throw std::invalid_argument("cols: must be >= 1, got " + std::to_string(cols));
  if (static_cast<std::int64_t>(input.size()) != rows * cols) {
    throw std::invalid_argument("input: expected rows*cols = " + std::to_string(rows * cols) + " values, got " +
                                std::to_string(input.size()));
  }
  QuantizedActivations q;
  q.rows = rows;
  q.cols = cols;
  q.scale_layout = options.scale_layout;
  q.element_bits = recipe.element_bits();
  q.groups = options.group_counts.empty() ? GroupedRows::single(rows) : GroupedRows::from_counts(options.group_counts);
  if (q.groups.total_rows != rows) {
    throw std::invalid_argument("group counts: they sum to " + std::to_string(q.groups.total_rows) +
                                " but the input has " + std::to_string(rows) + " rows");
  }
  const int block = recipe.block_size;
  const std::int64_t kb = scale_cols(cols, block);
  q.scale_cols = kb;

  // Tensor scale(s): one for all rows, or one per group.
  const std::size_t n_groups = options.scale_per_group ? q.groups.counts.size() : 1;
  for (std::size_t g = 0; g < n_groups; ++g) {
    const std::int64_t first = options.scale_per_group ? q.groups.starts[g] : 0;
    const std::int64_t count = options.scale_per_group ? q.groups.counts[g] : rows;
    const float amax = options.tensor_amax ? *options.tensor_amax : tensor_amax_of(recipe, input, first, count, cols);
    q.tensor.push_back(tensor_scale(recipe, amax));
  }

  const auto n_blocks = static_cast<std::size_t>(rows * kb);
  q.scale_codes.resize(n_blocks);
  q.block_amax.resize(n_blocks);
  q.scale_input.resize(n_blocks);
  q.prescaled.resize(static_cast<std::size_t>(rows * cols));
  const std::int64_t row_bytes = element_row_bytes(recipe, cols);
  q.elements.assign(static_cast<std::size_t>(rows * row_bytes), 0);

  for (std::int64_t r = 0; r < rows; ++r) {
    const TensorScale& ts = q.tensor_scale_of(r);
    for (std::int64_t b = 0; b < kb; ++b) {
      const std::int64_t k0 = b * block;
      const std::int64_t n = std::min<std::int64_t>(block, cols - k0);  // partial last block
      const auto blk = input.subspan(static_cast<std::size_t>(r * cols + k0), static_cast<std::size_t>(n));
      const float amax = block_amax(recipe, blk);
      const BlockScale s = choose_block_scale(recipe, amax, ts, options.rcp_table);
      const auto bi = static_cast<std::size_t>(r * kb + b);
      q.scale_codes[bi] = s.code;
      q.block_amax[bi] = amax;
      q.scale_input[bi] = s.scale_input;
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t k = k0 + i;
        const float p = prescale(s, blk[static_cast<std::size_t>(i)]);
        q.prescaled[static_cast<std::size_t>(r * cols + k)] = p;
        const std::uint8_t code = element_code(recipe, p);
        if (recipe.element == ElementFormat::kFp8E4M3) {
          q.elements[static_cast<std::size_t>(r * row_bytes + k)] = code;
        } else {
          auto& byte = q.elements[static_cast<std::size_t>(r * row_bytes + k / 2)];
          byte = static_cast<std::uint8_t>(byte | (k % 2 == 0 ? code : code << 4));
        }
      }
    }
  }
  q.scales = arrange_scales(options.scale_layout, q.groups, q.scale_codes, kb);
  return q;
}

QuantizedActivations quantize_activations(const Recipe& recipe, WideType type, std::span<const std::uint8_t> input,
                                          std::int64_t rows, std::int64_t cols, const QuantizeOptions& options) {
  const std::vector<float> wide = widen_to_fp32(type, input);
  return quantize_activations(recipe, wide, rows, cols, options);
}

}  // namespace mxv
