// The block-quantization steps that the quantize vector kernel (kernels/quantize.h) and the fused
// SwiGLU kernel (kernels/swiglu_quantize.h) share: both give one thread (a lane pair for
// quantize's MX fp32) one block of 16 (NVFP4) or 32 (MX) E2M1 elements, walk the scale buffer one
// "scale slot" (byte) at a time, reduce the block amax and pack the block's elements into 32-bit
// words (docs/semantics.md sections 4-5; docs/design.md sections 5.3 and 5.4).
// One piece serves both so the fused kernel cannot drift from the quantize kernel it must equal
// bit for bit (swiglu_quantize with a bf16 intermediate == swiglu_bf16 then quantize).
//
// The input loads and the scale-byte stores stay at the kernels' own call sites; below, only
// tensor_scale (the tensor amax and s_dec), resolve_row (the grouped rows' tile table) and
// store_code_words (a thread's packed codes, one store) touch memory, each with the accesses both
// kernels need, so the emulator's per-launch coalescing figures and the access sequence on the
// GPU are those of the kernels.
#pragma once

#include <cstdint>
#include <type_traits>

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

/// Runs `slot_loop` (a slot loop templated on its block reciprocal, qrules::nvfp4_te_block's
/// kQuick) once: with std::true_type where `kMayBeQuick` and the tensor scale allows the quick
/// reciprocal (Nvfp4TensorScale::quick_block_reciprocal), else with std::false_type. The choice is
/// made once per launch, so the kernel holds one copy of its loop per reciprocal and no block pays
/// for it. kMayBeQuick false (MX schemes, or a kernel whose second copy would not fit its register
/// budget) compiles the div_rn copy alone.
template <bool kMayBeQuick, class SlotLoop>
MXV_HD MXV_FORCEINLINE void with_block_reciprocal(const qrules::Nvfp4TensorScale& ts, SlotLoop&& slot_loop) {
  if constexpr (kMayBeQuick) {
    if (ts.quick_block_reciprocal) {
      slot_loop(std::true_type{});
      return;
    }
  }
  slot_loop(std::false_type{});
}

/// Which activation row a scale row holds, if any (padding rows hold none).
template <class Index = std::uint64_t>
struct RowSlot {
  bool valid = false;
  Index row = 0;
};

/// The activation row of scale row `scale_row`: itself when below `rows` without a tile table;
/// with grouped rows (`tile_rows`: per 128-row scale tile, its first compact row and its count of
/// real rows), the tile's first row plus the row's place in the tile, valid below the count.
template <class Index = std::uint64_t, class Ctx>
MXV_HD MXV_FORCEINLINE RowSlot<Index> resolve_row(Ctx& ctx, GlobalPtr<std::uint32_t> tile_rows, std::uint64_t rows,
                                                  Index scale_row) {
  if (tile_rows.raw == nullptr) return {scale_row < rows, scale_row};
  const Index tile = scale_row >> 7;
  const std::uint32_t first = ctx.load(tile_rows, 2u * std::size_t{tile});
  const std::uint32_t count = ctx.load(tile_rows, 2u * std::size_t{tile} + 1u);
  const Index local = scale_row & 127u;
  return {local < count, static_cast<Index>(first + local)};
}

/// A thread's position in the slot walk. Item i is scale byte i, so a warp's consecutive items
/// write whole 32-byte sectors of scales in both layouts:
///  - linear: byte i = row * kb_slots + k;
///  - swizzled 128x4 (qrules::swizzled_offset inverted): byte i lies in the 512-byte atom
///    a = i / 512, which holds row tile a / n_k and k group a % n_k (n_k = kb_slots / 4), at
///    o = i % 512: row = 128 * tile + 32 * (o / 4 % 4) + o / 16, k = 4 * group + o % 4.
///    (Walking these scales row by row put a warp's 32 bytes into up to 8 sectors, 4 bytes in
///    each when a row has 32 or more scale columns.)
/// Linear is the same walk with one-byte atoms (o stays 0, no shifts). The first item is divided
/// out once per thread; every later step adds the constant item stride (atoms and a remainder)
/// with two compares, instead of a 64-bit division per item (a ~70-instruction subroutine on the
/// GPU, more than the conversions). `Index` is std::uint64_t, or std::uint32_t where the launcher
/// proved that every item index fits.
template <class Index = std::uint64_t>
struct SlotCursor {
  Index tile = 0;   ///< row tile (swizzled: 128 rows) or row (linear)
  Index group = 0;  ///< k group (swizzled: 4 columns) or k (linear)
  Index o = 0;      ///< byte within the atom (linear: 0)
  Index d_tile = 0;
  Index d_group = 0;
  Index d_o = 0;
  Index groups = 1;  ///< k groups per row tile
  unsigned tile_shift = 0;
  unsigned group_shift = 0;

