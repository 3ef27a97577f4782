// The block-quantization steps that the quantize vector kernel (kernels/quantize.h) and the fused
// SwiGLU kernel (kernels/swiglu_quantize.h) share: both map 2..8 adjacent lanes onto one block of
// 16 (NVFP4) or 32 (MX) E2M1 elements, walk the scale buffer one "scale slot" (byte) at a time,
// meet the block amax through butterfly shuffles and pack each lane's elements into one word
// (SEMANTICS.md sections 4-5; DESIGN.md "Production kernels", quantize and swiglu_quantize).
// One piece serves both so the fused kernel cannot drift from the quantize kernel it must equal
// bit for bit (swiglu_quantize with a bf16 intermediate == swiglu_bf16 then quantize).
//
// Global memory accesses stay at the kernels' own call sites (only tensor_scale below touches
// memory, with one load and one store, exactly as both kernels did), so the emulator's per-site
// coalescing figures and the access sequence on the GPU are those of the kernels.
#pragma once

#include <cstdint>

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernels/quantize_rules.h"

namespace mxv::device::fp4_block {

/// Element j of a 16-byte lane vector widened to fp32: 4 fp32 values, or 8 bf16 (element j in
/// half j % 2 of word j / 2, low half first: little-endian memory order).
MXV_HD MXV_FORCEINLINE float vec16_element(const Vec16& v, unsigned j, bool bf16) {
  if (bf16) return cvt::f32_from_bf16(static_cast<std::uint16_t>((v.w[j >> 1] >> ((j & 1u) * 16u)) & 0xFFFFu));
  return cvt::float_of(v.w[j]);
}

/// The NVFP4 tensor scale from the tensor amax word (fp32 bits) and, from thread 0 of block 0,
/// the publication of s_dec for the consumer. MX schemes read and write nothing.
template <class Ctx>
MXV_HD MXV_FORCEINLINE qrules::Nvfp4TensorScale tensor_scale(Ctx& ctx, qrules::Scheme scheme,
                                                             GlobalPtr<std::uint32_t> amax_bits,
                                                             GlobalPtr<float> s_dec_out) {
  if (scheme != qrules::Scheme::kNvfp4Te) return {};
  const qrules::Nvfp4TensorScale ts = qrules::nvfp4_tensor_scale(cvt::float_of(ctx.load(amax_bits, 0)));
  if (ctx.block_idx().x == 0u && ctx.thread_idx().x == 0u) ctx.store(s_dec_out, 0, ts.s_dec);
  return ts;
}

/// A thread's position (scale row, scale column) in the slot walk: item = row * kb_slots + k.
/// The first item is divided out once per thread; every later step adds the constant item stride
/// (whole rows plus a remainder below kb_slots) with one compare, instead of a 64-bit division
/// per item (a ~70-instruction subroutine on the GPU, more than the conversions).
struct SlotCursor {
  std::uint64_t row = 0;
  std::uint64_t k = 0;
  std::uint64_t d_row = 0;
  std::uint64_t d_k = 0;
  std::uint64_t kb_slots = 1;

  MXV_HD MXV_FORCEINLINE void advance() {
    row += d_row;
    k += d_k;
    if (k >= kb_slots) {
      k -= kb_slots;
      ++row;
    }
  }
};

/// The cursor at item `first_item`, stepping `item_stride` items per advance().
MXV_HD MXV_FORCEINLINE SlotCursor slot_cursor(std::uint64_t first_item, std::uint64_t item_stride,
                                              std::uint64_t kb_slots) {
  SlotCursor c;
  c.kb_slots = kb_slots;
  c.d_row = item_stride / kb_slots;
  c.d_k = item_stride - c.d_row * kb_slots;
  c.row = first_item / kb_slots;
  c.k = first_item - c.row * kb_slots;
  return c;
}

/// The block amax: each lane's amax key (qrules::amax_key bit patterns) met across the `lanes`
/// (a power of two, 2..8) adjacent lanes of a block by butterfly shuffles. Every lane of the warp
/// must call it (full mask): the kernels keep their trip counts warp-uniform for this.
template <class Ctx>
MXV_HD MXV_FORCEINLINE std::uint32_t block_amax(Ctx& ctx, std::uint32_t key, unsigned lanes) {
  for (unsigned m = 1; m < lanes; m <<= 1) key = qrules::max_u32(key, ctx.shfl_xor(kFullMask, key, static_cast<int>(m), 32));
  return key;
}

/// A lane's `kN` (even) elements scaled by `multiplier` and packed to E2M1: element j in bits
/// [4j+3:4j] (byte j/2 holds elements j, j+1 with the even one low), the word a 2- (kN = 4) or
/// 4-byte (kN = 8) store writes. `value(j)` yields element j in fp32.
template <unsigned kN, class Value>
MXV_HD MXV_FORCEINLINE std::uint32_t pack_e2m1_word(Value value, float multiplier) {
  static_assert(kN % 2 == 0 && kN <= 8);
  std::uint32_t word = 0;
  for (unsigned j = 0; j < kN; j += 2) word |= qrules::pack_pair_fast(value(j), value(j + 1u), multiplier) << (4u * j);
  return word;
}

}  // namespace mxv::device::fp4_block
