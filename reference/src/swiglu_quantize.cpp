// SwiGLU fused with NVFP4 quantization, and the unfused pair it must match (docs/semantics.md
// section 6). The activation is swiglu.h's fixed fp32 order; quantization is the block-models
// quantizer (quantize.h), called on the activated tensor, so both models share one quantizer
// and differ only in what they hand it.
#include "mxv/reference/swiglu_quantize.h"

#include <stdexcept>
#include <string>

#include "mxv/reference/wide_float.h"

namespace mxv {
namespace {

void validate_recipe(const Recipe& recipe) {
  recipe.validate();
  if (!recipe.is_nvfp4()) {
    throw std::invalid_argument("recipe: swiglu-quantize produces NVFP4; '" +
                                std::string(recipe.name) + "' is not an NVFP4 recipe");
  }
}

QuantizeOptions quantize_options(const SwigluQuantizeOptions& options) {
  // A given amax is a magnitude; 0, Inf and NaN are left to the recipe's TensorAmaxPolicy.
  if (options.tensor_amax && *options.tensor_amax < 0.0f) {
    throw std::invalid_argument("tensor_amax: a given tensor amax must not be negative, got " +
                                std::to_string(*options.tensor_amax));
  }
  return options;
}

}  // namespace

SwigluQuantized swiglu_quantize_fused(const Recipe& recipe, const GateUpView& input,
                                      const SwigluQuantizeOptions& options) {
  validate_recipe(recipe);
  SwigluQuantized out;
  out.activated = swiglu(input, options.layout, SwigluActivation::from_recipe(recipe));
  if (recipe.intermediate == Intermediate::kBf16) {
    // The fused kernel rounds each activated value to bf16 (RNE) in registers and quantizes
    // the widened value: exactly what the unfused pair reads back from memory.
    for (float& v : out.activated) v = bf16_to_float(float_to_bf16(v));
  }
  out.quantized = quantize_activations(recipe, out.activated, static_cast<std::int64_t>(input.rows),
                                       static_cast<std::int64_t>(input.intermediate),
                                       quantize_options(options));
  return out;
}

SwigluQuantized swiglu_quantize_unfused(const Recipe& recipe, const GateUpView& input,
                                        const SwigluQuantizeOptions& options) {
  validate_recipe(recipe);
  // Kernel 1: swiglu -> bf16 tensor in memory (little-endian bytes, as a kernel writes it).
  const std::vector<std::uint16_t> bf16 =
      swiglu_to_bf16(input, options.layout, SwigluActivation::from_recipe(recipe));
  std::vector<std::uint8_t> bytes(bf16.size() * 2);
  for (std::size_t i = 0; i < bf16.size(); ++i) {
    bytes[2 * i] = static_cast<std::uint8_t>(bf16[i] & 0xFFu);
    bytes[2 * i + 1] = static_cast<std::uint8_t>(bf16[i] >> 8);
  }
  // Kernel 2: the activation quantizer on the bf16 tensor.
  SwigluQuantized out;
  out.activated.resize(bf16.size());
  for (std::size_t i = 0; i < bf16.size(); ++i) out.activated[i] = bf16_to_float(bf16[i]);
  out.quantized = quantize_activations(recipe, WideType::kBf16, bytes,
                                       static_cast<std::int64_t>(input.rows),
                                       static_cast<std::int64_t>(input.intermediate),
                                       quantize_options(options));
  return out;
}

}  // namespace mxv