  MXV_HD MXV_FORCEINLINE Index row() const {
    return static_cast<Index>((tile << tile_shift) + (((o >> 2) & 3u) << 5) + (o >> 4));
  }
  MXV_HD MXV_FORCEINLINE Index k() const { return static_cast<Index>((group << group_shift) + (o & 3u)); }
  MXV_HD MXV_FORCEINLINE void advance() {
    o += d_o;
    if (o >= 512u) {
      o -= 512u;
      ++group;
    }
    group += d_group;
    if (group >= groups) {
      group -= groups;
      ++tile;
    }
    tile += d_tile;
  }
};

/// The cursor at item `first_item`, stepping `item_stride` items per advance(), over a scale
/// buffer of kb_slots columns (a multiple of 4 when swizzled).
template <class Index = std::uint64_t>
MXV_HD MXV_FORCEINLINE SlotCursor<Index> slot_cursor(Index first_item, Index item_stride, Index kb_slots, bool swizzled) {
  SlotCursor<Index> c;
  const unsigned atom_shift = swizzled ? 9u : 0u;
  const Index atom_mask = swizzled ? Index{511u} : Index{0u};
  c.tile_shift = swizzled ? 7u : 0u;
  c.group_shift = swizzled ? 2u : 0u;
  c.groups = swizzled ? static_cast<Index>(kb_slots >> 2) : kb_slots;
  const Index first_atom = first_item >> atom_shift;
  const Index stride_atoms = item_stride >> atom_shift;
  c.o = first_item & atom_mask;
  c.d_o = item_stride & atom_mask;
  c.tile = first_atom / c.groups;
  c.group = first_atom - c.tile * c.groups;
  c.d_tile = stride_atoms / c.groups;
  c.d_group = stride_atoms - c.d_tile * c.groups;
  return c;
}

/// A SlotCursor whose stride holds whole atoms (`d_o` 0: linear always, swizzled when the stride is
/// a multiple of 512 items, which a grid of an even number of 256-thread blocks gives). The byte
/// within the atom never changes, so the cursor keeps the row and the column themselves: a step
/// adds the column step, wraps once past the row tile's last column and adds the row step. On
/// sm_90 SlotCursor's row(), k() and advance() cost about 20 instructions a slot, this about 6.
template <class Index = std::uint64_t>
struct WholeAtomCursor {
  Index row_ = 0;
  Index k_ = 0;
  Index d_row = 0;     ///< rows per step beyond a wrap (d_tile rows tiles)
  Index d_k = 0;       ///< columns per step (d_group groups)
  Index k_limit = 0;   ///< the first column past the row tile's last, at this atom byte
  Index k_span = 0;    ///< columns in a row tile
  Index row_step = 0;  ///< rows in a row tile

  MXV_HD MXV_FORCEINLINE Index row() const { return row_; }
  MXV_HD MXV_FORCEINLINE Index k() const { return k_; }
  MXV_HD MXV_FORCEINLINE void advance() {
    k_ += d_k;
    if (k_ >= k_limit) {
      k_ -= k_span;
      row_ += row_step;
    }
    row_ += d_row;
  }
};

