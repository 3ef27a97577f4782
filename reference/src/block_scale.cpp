// Block scale rules, docs/semantics.md section 4. Each NVFP4 order is written as the exact sequence
// of fp32 operations of the library it models (see recipe.cpp for the citations); a change of
// parenthesisation here is a change of recipe.
#include "mxv/reference/block_scale.h"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <string>

#include "mxv/reference/wide_float.h"

namespace mxv {
namespace {

constexpr float kNvfp4AmaxToScale = 2688.0f;  // 448 (E4M3 max) * 6 (E2M1 max)

constexpr ConvertMode kE4m3Rn{Rounding::kNearestEven, Saturation::kFinite, Dialect::kCuda};
// torch's .to(torch.float8_e4m3fn) as of torch 2.15 (the captures' release): nearest-even, a NaN
// keeps its sign. The libraries clamp to +-448 first, so torch@2.11's NaN on overflow and 2.15's
// saturation agree on every value they pass.
constexpr ConvertMode kTorchE4m3{Rounding::kNearestEven, Saturation::kFinite, Dialect::kTorch};

bool is_library_order(Nvfp4Order order) {
  return order == Nvfp4Order::kModelopt || order == Nvfp4Order::kTorchao || order == Nvfp4Order::kTorchaoReciprocal;
}

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

float from_bits(std::uint32_t u) { return std::bit_cast<float>(u); }

// torch.clamp(v, lo, hi): a NaN stays NaN (and keeps its bits).
float torch_clamp(float v, float lo, float hi) { return std::isnan(v) ? v : std::fmin(std::fmax(v, lo), hi); }

// Mantissa bits of the element format: 1 (E2M1) or 3 (E4M3).
int element_mantissa_bits(const Recipe& recipe) { return recipe.element == ElementFormat::kFp4E2M1 ? 1 : 3; }

// torchao to_mx FLOOR / CEIL / EVEN: the biased code from the fp32 fields of amax, exactly as
// mx_tensor.py computes it on int32 bit patterns (NaN handled by the caller).
std::uint8_t torchao_exponent_code(const Recipe& recipe, float amax) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(amax);
  const int mbits = element_mantissa_bits(recipe);
  if (recipe.scale_rule == ScaleRule::kTorchaoEven) {
    // Round the mantissa at the element's width, keep sign and exponent (mask 0xFF800000).
    bits = (bits + (1u << (22 - mbits))) & 0xFF800000u;
  }
  int exponent = static_cast<int>((bits >> 23) & 0xFFu) - 127;
  if (recipe.scale_rule == ScaleRule::kTorchaoCeil && (bits & 0x7FFFFFu) != 0) exponent += 1;
  int unbiased = exponent - element_emax(recipe);
  unbiased = std::clamp(unbiased, -127, 128);  // 128 "captures NaN": an Inf amax gives 0xFD / 0xF7
  return static_cast<std::uint8_t>(unbiased + 127);
}

// torchao _to_mx_rceil (CPU eager): code = clamp(ceil(log2(amax / elem_max)), -127, 127) + 127.
// torch.log2 on fp32 is modelled as the correctly rounded log2 (the captures hold it to torch's).
std::uint8_t torchao_rceil_code(float descale) {
  if (std::isnan(descale)) return 0xFF;
  if (std::isinf(descale)) return 0xFE;
  const float l = static_cast<float>(std::log2(static_cast<double>(descale)));
  const float c = std::ceil(l);
  const float clamped = std::fmin(std::fmax(c, -127.0f), 127.0f);
  return static_cast<std::uint8_t>(static_cast<int>(clamped) + 127);
}

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
  if (is_library_order(recipe.order)) {
    // ModelOpt get_weights_scaling_factor_2 / torchao per_tensor_amax_to_scale: amax / (6 * 448)
    // in fp32, with no guard: amax 0 gives s_dec 0, Inf gives Inf, NaN gives NaN, and the block
    // arithmetic that follows is IEEE (docs/conformance.md lists what each library then stores).
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
    } else if (recipe.scale_rule == ScaleRule::kNvidiaRoundUp || recipe.scale_rule == ScaleRule::kTe) {
      // nvidia: E8M0 round-up of amax * fl(1/elem_max); fl(1/6) = 0x3E2AAAAB, fl(1/448) = 0x3B124925.
      const float inv_max = 1.0f / recipe.element_max();
      s.scale_input = amax * inv_max;
      s.code = encode(kE8M0, s.scale_input,
                      ConvertMode{Rounding::kUp, Saturation::kFinite, recipe.dialect});
      if (recipe.scale_rule == ScaleRule::kTe) {
        // TE exp2f_rcp: (254 - code) << 23 as fp32 bits, and 1.0 for code 0.
        s.divides = false;
        if (s.code == 0x00) {
          s.factor = 1.0f;
        } else {
          s.factor = from_bits(static_cast<std::uint32_t>(254 - static_cast<int>(s.code)) << 23);
        }
        return s;
      }
    } else if (recipe.scale_rule == ScaleRule::kTorchaoRceil || recipe.scale_rule == ScaleRule::kTorchaoRceil017) {
      const float descale = amax / recipe.element_max();  // fp32 division, not a reciprocal
      s.scale_input = descale;
      s.code = torchao_rceil_code(descale);
      s.divides = false;
      if (s.code == 0x00) {
        s.factor = 1.0f;  // torch.where(exponent == 0, 1.0, ...)
      } else if (s.code == 0xFF) {
        // 0.18 multiplies by the NaN descale itself; 0.16/0.17 by exp2(127 - 255) = 2^-128.
        s.factor = recipe.scale_rule == ScaleRule::kTorchaoRceil ? descale : pow2(-128);
        s.nan_factor_wins = recipe.scale_rule == ScaleRule::kTorchaoRceil;
      } else {
        s.factor = pow2(127 - static_cast<int>(s.code));
      }
      return s;
    } else {
      // torchao FLOOR / CEIL / EVEN.
      s.scale_input = amax;
      s.code = std::isnan(amax) ? std::uint8_t{0xFF} : torchao_exponent_code(recipe, amax);
      // scale_fp32 = (code << 23) as fp32 bits, clamped up to 2^-126: 0x00 divides by 2^-126,
      // 0xFF by +Inf.
      s.factor = std::fmax(from_bits(static_cast<std::uint32_t>(s.code) << 23), pow2(-126));
      return s;
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
    case Nvfp4Order::kTorchao:
    case Nvfp4Order::kTorchaoReciprocal: {
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
  if (recipe.scale_clamp == ScaleClamp::kE4m3Range) {
    s.scale_input = torch_clamp(s.scale_input, pow2(-9), 448.0f);  // after the zero-block rule
  }
  float sf = 0.0f;
  if (recipe.scale_decode == ScaleDecode::kSignedE4m3) {
    s.code = encode(kE4M3, s.scale_input, kTorchE4m3);
    sf = decode_scale(recipe, s.code);  // torch's fp8 -> fp32, NaN bits included
  } else {
    s.code = encode(kUE4M3, s.scale_input, sf_mode);
    sf = decode(kUE4M3, s.code);
  }
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
    case Nvfp4Order::kTorchaoReciprocal:
      s.factor = (1.0f / tensor.s_dec) / sf;  // overflows to Inf when s_dec < 2^-128
      break;
  }
  return s;
}

float prescale(const BlockScale& scale, float x) {
  if (scale.nan_factor_wins && std::isnan(scale.factor)) return scale.factor;
  return scale.divides ? x / scale.factor : x * scale.factor;
}

namespace {

// ModelOpt NVFP4QTensor._cast_fp4: the magnitude's bucket among the E2M1 midpoints
// {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5} (torch.searchsorted, left side: a value on a midpoint
// goes down), plus one on the midpoints 0.75, 1.75 and 3.5 (so every tie rounds to even), and the
// sign bit from x < 0 (-0 and NaN get none).
std::uint8_t modelopt_e2m1(float v) {
  constexpr float kBounds[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
  const float a = std::fabs(v);
  std::uint8_t ord = 0;
  if (std::isnan(a)) {
    ord = 7;  // searchsorted puts NaN after every bound (it sorts NaN last)
  } else {
    while (ord < 7 && kBounds[ord] < a) ++ord;
  }
  const bool on_odd_bound = a == 0.75f || a == 1.75f || a == 3.5f;
  return static_cast<std::uint8_t>((v < 0.0f ? 0x8 : 0x0) + ord + (on_odd_bound ? 1 : 0));
}

// torchao custom_fp_utils._f32_to_floatx_unpacked for E2M1 (ebits 2, mbits 1): finite values are
// nearest-even with saturation (the cuda encoder's results); a NaN goes through the "normal"
// branch, so its code is computed from its bits: ((|bits| - (126 << 23) + 0x1FFFFF + odd) >> 22)
// truncated to 8 bits, with the sign in bit 3.
std::uint8_t torchao_e2m1(float v, Dialect dialect) {
  if (!std::isnan(v)) {
    return static_cast<std::uint8_t>(encode(kE2M1, v, ConvertMode{Rounding::kNearestEven, Saturation::kFinite, dialect}) & 0x0Fu);
  }
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(v);
  const std::uint32_t magnitude = bits & 0x7FFFFFFFu;
  const std::uint32_t odd = (magnitude >> 22) & 1u;
  const std::uint32_t normal = magnitude - (126u << 23) + 0x1FFFFFu + odd;
  const auto code = static_cast<std::uint8_t>((normal >> 22) & 0xFFu);
  return static_cast<std::uint8_t>((code | ((bits >> 31) << 3)) & 0x0Fu);
}

}  // namespace

std::uint8_t element_code(const Recipe& recipe, float prescaled) {
  const ConvertMode mode{Rounding::kNearestEven, Saturation::kFinite, recipe.dialect};
  switch (recipe.element_encoder) {
    case ElementEncoder::kDialect:
      break;
    case ElementEncoder::kModelopt:
      return modelopt_e2m1(prescaled);
    case ElementEncoder::kTorchao: {
      const float m = recipe.element_max();
      const float v = torch_clamp(prescaled, -m, m);
      if (recipe.element == ElementFormat::kFp8E4M3) return encode(kE4M3, v, kTorchE4m3);
      return torchao_e2m1(v, recipe.dialect);
    }
  }
  if (recipe.element == ElementFormat::kFp8E4M3) return encode(kE4M3, prescaled, mode);
  return static_cast<std::uint8_t>(encode(kE2M1, prescaled, mode) & 0x0Fu);
}

float decode_scale(const Recipe& recipe, std::uint8_t code) {
  if (recipe.is_nvfp4() && recipe.scale_decode == ScaleDecode::kSignedE4m3) {
    // torch's float8_e4m3fn -> float32 (c10 fp8e4m3fn_to_fp32_value) moves the byte's bits into
    // place, so the NaN codes 0x7F / 0xFF become the NaNs 0x7FF00000 / 0xFFF00000, not the
    // canonical quiet NaN; the libraries' dequantized NaNs carry those bits.
    if ((code & 0x7Fu) == 0x7Fu) return std::bit_cast<float>(0x7FF00000u | (static_cast<std::uint32_t>(code >> 7) << 31));
    return decode(kE4M3, code);
  }
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
  const auto nibble = static_cast<std::uint8_t>(code & 0x0Fu);
  if (nibble == 0x8 && recipe.e2m1_negative_zero_decodes_positive) return 0.0f;
  return decode(kE2M1, nibble);
}

namespace {
// torch's fp32 -> bf16 (c10::BFloat16 round_to_nearest_even) and back: nearest-even, NaN -> 0x7FC0.
float torch_bf16(float x) { return std::isnan(x) ? std::bit_cast<float>(0x7FC00000u) : bf16_to_float(float_to_bf16(x)); }
}  // namespace

float dequantize_value(const Recipe& recipe, std::uint8_t element, std::uint8_t scale_code, float s_dec) {
  const float e = decode_element(recipe, element);
  const float sf = decode_scale(recipe, scale_code);
  if (!recipe.is_nvfp4()) return e * sf;
  switch (recipe.dequant_order) {
    case DequantOrder::kElemScaleThenGlobal: return (e * sf) * s_dec;
    case DequantOrder::kElemTimesScaleProduct: return e * (sf * s_dec);
    case DequantOrder::kElemTimesBf16ScaleProduct: {
      // torch multiplies the 0-dim fp32 pts by the bf16 scales in bf16: pts is rounded to bf16
      // first, the product of the two bf16 values is rounded again, and every NaN comes out as
      // torch's canonical bf16 NaN 0x7FC0.
      const float product = torch_bf16(torch_bf16(s_dec) * torch_bf16(sf));
      return e * product;
    }
  }
  return (e * sf) * s_dec;
}

}  // namespace mxv
