// The `convert` kernel body: elementwise fp32/bf16/fp16 <-> E4M3 / E2M1 (packed pairs) / E8M0
// codes (docs/semantics.md sections 1-2, `cuda` dialect, satfinite). Every conversion goes through
// the device primitives of cvt.h (PTX cvt where the target has it, software elsewhere), so running
// this kernel over all 2^32 fp32 inputs compares the target's conversions with the reference.
//
// One kernel per (direction, wide type, code format, index mode): convert_visit maps a launch's
// runtime fields to the instantiation, so the hot loop has no test of them.
//
// Mapping (docs/design.md section 5.1). The wide side of every lane access is 16 bytes: a "lane
// group" is kLane = 4 fp32 or 8 bf16/fp16 consecutive elements, and its codes are kLane bytes
// (E4M3, E8M0) or kLane / 2 bytes (E2M1: element 2i in bits [3:0] of byte i, 2i+1 in [7:4]).
// A block of 256 threads covers kConvertSteps * 256 lane groups; in step s thread t takes group
// s * 256 + t, so each warp request reads (or writes) 512 contiguous wide bytes and writes (or
// reads) 32 contiguous runs of codes: every sector it touches is used whole. A thread issues all
// its loads before its first store (the compiler cannot move a load above a store that may alias
// it), so kConvertSteps 16-byte loads are in flight per thread.
//
// Tails and alignment: a group that runs past `count` (the last one of an odd count or of a count
// that is not a multiple of kLane), and every group when the launcher found a buffer not 16-byte
// aligned (`vector` false), goes element by element (one code byte at a time; for E2M1 one packed
// byte = two elements, an odd count leaving the last high nibble 0 on encode and writing only
// the one real element on decode).
//
// Exhaustive sweeps read no input: with `input_is_index` element i's input bits are
// `index_base + i` (truncated to 16 bits for bf16/fp16), so a 2^32 sweep is 16 launches of 2^28
// elements without 16 GiB of inputs.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernel_family.h"
#include "mxv/reference/vocabulary.h"