/// The WholeAtomCursor standing where `c` stands and stepping as it does; `c.d_o` must be 0.
template <class Index>
MXV_HD MXV_FORCEINLINE WholeAtomCursor<Index> whole_atom_cursor(const SlotCursor<Index>& c) {
  WholeAtomCursor<Index> w;
  w.row_ = c.row();
  w.k_ = c.k();
  w.d_row = static_cast<Index>(c.d_tile << c.tile_shift);
  w.d_k = static_cast<Index>(c.d_group << c.group_shift);
  w.k_span = static_cast<Index>(c.groups << c.group_shift);
  w.k_limit = static_cast<Index>(w.k_span + (c.o & 3u));
  w.row_step = static_cast<Index>(Index{1} << c.tile_shift);
  return w;
}

/// The shuffle mask of the lane pair that shares one scale block with thread `thread_x` of its
/// block: that lane and its neighbour (lanes 2m and 2m + 1; block sizes are multiples of 32, so a
/// pair never straddles a warp). Both lanes of a pair always take the same item, hence the same
/// branches, so the pair's shuffles name only its two lanes.
MXV_HD MXV_FORCEINLINE unsigned lane_pair_mask(unsigned thread_x) { return 3u << (thread_x & 30u); }

/// The larger of this lane's `v` and its pair partner's (`mask`: lane_pair_mask), one shuffle: a
/// block's maximum from its two halves.
template <class Ctx>
MXV_HD MXV_FORCEINLINE std::uint32_t lane_pair_max(Ctx& ctx, unsigned mask, std::uint32_t v) {
  return qrules::max_u32(v, ctx.shfl_xor(mask, v, 1, 32));
}

/// The largest magnitude among `kN` fp32 patterns (`bits(j)` gives pattern j), as fp32 bits: a
/// NaN pattern exceeds Inf's, so a block with a NaN shows it here.
template <unsigned kN, class Bits>
MXV_HD MXV_FORCEINLINE std::uint32_t f32_abs_max_bits(Bits bits) {
  std::uint32_t raw = 0;
  for (unsigned j = 0; j < kN; ++j) raw = qrules::max_u32(raw, bits(j) & qrules::kAbsMask);
  return raw;
}

/// f32_abs_max_bits of `kWords` packed bf16 pairs (`word(i)` gives word i): the pairs are reduced
/// two at a time as packed 16-bit maxima (one instruction on the GPU), then widened (exact).
template <unsigned kWords, class Word>
MXV_HD MXV_FORCEINLINE std::uint32_t bf16_pairs_abs_max_bits(Word word) {
  std::uint32_t pair = 0;
  for (unsigned i = 0; i < kWords; ++i) pair = qrules::max_u16x2(pair, word(i) & 0x7FFF7FFFu);
  return qrules::max_u32(pair >> 16, pair & 0xFFFFu) << 16;
}

/// Element `j` of packed bf16 pairs (element 2i in the low half of words[i], 2i + 1 in the high
/// half), widened to fp32 (exact): a shift or a mask.
MXV_HD MXV_FORCEINLINE float bf16_pair_element(const std::uint32_t* words, unsigned j) {
  const std::uint32_t w = words[j >> 1];
  return cvt::float_of((j & 1u) != 0u ? w & 0xFFFF0000u : w << 16);
}

/// A lane's `kN` (even) elements scaled by `multiplier` and packed to E2M1: element j in bits
/// [4j+3:4j] (byte j/2 holds elements j, j+1 with the even one low), the word a 2- (kN = 4) or
/// 4-byte (kN = 8) store writes. `value(j)` yields element j in fp32. Any input, NaN included
/// (the path of blocks that hold an Inf or a NaN).
template <unsigned kN, class Value>
MXV_HD MXV_FORCEINLINE std::uint32_t pack_e2m1_word(Value value, float multiplier) {
  static_assert(kN % 2 == 0 && kN <= 8);
  std::uint32_t word = 0;
  for (unsigned j = 0; j < kN; j += 2) word |= qrules::pack_pair_fast(value(j), value(j + 1u), multiplier) << (4u * j);
  return word;
}

