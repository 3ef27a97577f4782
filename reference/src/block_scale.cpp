// Block scale rules, docs/semantics.md section 4. Each NVFP4 order is written as the exact sequence
// of fp32 operations of the library it models (see recipe.cpp for the citations); a change of
// parenthesisation here is a change of recipe.
#include "mxv/reference/block_scale.h"

#include <bit>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <string>

namespace mxv {
namespace {

constexpr float kNvfp4AmaxToScale = 2688.0f;  // 448 (E4M3 max) * 6 (E2M1 max)

constexpr ConvertMode kE4m3Rn{Rounding::kNearestEven, Saturation::kFinite, Dialect::kCuda};

ConvertMode with_dialect(ConvertMode m, Dialect d) {
  m.dialect = d;
  return m;
}

// The reciprocal the recipe names.
float reciprocal(const Recipe& recipe, float x, const RcpApproxTable* table) {
  if (recipe.reciprocal == Reciprocal::kIeee) return 1.0f / x;
  return require_rcp_approx_table(table, "recipe " + std::string(recipe.name)).rcp(x);
}

// emax of the element format: floor(log2(element max)) = 2 (E2M1, 6) or 8 (E4M3, 448).
int element_emax(const Recipe& recipe) { return recipe.element == ElementFormat::kFp4E2M1 ? 2 : 8; }

// floor(log2 |x|) for finite nonzero x, exact for subnormals too.
int floor_log2(float x) { return std::ilogb(x); }

float pow2(int e) { return std::ldexp(1.0f, e); }  // exact for e in [-149, 127]

}  // namespace

TensorScale tensor_scale(const Recipe& recipe, float amax_tensor) {
  TensorScale t;
  t.amax = amax_tensor;
  if (recipe.global_scale == GlobalScale::kNone) return t;
  const bool bad = !(amax_tensor > 0.0f) || std::isinf(amax_tensor);
  if (recipe.tensor_amax == TensorAmaxPolicy::kReject && bad) {
    throw std::invalid_argument("tensor_amax: recipe '" + std::string(recipe.name) +
                                "' rejects a tensor amax of 0, Inf or NaN, got " + std::to_string(amax_tensor));
  }
  if (recipe.order == Nvfp4Order::kModelopt || recipe.order == Nvfp4Order::kTorchao) {
    if (bad) return t;  // s_enc = s_dec = 1 (documented policy: the libraries would divide by 0)
    t.s_dec = amax_tensor / kNvfp4AmaxToScale;
    t.s_enc = kNvfp4AmaxToScale / amax_tensor;
    return t;
  }
  // TransformerEngine compute_global_encode_scaling_factor_FP4.
  float s_enc = kNvfp4AmaxToScale / amax_tensor;
  s_enc = std::fmin(s_enc, FLT_MAX);  // fminf: Inf -> FLT_MAX, and NaN -> FLT_MAX (NaN dropped)
  if (amax_tensor == 0.0f || s_enc == 0.0f) s_enc = 1.0f;
  t.s_enc = s_enc;
  t.s_dec = 1.0f / s_enc;
  return t;
}

float block_amax(const Recipe& recipe, std::span<const float> block) {
  float amax = 0.0f;
  for (const float x : block) {
    if (std::isnan(x)) {
      if (recipe.nan_in_amax == NanInAmax::kPropagate) return std::bit_cast<float>(0x7fc00000u);
      continue;
    }
    amax = std::fmax(amax, std::fabs(x));
  }
  return amax;
}

BlockScale choose_block_scale(const Recipe& recipe, float amax, const TensorScale& tensor,
                              const RcpApproxTable* rcp_table) {
  BlockScale s;
  s.amax = amax;
  if (recipe.is_mx()) {
    s.divides = true;
    if (recipe.scale_rule == ScaleRule::kOcpFloor) {
      s.scale_input = amax;
      if (std::isnan(amax) || std::isinf(amax)) {
        s.code = 0xFF;  // no finite shared exponent: the NaN scale
      } else if (amax == 0.0f) {
        s.code = 0x00;  // OCP clamps the exponent of a zero block to the minimum, -127
      } else {
        int x = floor_log2(amax) - element_emax(recipe);
        if (x < -127) x = -127;  // cannot exceed 127: floor(log2 FLT_MAX) - 2 = 125
        s.code = static_cast<std::uint8_t>(x + 127);
      }
    } else {
      // nvidia: E8M0 round-up of amax * fl(1/elem_max); fl(1/6) = 0x3E2AAAAB, fl(1/448) = 0x3B124925.
      const float inv_max = 1.0f / recipe.element_max();
      s.scale_input = amax * inv_max;
      s.code = encode(kE8M0, s.scale_input,
                      ConvertMode{Rounding::kUp, Saturation::kFinite, recipe.dialect});
    }
    s.factor = s.code == 0xFF ? std::bit_cast<float>(0x7fc00000u) : pow2(static_cast<int>(s.code) - 127);
    return s;
  }

  // NVFP4: UE4M3 block scale, then the element multiplier (or divisor) of the order.
  const ConvertMode sf_mode = with_dialect(kE4m3Rn, recipe.dialect);
  const float s_enc = tensor.s_enc;
  switch (recipe.order) {
    case Nvfp4Order::kTe:
    case Nvfp4Order::kCutlassRef:
      s.scale_input = amax * (s_enc * (1.0f / 6.0f));
      break;
    case Nvfp4Order::kTrtllm:
      s.scale_input = s_enc * (amax * reciprocal(recipe, 6.0f, rcp_table));
      break;
    case Nvfp4Order::kModelopt:
      s.scale_input = amax / (6.0f * tensor.s_dec);
      break;
    case Nvfp4Order::kTorchao: {
      const float v = (amax / 6.0f) / tensor.s_dec;
      // torch.clamp(v, min=2^-6, max=448); clamp keeps NaN.
      s.scale_input = std::isnan(v) ? v : std::fmin(std::fmax(v, 0.015625f), 448.0f);
      break;
    }
  }
  if (s.scale_input == 0.0f) {
    if (recipe.zero_block == ZeroBlock::kScaleOne) s.scale_input = 1.0f;
    if (recipe.zero_block == ZeroBlock::kScaleMinNormal) s.scale_input = 0.015625f;  // 2^-6
  }
  s.code = encode(kUE4M3, s.scale_input, sf_mode);
  const float sf = decode(kUE4M3, s.code);
  switch (recipe.order) {
    case Nvfp4Order::kTe:
      s.factor = std::fmin(1.0f / (sf * tensor.s_dec), FLT_MAX);
      break;
    case Nvfp4Order::kCutlassRef:
      s.factor = std::fmin(s_enc * (1.0f / sf), FLT_MAX);
      break;
    case Nvfp4Order::kTrtllm:
      // outputScale = SFValue != 0 ? rcp(SFValue * rcp(SFScaleVal)) : 0
      s.factor = sf != 0.0f ? reciprocal(recipe, sf * reciprocal(recipe, s_enc, rcp_table), rcp_table) : 0.0f;
      break;
    case Nvfp4Order::kModelopt:
    case Nvfp4Order::kTorchao:
      s.factor = sf * tensor.s_dec;
      s.divides = true;
      break;
  }
  return s;
}

float prescale(const BlockScale& scale, float x) { return scale.divides ? x / scale.factor : x * scale.factor; }

std::uint8_t element_code(const Recipe& recipe, float prescaled) {
  const ConvertMode mode{Rounding::kNearestEven, Saturation::kFinite, recipe.dialect};
  if (recipe.element == ElementFormat::kFp8E4M3) return encode(kE4M3, prescaled, mode);
  if (recipe.is_nvfp4() && recipe.order == Nvfp4Order::kModelopt && prescaled == 0.0f) return 0x0;
  return static_cast<std::uint8_t>(encode(kE2M1, prescaled, mode) & 0x0Fu);
}

float decode_scale(const Recipe& recipe, std::uint8_t code) {
  if (recipe.is_nvfp4()) return decode(kUE4M3, code);
  if (recipe.e8m0_decode == E8m0Decode::kOrtQmoe) {
    if (code == 0x00) return 0.0f;
    if (code == 0xFF) return INFINITY;
  }
  if (recipe.flush_e8m0_zero && code == 0x00) return 0.0f;
  return decode(kE8M0, code);
}

float decode_element(const Recipe& recipe, std::uint8_t code) {
  if (recipe.element == ElementFormat::kFp8E4M3) return decode(kE4M3, code);
  return decode(kE2M1, static_cast<std::uint8_t>(code & 0x0Fu));
}

float dequantize_value(const Recipe& recipe, std::uint8_t element, std::uint8_t scale_code, float s_dec) {
  const float product = decode_element(recipe, element) * decode_scale(recipe, scale_code);
  return recipe.is_nvfp4() ? product * s_dec : product;
}

}  // namespace mxv
