// Weight dequantization for the K-packed and N-packed MoE layouts (docs/semantics.md section 5).
#include "mxv/reference/weight_layout.h"

#include <stdexcept>
#include <string>

#include "mxv/io/checked_size.h"
#include "mxv/reference/block_scale.h"
#include "mxv/reference/scale_layout.h"

namespace mxv {

std::int64_t packed_weight_bytes(WeightPacking packing, const WeightShape& s) {
  if (s.experts < 1 || s.n < 1 || s.k < 1) {
    throw std::invalid_argument("weight shape: experts, n and k must be >= 1, got " + std::to_string(s.experts) +
                                ", " + std::to_string(s.n) + ", " + std::to_string(s.k));
  }
  if (packing == WeightPacking::kKPacked && s.k % 2 != 0) {
    throw std::invalid_argument("weight shape: k-packed weights need an even K, got " + std::to_string(s.k));
  }
  if (packing == WeightPacking::kNPacked && s.n % 2 != 0) {
    throw std::invalid_argument("weight shape: n-packed weights need an even N, got " + std::to_string(s.n));
  }
  return io::SizeProduct("weight shape: E*N*K").times(s.experts, "E").times(s.n, "N").times(s.k, "K").value() / 2;
}

std::int64_t weight_scale_bytes(const Recipe& recipe, const WeightShape& s) {
  return io::SizeProduct("weight scales: E*N*ceil(K/block)").times(s.experts, "E").times(s.n, "N")
      .times(scale_cols(s.k, recipe.block_size), "ceil(K/block)").value();
}

std::vector<float> dequantize_weights(const Recipe& recipe, WeightPacking packing, const WeightShape& s,
                                      std::span<const std::uint8_t> packed, std::span<const std::uint8_t> scales,
                                      std::span<const float> s_dec) {
  recipe.validate();
  if (recipe.element != ElementFormat::kFp4E2M1) {
    throw std::invalid_argument("recipe '" + std::string(recipe.name) + "': weight dequantization needs E2M1 elements");
  }
  const std::int64_t want_packed = packed_weight_bytes(packing, s);
  if (static_cast<std::int64_t>(packed.size()) != want_packed) {
    throw std::invalid_argument("weights: expected " + std::to_string(want_packed) + " bytes for " +
                                std::string(to_string(packing)) + ", got " + std::to_string(packed.size()));
  }
  const std::int64_t kb = scale_cols(s.k, recipe.block_size);
  const std::int64_t want_scales = weight_scale_bytes(recipe, s);
  if (static_cast<std::int64_t>(scales.size()) != want_scales) {
    throw std::invalid_argument("weight scales: expected E*N*ceil(K/block) = " + std::to_string(want_scales) +
                                " bytes, got " + std::to_string(scales.size()));
  }
  if (recipe.is_nvfp4() && s_dec.size() != 1 && static_cast<std::int64_t>(s_dec.size()) != s.experts) {
    throw std::invalid_argument("global scale: NVFP4 weights need one s_dec or one per expert, got " +
                                std::to_string(s_dec.size()));
  }
  std::vector<float> out(static_cast<std::size_t>(s.experts * s.n * s.k));
  for (std::int64_t e = 0; e < s.experts; ++e) {
    const float dec = recipe.is_nvfp4() ? (s_dec.size() == 1 ? s_dec[0] : s_dec[static_cast<std::size_t>(e)]) : 1.0f;
    for (std::int64_t n = 0; n < s.n; ++n) {
      for (std::int64_t k = 0; k < s.k; ++k) {
        std::int64_t byte_index;
        std::int64_t nibble;
        if (packing == WeightPacking::kKPacked) {
          byte_index = e * s.n * (s.k / 2) + n * (s.k / 2) + k / 2;
          nibble = k % 2;
        } else {
          byte_index = e * s.k * (s.n / 2) + k * (s.n / 2) + n / 2;
          nibble = n % 2;
        }
        const std::uint8_t byte = packed[static_cast<std::size_t>(byte_index)];
        const auto code = static_cast<std::uint8_t>(nibble == 0 ? byte & 0x0Fu : byte >> 4);
        const std::uint8_t sc = scales[static_cast<std::size_t>((e * s.n + n) * kb + k / recipe.block_size)];
        out[static_cast<std::size_t>((e * s.n + n) * s.k + k)] = dequantize_value(recipe, code, sc, dec);
      }
    }
  }
  return out;
}

std::vector<std::uint8_t> dequantize_weights_to(const Recipe& recipe, WeightPacking packing, const WeightShape& shape,
                                                std::span<const std::uint8_t> packed,
                                                std::span<const std::uint8_t> scales, std::span<const float> s_dec,
                                                WideType out_type) {
  const std::vector<float> f = dequantize_weights(recipe, packing, shape, packed, scales, s_dec);
  return narrow_from_fp32(out_type, f);
}

}  // namespace mxv