/// Whether some element of a finite block may scale to 7 or more in magnitude, so that its E2M1
/// code must saturate (cvt::e2m1_magnitude_biased_sat) rather than take the shorter unsaturated
/// form. No element's product exceeds the amax's (rounding is monotone and the multiplier is not
/// negative), so one product decides. NVFP4 and NVIDIA's MX scale put the amax near 6 (up to
/// 6.4 from the E4M3 rounding of the block scale): only saturated or subnormal block scales and a
/// calibrated amax below the data reach 7. OCP's floor(log2) scale puts it in [4, 8), so there
/// every block takes the saturating form without the test.
MXV_HD MXV_FORCEINLINE bool e2m1_may_saturate(qrules::Scheme scheme, std::uint32_t amax_bits, float multiplier) {
  return scheme == qrules::Scheme::kMxfp4Ocp || !(qrules::mul_rn(cvt::float_of(amax_bits), multiplier) < 7.0f);
}

/// The E2M1 codes of 8 magnitudes (`magnitude(j)`: element j's, >= 0 and not NaN; below 7 unless
/// kSaturate) in bits [4j+2:4j] of a word, bit 4j+3 left 0 for the sign. The biased patterns of
/// cvt::e2m1_magnitude_biased are added at their nibbles (no carries: every code is below 8); the
/// start value takes off the bias of nibbles 0 and 1, and those of nibbles 2..7 shift out of the
/// word.
template <bool kSaturate, class Magnitude>
MXV_HD MXV_FORCEINLINE std::uint32_t pack_e2m1_magnitudes(Magnitude magnitude) {
  constexpr std::uint32_t kUnbias = 0u - (cvt::kE2m1Biased + (cvt::kE2m1Biased << 4));
  std::uint32_t word = kUnbias;
  for (unsigned j = 0; j < 8; ++j) {
    const float m = magnitude(j);
    word += (kSaturate ? cvt::e2m1_magnitude_biased_sat(m) : cvt::e2m1_magnitude_biased(m)) << (4u * j);
  }
  return word;
}

/// __byte_perm: result byte i is byte (selector nibble i) of the 8 bytes {lo, hi} (0-3 from lo,
/// 4-7 from hi). One PRMT on the GPU.
MXV_HD MXV_FORCEINLINE std::uint32_t byte_perm(std::uint32_t lo, std::uint32_t hi, std::uint32_t selector) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(lo, hi, selector);
#else
  const std::uint64_t bytes = (std::uint64_t{hi} << 32) | lo;
  std::uint32_t r = 0;
  for (unsigned i = 0; i < 4; ++i) {
    const unsigned src = (selector >> (4u * i)) & 0x7u;
    r |= static_cast<std::uint32_t>((bytes >> (8u * src)) & 0xFFu) << (8u * i);
  }
  return r;
#endif
}

/// The sign bits of 8 bf16 elements (words w0..w3, element 2i in the low half of w_i) placed
/// where an E2M1 word keeps them: element j's sign at bit 4j + 3. Four byte permutes gather the
/// bytes that hold the signs (byte 1 and byte 3 of each word), then two masks move them into
/// place: 7 instructions for 8 signs, against 2 per element when each code takes its own.
MXV_HD MXV_FORCEINLINE std::uint32_t bf16_sign_nibbles(std::uint32_t w0, std::uint32_t w1, std::uint32_t w2,
                                                       std::uint32_t w3) {
  const std::uint32_t q01 = byte_perm(w0, w1, 0x5173u);  // [w0.b3, w1.b3, w0.b1, w1.b1]
  const std::uint32_t q23 = byte_perm(w2, w3, 0x5173u);  // [w2.b3, w3.b3, w2.b1, w3.b1]
  const std::uint32_t odd = byte_perm(q01, q23, 0x5410u);   // byte i: bit 7 = sign of element 2i+1
  const std::uint32_t even = byte_perm(q01, q23, 0x7632u);  // byte i: bit 7 = sign of element 2i
  return (odd & 0x80808080u) | ((even >> 4) & 0x08080808u);
}

