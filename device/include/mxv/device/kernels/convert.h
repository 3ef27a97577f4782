// The `convert` kernel body: elementwise fp32/bf16/fp16 <-> E4M3 / E2M1 (packed pairs) / E8M0
// codes (docs/semantics.md sections 1-2, `cuda` dialect, satfinite). Every conversion goes through
// the device primitives of cvt.h (PTX cvt where the target has it, software elsewhere), so running
// this kernel over all 2^32 fp32 inputs compares the target's conversions with the reference.
//
// One thread per "unit": a unit is one element, except for E2M1 where it is one packed byte (two
// elements: element 2i in bits [3:0], 2i+1 in [7:4]; an odd count leaves the last high nibble 0
// on encode and writes only the one real element on decode).
//
// Exhaustive sweeps read no input: with `input_is_index` element i's input bits are
// `index_base + i` (truncated to 16 bits for bf16/fp16), so a 2^32 sweep is 16 launches of 2^28
// elements without 16 GiB of inputs.
#pragma once

#include <cstdint>

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"

namespace mxv::device {

/// Which way a convert launch goes.
enum class ConvertDirection : std::uint8_t {
  kEncode,  ///< wide (fp32/bf16/fp16) -> codes
  kDecode,  ///< codes -> wide (exact to fp32; bf16/fp16 rounded from fp32, RNE)
};

/// The wide side of a conversion.
enum class WideType : std::uint8_t { kF32, kBf16, kF16 };

/// The code side. E8M0 encodes round toward zero (floor log2) or up (ceil log2): there is no
/// nearest-even E8M0 cvt (docs/semantics.md section 2).
enum class CodeFormat : std::uint8_t { kE4M3, kE2M1, kE8M0Rz, kE8M0Rp };

inline constexpr unsigned kConvertBlockThreads = 256;

/// Arguments of one convert launch (built by the host launcher in convert.h).
struct ConvertParams {
  ConvertDirection direction = ConvertDirection::kEncode;
  WideType wide = WideType::kF32;
  CodeFormat format = CodeFormat::kE4M3;
  std::uint64_t count = 0;     ///< elements
  std::uint64_t units = 0;     ///< threads with work: count, or ceil(count / 2) for E2M1
  bool input_is_index = false; ///< encode only: element i's input bits are index_base + i
  std::uint32_t index_base = 0;
  GlobalPtr<std::uint8_t> in{};   ///< wide elements (encode) or codes (decode); unused with input_is_index
  GlobalPtr<std::uint8_t> out{};  ///< codes (encode) or wide elements (decode)
};

namespace convert_detail {

template <class T>
MXV_HD MXV_FORCEINLINE GlobalPtr<T> retype(GlobalPtr<std::uint8_t> p) {
  return {reinterpret_cast<T*>(p.raw)};
}

/// Element i of the wide input, widened exactly to fp32.
template <class Ctx>
MXV_HD MXV_FORCEINLINE float load_wide(Ctx& ctx, const ConvertParams& p, std::uint64_t i) {
  if (p.input_is_index) {
    const std::uint32_t bits = p.index_base + static_cast<std::uint32_t>(i);
    switch (p.wide) {
      case WideType::kF32: return cvt::float_of(bits);
      case WideType::kBf16: return cvt::f32_from_bf16(static_cast<std::uint16_t>(bits & 0xFFFFu));
      case WideType::kF16: return cvt::f32_from_fp16(static_cast<std::uint16_t>(bits & 0xFFFFu));
    }
  }
  switch (p.wide) {
    case WideType::kF32: return ctx.load(retype<float>(p.in), i);
    case WideType::kBf16: return cvt::f32_from_bf16(ctx.load(retype<std::uint16_t>(p.in), i));
    case WideType::kF16: return cvt::f32_from_fp16(ctx.load(retype<std::uint16_t>(p.in), i));
  }
  return 0.0f;
}

template <class Ctx>
MXV_HD MXV_FORCEINLINE void store_wide(Ctx& ctx, const ConvertParams& p, std::uint64_t i, float v) {
  switch (p.wide) {
    case WideType::kF32: ctx.store(retype<float>(p.out), i, v); return;
    case WideType::kBf16: ctx.store(retype<std::uint16_t>(p.out), i, cvt::bf16_from_f32(v)); return;
    case WideType::kF16: ctx.store(retype<std::uint16_t>(p.out), i, cvt::fp16_from_f32(v)); return;
  }
}

MXV_HD MXV_FORCEINLINE std::uint8_t encode_one(CodeFormat f, float x) {
  switch (f) {
    case CodeFormat::kE4M3: return cvt::e4m3_from_f32(x);
    case CodeFormat::kE2M1: return cvt::e2m1_from_f32(x);
    case CodeFormat::kE8M0Rz: return cvt::e8m0_rz_from_f32(x);
    case CodeFormat::kE8M0Rp: return cvt::e8m0_rp_from_f32(x);
  }
  return 0;
}

MXV_HD MXV_FORCEINLINE float decode_one(CodeFormat f, std::uint8_t code) {
  switch (f) {
    case CodeFormat::kE4M3: return cvt::f32_from_e4m3(code);
    case CodeFormat::kE2M1: return cvt::f32_from_e2m1(code);
    case CodeFormat::kE8M0Rz:
    case CodeFormat::kE8M0Rp: return cvt::f32_from_e8m0(code);
  }
  return 0.0f;
}

}  // namespace convert_detail

/// One thread per unit; blocks of kConvertBlockThreads along x, grid.x = ceil(units / block).
template <class Ctx>
MXV_HD void convert_body(Ctx& ctx, const ConvertParams& p) {
  using namespace convert_detail;
  const std::uint64_t unit = std::uint64_t{ctx.block_idx().x} * ctx.block_dim().x + ctx.thread_idx().x;
  if (unit >= p.units) return;
  const GlobalPtr<std::uint8_t> codes = p.direction == ConvertDirection::kEncode ? p.out : p.in;

  if (p.format == CodeFormat::kE2M1) {
    const std::uint64_t lo = 2 * unit;
    const bool has_hi = lo + 1 < p.count;
    if (p.direction == ConvertDirection::kEncode) {
      const float x_lo = load_wide(ctx, p, lo);
      const float x_hi = has_hi ? load_wide(ctx, p, lo + 1) : 0.0f;
      ctx.store(codes, unit, cvt::e2m1x2_from_f32(x_hi, x_lo));  // operand a (x_hi) -> bits [7:4]
    } else {
      const std::uint32_t byte = ctx.load(codes, unit);
      store_wide(ctx, p, lo, cvt::f32_from_e2m1(byte & 0xFu));
      if (has_hi) store_wide(ctx, p, lo + 1, cvt::f32_from_e2m1(byte >> 4));
    }
    return;
  }
  if (p.direction == ConvertDirection::kEncode) {
    ctx.store(codes, unit, encode_one(p.format, load_wide(ctx, p, unit)));
  } else {
    store_wide(ctx, p, unit, decode_one(p.format, ctx.load(codes, unit)));
  }
}

}  // namespace mxv::device