namespace mxv::device {

/// Which way a convert launch goes.
enum class ConvertDirection : std::uint8_t {
  kEncode,  ///< wide (fp32/bf16/fp16) -> codes
  kDecode,  ///< codes -> wide (exact to fp32; bf16/fp16 rounded from fp32, RNE)
};

/// The code side. E8M0 encodes round toward zero (floor log2) or up (ceil log2): there is no
/// nearest-even E8M0 cvt (docs/semantics.md section 2).
enum class CodeFormat : std::uint8_t { kE4M3, kE2M1, kE8M0Rz, kE8M0Rp };

inline constexpr unsigned kConvertBlockThreads = 256;
/// Lane groups per thread (16-byte wide-side accesses in flight per thread).
inline constexpr unsigned kConvertSteps = 4;

/// Elements of one lane group: one 16-byte access on the wide side.
MXV_HD constexpr unsigned convert_lane_elements(WideType w) { return w == WideType::kFp32 ? 4u : 8u; }
/// Elements one block covers: grid.x = ceil(count / convert_block_elements(wide)).
MXV_HD constexpr std::uint64_t convert_block_elements(WideType w) {
  return std::uint64_t{kConvertBlockThreads} * kConvertSteps * convert_lane_elements(w);
}

/// Arguments of one convert launch (built by the host launcher in convert.h).
struct ConvertParams {
  ConvertDirection direction = ConvertDirection::kEncode;
  WideType wide = WideType::kFp32;
  CodeFormat format = CodeFormat::kE4M3;
  std::uint64_t count = 0;     ///< elements
  bool input_is_index = false; ///< encode only: element i's input bits are index_base + i
  std::uint32_t index_base = 0;
  bool vector = false;  ///< both buffers 16-byte aligned: full lane groups take 16-byte accesses
  GlobalPtr<std::uint8_t> in{};   ///< wide elements (encode) or codes (decode); unused with input_is_index
  GlobalPtr<std::uint8_t> out{};  ///< codes (encode) or wide elements (decode)
};

namespace convert_detail {

template <class T>
MXV_HD MXV_FORCEINLINE GlobalPtr<T> retype(GlobalPtr<std::uint8_t> p) {
  return {reinterpret_cast<T*>(p.raw)};
}

/// An input bit pattern of type kWide (in the low 16 bits for bf16/fp16), widened exactly to fp32.
template <WideType kWide>
MXV_HD MXV_FORCEINLINE float widen(std::uint32_t bits) {
  if constexpr (kWide == WideType::kFp32) {
    return cvt::float_of(bits);
  } else if constexpr (kWide == WideType::kBf16) {
    return cvt::f32_from_bf16(static_cast<std::uint16_t>(bits & 0xFFFFu));
  } else {
    return cvt::f32_from_fp16(static_cast<std::uint16_t>(bits & 0xFFFFu));
  }
}

/// fp32 -> the kWide bit pattern (low 16 bits for bf16/fp16).
template <WideType kWide>
MXV_HD MXV_FORCEINLINE std::uint32_t narrow(float v) {
  if constexpr (kWide == WideType::kFp32) {
    return cvt::bits_of(v);
  } else if constexpr (kWide == WideType::kBf16) {
    return cvt::bf16_from_f32(v);
  } else {
    return cvt::fp16_from_f32(v);
  }
}

/// Two values -> two one-byte codes (`hi` in bits [15:8]); E2M1: one byte (`hi` in [7:4]).
template <CodeFormat kFormat>
MXV_HD MXV_FORCEINLINE std::uint32_t encode_pair(float hi, float lo) {
  if constexpr (kFormat == CodeFormat::kE4M3) return cvt::e4m3x2_from_f32(hi, lo);
  if constexpr (kFormat == CodeFormat::kE2M1) return cvt::e2m1x2_from_f32(hi, lo);
  if constexpr (kFormat == CodeFormat::kE8M0Rz) return cvt::e8m0x2_from_f32<cvt::E8m0Rounding::kTowardZero>(hi, lo);
  if constexpr (kFormat == CodeFormat::kE8M0Rp) return cvt::e8m0x2_from_f32<cvt::E8m0Rounding::kUp>(hi, lo);
  return 0;
}

/// One code (a nibble in bits [3:0] for E2M1) -> fp32.
template <CodeFormat kFormat>
MXV_HD MXV_FORCEINLINE float decode_one(std::uint32_t code) {
  if constexpr (kFormat == CodeFormat::kE4M3) return cvt::f32_from_e4m3(static_cast<std::uint8_t>(code));
  if constexpr (kFormat == CodeFormat::kE2M1) return cvt::f32_from_e2m1(code & 0xFu);
  if constexpr (kFormat == CodeFormat::kE8M0Rz || kFormat == CodeFormat::kE8M0Rp) {
    return cvt::f32_from_e8m0(static_cast<std::uint8_t>(code));
  }
  return 0.0f;
}

/// Element i of the wide input, widened exactly to fp32.
template <WideType kWide, bool kIndex, class Ctx>
MXV_HD MXV_FORCEINLINE float load_wide(Ctx& ctx, const ConvertParams& p, std::uint64_t i) {
  if constexpr (kIndex) {
    return widen<kWide>(p.index_base + static_cast<std::uint32_t>(i));
  } else if constexpr (kWide == WideType::kFp32) {
    return ctx.load(retype<float>(p.in), i);
  } else {
    return widen<kWide>(ctx.load(retype<std::uint16_t>(p.in), i));
  }
}

template <WideType kWide, class Ctx>
MXV_HD MXV_FORCEINLINE void store_wide(Ctx& ctx, const ConvertParams& p, std::uint64_t i, float v) {
  if constexpr (kWide == WideType::kFp32) {
    ctx.store(retype<float>(p.out), i, v);
  } else {
    ctx.store(retype<std::uint16_t>(p.out), i, static_cast<std::uint16_t>(narrow<kWide>(v)));
  }
}

/// One code byte ("unit"): element `unit`, or elements 2 unit and 2 unit + 1 for E2M1.
template <ConvertDirection kDir, WideType kWide, CodeFormat kFormat, bool kIndex, class Ctx>
MXV_HD void convert_unit(Ctx& ctx, const ConvertParams& p, std::uint64_t unit) {
  const GlobalPtr<std::uint8_t> codes = kDir == ConvertDirection::kEncode ? p.out : p.in;
  if constexpr (kFormat == CodeFormat::kE2M1) {
    const std::uint64_t lo = 2 * unit;
    const bool has_hi = lo + 1 < p.count;
    if constexpr (kDir == ConvertDirection::kEncode) {
      const float x_lo = load_wide<kWide, kIndex>(ctx, p, lo);
      const float x_hi = has_hi ? load_wide<kWide, kIndex>(ctx, p, lo + 1) : 0.0f;
      ctx.store(codes, unit, static_cast<std::uint8_t>(encode_pair<kFormat>(x_hi, x_lo)));
    } else {
      const std::uint32_t byte = ctx.load(codes, unit);
      store_wide<kWide>(ctx, p, lo, decode_one<kFormat>(byte));
      if (has_hi) store_wide<kWide>(ctx, p, lo + 1, decode_one<kFormat>(byte >> 4));
    }
  } else if constexpr (kDir == ConvertDirection::kEncode) {
    const float x = load_wide<kWide, kIndex>(ctx, p, unit);
    ctx.store(codes, unit, static_cast<std::uint8_t>(encode_pair<kFormat>(0.0f, x) & 0xFFu));
  } else {
    store_wide<kWide>(ctx, p, unit, decode_one<kFormat>(ctx.load(codes, unit)));
  }
}

/// Code-side words of one lane group: kLane bytes (one-byte codes) or kLane / 2 (E2M1), held in
/// 32-bit words little-endian (the first code in the lowest byte).
template <WideType kWide, CodeFormat kFormat>
struct GroupCodes {
  static constexpr unsigned kLane = convert_lane_elements(kWide);
  static constexpr unsigned kBytes = kFormat == CodeFormat::kE2M1 ? kLane / 2 : kLane;
  static constexpr unsigned kWords = kBytes >= 4 ? kBytes / 4 : 1;
  std::uint32_t w[kWords];
};

/// Stores (or loads) a lane group's codes: 2 bytes as one 16-bit access, 4 as one 32-bit, 8 as two.
template <WideType kWide, CodeFormat kFormat, class Ctx>
MXV_HD MXV_FORCEINLINE void store_codes(Ctx& ctx, GlobalPtr<std::uint8_t> codes, std::uint64_t first_byte,
                                        const GroupCodes<kWide, kFormat>& c) {
  using G = GroupCodes<kWide, kFormat>;
  if constexpr (G::kBytes == 2) {
    ctx.store(retype<std::uint16_t>(codes), first_byte / 2, static_cast<std::uint16_t>(c.w[0]));
  } else {
    MXV_UNROLL
    for (unsigned j = 0; j < G::kWords; ++j) ctx.store(retype<std::uint32_t>(codes), first_byte / 4 + j, c.w[j]);
  }
}

template <WideType kWide, CodeFormat kFormat, class Ctx>
MXV_HD MXV_FORCEINLINE GroupCodes<kWide, kFormat> load_codes(Ctx& ctx, GlobalPtr<std::uint8_t> codes,
                                                             std::uint64_t first_byte) {
  using G = GroupCodes<kWide, kFormat>;
  G c{};
  if constexpr (G::kBytes == 2) {
    c.w[0] = ctx.load(retype<std::uint16_t>(codes), first_byte / 2);
  } else {
    MXV_UNROLL
    for (unsigned j = 0; j < G::kWords; ++j) c.w[j] = ctx.load(retype<std::uint32_t>(codes), first_byte / 4 + j);
  }
  return c;
}

/// The kLane input bit patterns of a full lane group (16 wide bytes; bf16/fp16 in the low halves).
template <WideType kWide>
MXV_HD MXV_FORCEINLINE void unpack_wide(const Vec16& v, std::uint32_t (&bits)[convert_lane_elements(kWide)]) {
  MXV_UNROLL
  for (unsigned j = 0; j < 4; ++j) {
    if constexpr (kWide == WideType::kFp32) {
      bits[j] = v.w[j];
    } else {
      bits[2 * j] = v.w[j] & 0xFFFFu;
      bits[2 * j + 1] = v.w[j] >> 16;
    }
  }
}

/// Encodes a full lane group (inputs as bit patterns) to its code words.
template <WideType kWide, CodeFormat kFormat>
MXV_HD MXV_FORCEINLINE GroupCodes<kWide, kFormat> encode_group(const std::uint32_t (&bits)[convert_lane_elements(kWide)]) {
  using G = GroupCodes<kWide, kFormat>;
  G c{};
  MXV_UNROLL
  for (unsigned j = 0; j < G::kLane / 2; ++j) {
    const std::uint32_t pair = encode_pair<kFormat>(widen<kWide>(bits[2 * j + 1]), widen<kWide>(bits[2 * j]));
    // Element pair j: 2 bytes at byte 2j (one-byte codes), or 1 byte at byte j (E2M1).
    const unsigned bit = kFormat == CodeFormat::kE2M1 ? 8u * j : 16u * j;
    c.w[bit / 32] |= pair << (bit % 32);
  }
  return c;
}

/// Decodes a full lane group's code words to its 16 wide bytes.
template <WideType kWide, CodeFormat kFormat>
MXV_HD MXV_FORCEINLINE Vec16 decode_group(const GroupCodes<kWide, kFormat>& c) {
  constexpr unsigned kLane = convert_lane_elements(kWide);
  constexpr unsigned kCodeBits = kFormat == CodeFormat::kE2M1 ? 4u : 8u;
  std::uint32_t wide[kLane];
  MXV_UNROLL
  for (unsigned j = 0; j < kLane; ++j) {
    const unsigned bit = kCodeBits * j;
    wide[j] = narrow<kWide>(decode_one<kFormat>((c.w[bit / 32] >> (bit % 32)) & ((1u << kCodeBits) - 1u)));
  }
  Vec16 v{};
  MXV_UNROLL
  for (unsigned j = 0; j < 4; ++j) {
    if constexpr (kWide == WideType::kFp32) {
      v.w[j] = wide[j];
    } else {
      v.w[j] = wide[2 * j] | (wide[2 * j + 1] << 16);
    }
  }
  return v;
}

}  // namespace convert_detail

/// The kernel of one (direction, wide type, format, index mode); blocks of kConvertBlockThreads
/// along x, grid.x = ceil(count / convert_block_elements(wide)). See the file comment.
template <ConvertDirection kDir, WideType kWide, CodeFormat kFormat, bool kIndex, class Ctx>
MXV_HD void convert_variant_body(Ctx& ctx, const ConvertParams& p) {
  using namespace convert_detail;
  using G = GroupCodes<kWide, kFormat>;
  constexpr unsigned kLane = G::kLane;
  constexpr bool kEncode = kDir == ConvertDirection::kEncode;
  constexpr unsigned kWideWords = 4;  // 32-bit words of a group's 16 wide bytes
  const std::uint64_t block_first = std::uint64_t{ctx.block_idx().x} * convert_block_elements(kWide);
  const unsigned t = ctx.thread_idx().x;

  // Every load first: the full groups' 16-byte inputs (encode) or code words (decode).
  std::uint64_t first[kConvertSteps];
  bool full[kConvertSteps];
  std::conditional_t<kEncode, Vec16, G> loaded[kConvertSteps];  // unused in index mode
  MXV_UNROLL
  for (unsigned s = 0; s < kConvertSteps; ++s) {
    first[s] = block_first + std::uint64_t{s * kConvertBlockThreads + t} * kLane;
    full[s] = p.vector && first[s] + kLane <= p.count;
    if constexpr (kEncode && !kIndex) {
      if (full[s]) loaded[s] = ctx.load16(retype<std::uint32_t>(p.in), first[s] / kLane * kWideWords);
    } else if constexpr (!kEncode) {
      if (full[s]) loaded[s] = load_codes<kWide, kFormat>(ctx, p.in, first[s] / kLane * G::kBytes);
    } else {
      (void)loaded;
    }
  }

  MXV_UNROLL
  for (unsigned s = 0; s < kConvertSteps; ++s) {
    if (full[s]) {
      if constexpr (kEncode) {
        std::uint32_t bits[kLane];
        if constexpr (kIndex) {
          MXV_UNROLL
          for (unsigned j = 0; j < kLane; ++j) bits[j] = p.index_base + static_cast<std::uint32_t>(first[s]) + j;
        } else {
          unpack_wide<kWide>(loaded[s], bits);
        }
        store_codes<kWide, kFormat>(ctx, p.out, first[s] / kLane * G::kBytes, encode_group<kWide, kFormat>(bits));
      } else {
        ctx.store16(retype<std::uint32_t>(p.out), first[s] / kLane * kWideWords, decode_group<kWide, kFormat>(loaded[s]));
      }
    } else if (first[s] < p.count) {
      // Element by element; a unit is one code byte (two elements for E2M1, kLane even).
      const std::uint64_t per_unit = kFormat == CodeFormat::kE2M1 ? 2u : 1u;
      const std::uint64_t end = first[s] + kLane < p.count ? first[s] + kLane : p.count;
      for (std::uint64_t u = first[s] / per_unit; u * per_unit < end; ++u) {
        convert_unit<kDir, kWide, kFormat, kIndex>(ctx, p, u);
      }
    }
  }
}

/// Calls `visitor.template operator()<kDir, kWide, kFormat, kIndex>()` with the compile-time
/// choice matching the launch's runtime fields: the one map from a launch to its kernel, used by
/// both backends (through ConvertFamily) to pick the instantiation a launch runs. Decoding E8M0 does
/// not depend on the encode rounding, so both E8M0 formats decode through the kE8M0Rz kernel.
template <class Visitor>
void convert_visit(const ConvertParams& p, Visitor&& visitor) {
  const auto with_format = [&]<ConvertDirection kDir, WideType kWide>() {
    const auto go = [&]<CodeFormat kFormat>() {
      if constexpr (kDir == ConvertDirection::kDecode) {
        constexpr CodeFormat kDecodeAs = kFormat == CodeFormat::kE8M0Rp ? CodeFormat::kE8M0Rz : kFormat;
        visitor.template operator()<kDir, kWide, kDecodeAs, false>();
      } else if (p.input_is_index) {
        visitor.template operator()<kDir, kWide, kFormat, true>();
      } else {
        visitor.template operator()<kDir, kWide, kFormat, false>();
      }
    };
    switch (p.format) {
      case CodeFormat::kE4M3: go.template operator()<CodeFormat::kE4M3>(); return;
      case CodeFormat::kE2M1: go.template operator()<CodeFormat::kE2M1>(); return;
      case CodeFormat::kE8M0Rz: go.template operator()<CodeFormat::kE8M0Rz>(); return;
      case CodeFormat::kE8M0Rp: go.template operator()<CodeFormat::kE8M0Rp>(); return;
    }
  };
  const auto with_wide = [&]<ConvertDirection kDir>() {
    switch (p.wide) {
      case WideType::kFp32: with_format.template operator()<kDir, WideType::kFp32>(); return;
      case WideType::kBf16: with_format.template operator()<kDir, WideType::kBf16>(); return;
      case WideType::kFp16: with_format.template operator()<kDir, WideType::kFp16>(); return;
    }
  };
  if (p.direction == ConvertDirection::kEncode) {
    with_wide.template operator()<ConvertDirection::kEncode>();
  } else {
    with_wide.template operator()<ConvertDirection::kDecode>();
  }
}

enum class ConvertVariant : std::uint8_t { kConvert };
constexpr std::string_view to_string(ConvertVariant) { return "convert"; }

/// One convert instantiation as both backends run it (kernel_family.h).
template <ConvertDirection kDir, WideType kWide, CodeFormat kFormat, bool kIndex>
struct ConvertKernel : KernelOf<ConvertParams, kConvertBlockThreads> {
  template <class Ctx>
  static MXV_HD MXV_FORCEINLINE void run(Ctx& ctx, const ConvertParams& p) {
    convert_variant_body<kDir, kWide, kFormat, kIndex>(ctx, p);
  }
};

/// The convert family: one variant, whose instantiation convert_visit picks from the parameters.
struct ConvertFamily : FamilyOf<ConvertParams, ConvertVariant::kConvert> {
  template <class Visitor>
  static void visit(ConvertVariant, const LaunchPlan&, const ConvertParams& p, Visitor&& visitor) {
    convert_visit(p, [&]<ConvertDirection kDir, WideType kWide, CodeFormat kFormat, bool kIndex>() {
      visitor.template operator()<ConvertKernel<kDir, kWide, kFormat, kIndex>>();
    });
  }
};

}  // namespace mxv::device