/// The sign bits of 8 fp32 patterns (`bits(j)` gives element j's) placed where an E2M1 word keeps
/// them, element j's at bit 4j + 3: six byte permutes gather the bytes that hold the signs, then
/// two masks move them into place, as in bf16_sign_nibbles.
template <class Bits>
MXV_HD MXV_FORCEINLINE std::uint32_t f32_sign_nibbles(Bits bits) {
  const auto top_bytes = [&](unsigned a, unsigned b) { return byte_perm(bits(a), bits(b), 0x0073u); };  // [a.b3, b.b3, -, -]
  const std::uint32_t odd = byte_perm(top_bytes(1, 3), top_bytes(5, 7), 0x5410u);   // byte i: sign of 2i+1
  const std::uint32_t even = byte_perm(top_bytes(0, 2), top_bytes(4, 6), 0x5410u);  // byte i: sign of 2i
  return (odd & 0x80808080u) | ((even >> 4) & 0x08080808u);
}

/// The E2M1 word of 8 elements (`value(j)`) scaled by `multiplier`, for finite blocks (no element
/// NaN, the multiplier not negative and not NaN, so no product is NaN and each product's sign is
/// its element's). `saturate`: true, or e2m1_may_saturate of the block. The hardware cvt where
/// the target has it.
template <class Value>
MXV_HD MXV_FORCEINLINE std::uint32_t pack_e2m1_word_non_nan(Value value, float multiplier, bool saturate) {
#if MXV_HW_CVT_FP4_E8M0
  (void)saturate;
  return pack_e2m1_word<8>(value, multiplier);
#else
  const auto magnitude = [&](unsigned j) { return qrules::mul_rn(cvt::abs_f32(value(j)), multiplier); };
  const std::uint32_t signs = f32_sign_nibbles([&](unsigned j) { return cvt::bits_of(value(j)); });
  return (saturate ? pack_e2m1_magnitudes<true>(magnitude) : pack_e2m1_magnitudes<false>(magnitude)) | signs;
#endif
}

/// pack_e2m1_word_non_nan of 8 bf16 elements held as the words w0..w3 (element 2i in the low half
/// of w_i): each half widened to fp32 (bf16_pair_element), its magnitude multiplied (|x| is an
/// operand modifier of the multiply on the GPU), the signs taken from the words at once
/// (bf16_sign_nibbles).
MXV_HD MXV_FORCEINLINE std::uint32_t pack_e2m1_word_bf16_non_nan(std::uint32_t w0, std::uint32_t w1, std::uint32_t w2,
                                                                 std::uint32_t w3, float multiplier, bool saturate) {
  const std::uint32_t w[4] = {w0, w1, w2, w3};
#if MXV_HW_CVT_FP4_E8M0
  (void)saturate;
  return pack_e2m1_word<8>([&](unsigned j) { return bf16_pair_element(w, j); }, multiplier);
#else
  const auto magnitude = [&](unsigned j) { return qrules::mul_rn(cvt::abs_f32(bf16_pair_element(w, j)), multiplier); };
  const std::uint32_t signs = bf16_sign_nibbles(w0, w1, w2, w3);
  return (saturate ? pack_e2m1_magnitudes<true>(magnitude) : pack_e2m1_magnitudes<false>(magnitude)) | signs;
#endif
}

/// An MX block's multiplier 2^k (k = 127 - its E8M0 code) as the packed bf16 factors of the three
/// roundings of cvt::e2m1_magnitude_biased: 2^(k+1), 2^k and 2^(k-1), each in both halves. All
/// three are normal bf16 numbers exactly when 1 <= code <= 252 (mx_bf16_factors_normal); the
/// blocks outside that range (amax below about 2^-124, or near the bf16 maximum) take the fp32
/// encoder.
struct MxBf16Factors {
  std::uint32_t twice = 0;
  std::uint32_t once = 0;
  std::uint32_t half = 0;
};

MXV_HD MXV_FORCEINLINE bool mx_bf16_factors_normal(std::uint32_t code) { return code - 1u < 252u; }

