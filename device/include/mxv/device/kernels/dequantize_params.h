// Parameters and per-element arithmetic shared by the two weight-dequantize kernels
// (dequantize_scalar.h, dequantize_tiled.h). docs/semantics.md sections 4.5 and 5.1
// ("Packing axis"): FP4 (E2M1) weights with MXFP4 (E8M0 scale per 32 k) or NVFP4 (UE4M3 scale per
// 16 k, times a per-expert fp32 s_dec) block scales, packed along K ([E, N, K/2]) or along N
// ([E, K, N/2], ONNX Runtime QMoE), scales [E, N, ceil(K/block)], output [E, N, K] in fp32, bf16
// or fp16:
//   value = fp32(elem) * fp32(scale)            (MX)
//   value = (fp32(elem) * fp32(scale)) * s_dec  (NVFP4)
// in fp32, rounded once to the output type. fp32(elem) * fp32(scale) is exact (2 and 4
// significant bits), so only the s_dec multiply and the narrowing round.
#pragma once

#include <cstdint>

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"
#include "mxv/reference/vocabulary.h"

namespace mxv::device {

/// How the block-scale bytes decode.
enum class DequantScale : std::uint8_t {
  kE8M0,         ///< MXFP4: 2^(c-127); 0x00 = 2^-127 (fp32 subnormal), 0xFF = NaN
  kE8M0OrtQmoe,  ///< ONNX Runtime QMoE quirk: 0x00 -> 0.0, 0xFF -> +Inf
  kE8M0Flushed,  ///< a flush-to-zero device: 0x00 -> 0.0, 0xFF -> NaN
  kUE4M3,        ///< NVFP4: E4M3 value (sign bit ignored: UE4M3 has none), times s_dec[e]
};

struct DequantizeParams {
  /// kKPacked: [E, N, K/2], byte (e*N + n)*(K/2) + k/2, nibble k%2;
  /// kNPacked: [E, K, N/2], byte (e*K + k)*(N/2) + n/2, nibble n%2.
  WeightPacking packing = WeightPacking::kKPacked;
  DequantScale scale = DequantScale::kUE4M3;
  WideType out_type = WideType::kFp32;
  std::uint32_t experts = 0, n = 0, k = 0;
  std::uint32_t block_shift = 4;  ///< log2(block size): 4 (NVFP4, 16) or 5 (MX, 32)
  std::uint32_t scale_cols = 0;   ///< ceil(K / block)
  bool s_dec_per_expert = false;  ///< NVFP4: s_dec[e] (true) or s_dec[0] for all experts
  GlobalPtr<std::uint8_t> packed{};
  GlobalPtr<std::uint8_t> scales{};
  GlobalPtr<float> s_dec{};       ///< NVFP4 only
  GlobalPtr<std::uint8_t> out{};  ///< [E, N, K] of out_type
};

namespace dequant_detail {

/// An fp32 multiply whose NaN results follow x86 SSE mulss (what the reference produces on the
/// CPU): a NaN operand propagates quieted (first operand first); an invalid product (0 * Inf)
/// gives the "default NaN" 0xFFC00000. A GPU would return 0x7FFFFFFF for both; making the NaN
/// explicit keeps kernel == reference byte for byte on both machines. Non-NaN results are the
/// plain IEEE product.
MXV_HD MXV_FORCEINLINE float mul_ref_nan(float a, float b) {
  const float r = a * b;
  if (r == r) return r;
  if (a != a) return cvt::float_of(cvt::bits_of(a) | 0x00400000u);
  if (b != b) return cvt::float_of(cvt::bits_of(b) | 0x00400000u);
  return cvt::float_of(0xFFC00000u);
}

MXV_HD MXV_FORCEINLINE float decode_scale(DequantScale s, std::uint32_t code) {
  switch (s) {
    case DequantScale::kE8M0: return cvt::f32_from_e8m0(static_cast<std::uint8_t>(code));
    case DequantScale::kE8M0OrtQmoe:
      if (code == 0u) return 0.0f;
      if (code == 0xFFu) return cvt::float_of(0x7F800000u);
      return cvt::f32_from_e8m0(static_cast<std::uint8_t>(code));
    case DequantScale::kE8M0Flushed:
      return code == 0u ? 0.0f : cvt::f32_from_e8m0(static_cast<std::uint8_t>(code));
    case DequantScale::kUE4M3: return cvt::f32_from_e4m3(static_cast<std::uint8_t>(code & 0x7Fu));
  }
  return 0.0f;
}

/// The block's multiplier pair: scale value and s_dec (1 for MX, never multiplied then).
struct BlockFactor {
  float scale;
  float s_dec;
  bool nvfp4;
};

MXV_HD MXV_FORCEINLINE float dequant_value(std::uint32_t nibble, const BlockFactor& f) {
  const float product = mul_ref_nan(cvt::f32_from_e2m1(nibble), f.scale);
  return f.nvfp4 ? mul_ref_nan(product, f.s_dec) : product;
}

template <class Ctx>
MXV_HD MXV_FORCEINLINE float load_s_dec(Ctx& ctx, const DequantizeParams& p, std::uint32_t e) {
  if (p.scale != DequantScale::kUE4M3) return 1.0f;
  return ctx.load(p.s_dec, p.s_dec_per_expert ? e : 0u);
}

/// Narrowed bits of one output value (fp32 bits, or bf16 / fp16 bits in the low half).
MXV_HD MXV_FORCEINLINE std::uint32_t narrow_bits(WideType t, float v) {
  switch (t) {
    case WideType::kFp32: return cvt::bits_of(v);
    case WideType::kBf16: return cvt::bf16_from_f32(v);
    case WideType::kFp16: return cvt::fp16_from_f32(v);
  }
  return 0;
}

}  // namespace dequant_detail
}  // namespace mxv::device