MXV_HD MXV_FORCEINLINE MxBf16Factors mx_bf16_factors(std::uint32_t code) {
  const std::uint32_t once = (254u - code) << 7;  // the bf16 pattern of 2^(127 - code)
  return {(once + 0x80u) * 0x10001u, once * 0x10001u, (once - 0x80u) * 0x10001u};
}

/// pack_e2m1_word_bf16_non_nan for an MX block (multiplier 2^k, mx_bf16_factors_normal) two
/// elements per instruction: the three roundings of cvt::e2m1_magnitude_biased done in packed bf16
/// arithmetic on the words as loaded. Each piece is one fma.rn.bf16x2 (cvt::bf16x2_fma_pow2) of
/// |x| by a power of two plus 128 + 2i: the product is exact, so the piece is the same single
/// rounding as the fp32 form, now in [128, 256) where the bf16 ulp is 1 (a larger result only
/// makes its piece lose the minimum, as in fp32). The fp32 form rounds |x| * 2^k first, which
/// is exact too (2^k * |x| lies in the fp32 range wherever it can be a code above 0). The
/// minimum is two packed 16-bit minima (positive bf16 numbers order as their patterns); each half
/// then holds 0x4300 + code, and four byte permutes gather the 8 codes' low bytes into nibble
/// order (byte i: code 2i low, code 2i + 1 high). About 4 instructions per element where the fp32
/// form takes 8; the exhaustive test over every bf16 input and every E8M0 code in range holds the
/// two equal (tests/device/fp4_block_test.cpp).
template <bool kSaturate>
MXV_HD MXV_FORCEINLINE std::uint32_t pack_e2m1_word_bf16_pow2(std::uint32_t w0, std::uint32_t w1, std::uint32_t w2,
                                                              std::uint32_t w3, const MxBf16Factors& f) {
  const auto codes = [&](std::uint32_t w) {
    const std::uint32_t a = w & 0x7FFF7FFFu;
    const std::uint32_t twice = cvt::bf16x2_fma_pow2(a, f.twice, 0x43004300u);  // 128 + RNE(2m)
    const std::uint32_t once = cvt::bf16x2_fma_pow2(a, f.once, 0x43024302u);    // 130 + RNE(m)
    const std::uint32_t half = cvt::bf16x2_fma_pow2(a, f.half, 0x43044304u);    // 132 + RNE(m / 2)
    const std::uint32_t r = qrules::min_u16x2(qrules::min_u16x2(twice, once), half);
    return kSaturate ? qrules::min_u16x2(r, 0x43074307u) : r;
  };
  const std::uint32_t lo = byte_perm(codes(w0), codes(w1), 0x6420u);  // codes 0..3, one per byte
  const std::uint32_t hi = byte_perm(codes(w2), codes(w3), 0x6420u);  // codes 4..7
  const std::uint32_t even = byte_perm(lo, hi, 0x6420u);
  const std::uint32_t odd = byte_perm(lo, hi, 0x7531u);
  return (even | (odd << 4)) | bf16_sign_nibbles(w0, w1, w2, w3);
}

/// How a finite block's bf16 words become E2M1 words (pack_e2m1_words_bf16_block), chosen once per
/// block: the multiplier and the saturating form of the fp32 encoder, and `pow2` for MX blocks
/// whose factors are normal, which take the packed power-of-two form instead (not on targets with
/// the E2M1 cvt, which converts two elements per instruction itself).
struct Bf16BlockEncoding {
  float multiplier = 0.0f;
  bool saturate = true;
  bool pow2 = false;
  MxBf16Factors factors{};
};

MXV_HD MXV_FORCEINLINE Bf16BlockEncoding bf16_block_encoding(qrules::Scheme scheme, const qrules::BlockChoice& c,
                                                             bool saturate) {
  const bool pow2 = !cvt::kHardwareE2M1E8M0 && scheme != qrules::Scheme::kNvfp4Te && mx_bf16_factors_normal(c.code);
  return {c.multiplier, saturate, pow2, mx_bf16_factors(c.code)};
}

/// The E2M1 words of a finite block's `kWords * 8` bf16 elements (`word(i)`: packed pair i) encoded
/// as `e` says, with the block's choices (power-of-two form, saturation) taken once for all its
/// words: tested per word, each word paid a branch and a convergence barrier on sm_90.
template <unsigned kWords, class Word>
MXV_HD MXV_FORCEINLINE void pack_e2m1_words_bf16_block(Word word, const Bf16BlockEncoding& e, std::uint32_t* out) {
  const auto each = [&](auto pack) {
    for (unsigned o = 0; o < kWords; ++o) out[o] = pack(word(4u * o), word(4u * o + 1u), word(4u * o + 2u), word(4u * o + 3u));
  };
  const auto pow2 = [&](auto saturate) {
    each([&](std::uint32_t w0, std::uint32_t w1, std::uint32_t w2, std::uint32_t w3) {
      return pack_e2m1_word_bf16_pow2<decltype(saturate)::value>(w0, w1, w2, w3, e.factors);
    });
  };
  const auto non_nan = [&](auto saturate) {
    each([&](std::uint32_t w0, std::uint32_t w1, std::uint32_t w2, std::uint32_t w3) {
      return pack_e2m1_word_bf16_non_nan(w0, w1, w2, w3, e.multiplier, decltype(saturate)::value);
    });
  };
  if (e.pow2) {
    if (e.saturate) {
      pow2(std::true_type{});
    } else {
      pow2(std::false_type{});
    }
  } else if (e.saturate) {
    non_nan(std::true_type{});
  } else {
    non_nan(std::false_type{});
  }
}

/// pack_e2m1_word<8> for each of `kWords` words of a block's elements (`value(j)`: element j):
/// the general encoder, any input (blocks that hold an Inf or a NaN).
template <unsigned kWords, class Value>
MXV_HD MXV_FORCEINLINE void pack_e2m1_words(Value value, float multiplier, std::uint32_t* out) {
  for (unsigned o = 0; o < kWords; ++o) {
    out[o] = pack_e2m1_word<8>([&](unsigned j) { return value(8u * o + j); }, multiplier);
  }
}

/// The E2M1 words of a finite block's `kWords * 8` elements (`value(j)`: element j) scaled by
/// `multiplier`, pack_e2m1_word_non_nan's, with the saturation choice taken once for all words.
template <unsigned kWords, class Value>
MXV_HD MXV_FORCEINLINE void pack_e2m1_words_non_nan(Value value, float multiplier, bool saturate, std::uint32_t* out) {
  const auto each = [&](bool sat) {
    for (unsigned o = 0; o < kWords; ++o) {
      out[o] = pack_e2m1_word_non_nan([&](unsigned j) { return value(8u * o + j); }, multiplier, sat);
    }
  };
  if (saturate) {
    each(true);
  } else {
    each(false);
  }
}

/// Stores one thread's packed codes (kWords words of 8 codes) at byte `byte_off` of `elements`
/// in one access: four words as one 16-byte vector, two as one 8-byte store whose low word holds
/// the first 8 codes (little-endian memory order), one as a 4-byte store. byte_off is a multiple of
/// 4 * kWords.
template <unsigned kWords, class Index, class Ctx>
MXV_HD MXV_FORCEINLINE void store_code_words(Ctx& ctx, GlobalPtr<std::uint8_t> elements, Index byte_off,
                                             const std::uint32_t (&out)[kWords]) {
  static_assert(kWords == 1u || kWords == 2u || kWords == 4u, "a thread stores 8, 16 or 32 codes");
  if constexpr (kWords == 4u) {
    ctx.store16(elements, byte_off, Vec16{{out[0], out[1], out[2], out[3]}});
  } else if constexpr (kWords == 1u) {
    ctx.store(GlobalPtr<std::uint32_t>{reinterpret_cast<std::uint32_t*>(elements.raw)}, byte_off / 4u, out[0]);
  } else {
    const GlobalPtr<std::uint64_t> pairs{reinterpret_cast<std::uint64_t*>(elements.raw)};
    ctx.store(pairs, byte_off / 8u, std::uint64_t{out[1]} << 32 | out[0]);
  }
}

}  // namespace mxv::device::fp4_block
