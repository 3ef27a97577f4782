// The quantize kernel bodies: activations [M, K] (fp32 or bf16, row-major) -> packed E2M1
// [M, ceil(K/2)] + one scale byte per (row, block) in the linear or swizzled 128x4 layout (its
// padding written as zero), for nvfp4_te, mxfp4_nvidia and mxfp4_ocp (docs/semantics.md sections 4-5).
// Grouped (MoE) rows: the activations and elements are compact; each expert's scales sit in its
// own 128-row tiles starting at a padded row (docs/semantics.md section 5.4).
//
// Two variants, chosen by the host launcher (quantize.cpp) and recorded in the launch plan:
//  - vector ("quantize_vector"): K a multiple of the block size. One thread per block: 16-byte
//    loads of the whole block, the amax in registers, the codes stored as one 8- or 16-byte run
//    (see quantize_vector_body for the instruction budget this is built for).
//  - scalar ("quantize_scalar"): any K (odd K, a partial last block). One thread per block,
//    scalar loads; the missing elements of a partial block count as +0 and are not stored, and
//    with K odd the high nibble of a row's last byte is 0 (PartialBlock::kZeroPadded).
// Both walk "scale slots": one item per byte of the scale buffer (rows padded to 128 and scale
// columns to 4 when swizzled), so padding slots are written (with 0) by the same loop that writes
// real scales, and no byte of the scale buffer is left stale.
//
// NVFP4 reads the tensor amax (fp32 bits; from the amax kernel or a calibrated value) and
// computes the tensor scale itself; thread 0 of block 0 stores s_dec for the consumer.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernel_family.h"
#include "mxv/device/kernels/fp4_block.h"
#include "mxv/device/kernels/quantize_rules.h"
#include "mxv/device/kernels/scheme_instance.h"

// The vector variant's per-slot arrays must live in registers: its slot loops unroll fully on the
// GPU (nvcc's heuristic declines for loop bodies this size). Not logic: the host ignores it.
#if defined(__CUDA_ARCH__)
#define MXV_QUANTIZE_UNROLL _Pragma("unroll")
#else
#define MXV_QUANTIZE_UNROLL
#endif

namespace mxv::device {

inline constexpr unsigned kQuantizeBlockThreads = 256;

enum class QuantizeVariant : std::uint8_t { kVector, kScalar };
constexpr std::string_view to_string(QuantizeVariant v) {
  return v == QuantizeVariant::kVector ? "quantize_vector" : "quantize_scalar";
}

/// Arguments of one quantize launch (built by quantize.cpp; every size already validated).
struct QuantizeParams {
  QuantizeVariant variant = QuantizeVariant::kScalar;
  qrules::Scheme scheme = qrules::Scheme::kNvfp4Te;
  ScaleLayout layout = ScaleLayout::kLinear;
  bool input_bf16 = false;
  bool nan_propagates = false;   ///< the recipe's NaN-in-amax policy (true: NaN reaches the amax)
  /// Every byte offset and slot index of the launch fits in 32 bits (the launcher checks), so the
  /// vector variant may index with 32-bit arithmetic: half the index instructions of 64-bit.
  bool narrow_index = false;
  std::uint64_t rows = 0;        ///< M: compact rows of the activations
  std::uint64_t cols = 0;        ///< K
  std::uint64_t kb = 0;          ///< ceil(K / block): real scale columns
  std::uint64_t kb_slots = 0;    ///< scale columns in the buffer: kb, or round_up(kb, 4) swizzled
  std::uint64_t scale_rows = 0;  ///< rows of the scale buffer: M, or padded to 128 per group
  std::uint64_t items = 0;       ///< scale_rows * kb_slots (one per scale byte)
  std::uint64_t row_bytes = 0;   ///< ceil(K / 2)
  GlobalPtr<std::uint8_t> input{};
  GlobalPtr<std::uint8_t> elements{};
  GlobalPtr<std::uint8_t> scales{};
  /// Grouped + swizzled only (else raw == nullptr): two words per 128-row scale tile, the
  /// compact row of the tile's first scale row and the number of real rows in the tile.
  GlobalPtr<std::uint32_t> tile_rows{};
  GlobalPtr<std::uint32_t> amax_bits{};  ///< NVFP4: the tensor amax (read)
  GlobalPtr<float> s_dec_out{};          ///< NVFP4: receives the global decode scale
};

namespace quantize_detail {

template <class T>
MXV_HD MXV_FORCEINLINE GlobalPtr<T> retype(GlobalPtr<std::uint8_t> p) {
  return {reinterpret_cast<T*>(p.raw)};
}

}  // namespace quantize_detail

/// How many lanes of the vector variant share one scale block: 2 for MX with fp32 input, whose
/// 128-byte block would put a warp's 16-byte loads at a 128-byte lane stride (each lane's eight
/// loads then walk its own cache line: 75% of copy on the H200, BENCHMARKS.md); as a lane pair each
/// lane loads 64 bytes, the stride at which NVFP4 fp32 runs near the copy bandwidth. 1 elsewhere.
/// The launcher sizes its grid by it (quantize.cpp).
MXV_HD constexpr unsigned quantize_lanes_per_block(qrules::Scheme scheme, bool bf16) {
  return scheme != qrules::Scheme::kNvfp4Te && !bf16 ? 2u : 1u;
}

/// The vector variant, one thread per scale slot (a lane pair for MX fp32, see
/// quantize_lanes_per_block): the thread loads its block's 16 or 32 elements with 16-byte loads (2
/// to 4 of them), reduces the block amax in registers, picks the scale once and stores the block's
/// packed codes (8 bytes per lane in one store, 16 for MX bf16 as one vector) and its scale byte.
/// No redundant per-lane scale arithmetic where the budget is tight: at the memory roofline
/// the H200 leaves about 20 instructions per bf16 element, and the per-block work (one E4M3 cvt,
/// one IEEE reciprocal) costs about 2 of them when one thread owns the block. fp32 input leaves
/// twice that budget, so there a lane pair may split a block: each lane loads and encodes its half,
/// one shuffle joins the two amaxes, both lanes pick the (same) scale and the first stores it.
/// Scheme and input type are template parameters, so each kernel is straight-line code for one
/// recipe.
///
/// A warp's loads are 32 lanes x 16 bytes at a 32- or 64-byte lane stride: the first load of a
/// block brings each sector into L1 and the thread's next loads hit it, so DRAM moves each byte
/// once. The amax is an unsigned max over bit patterns (qrules::amax_key); bf16 pairs are reduced
/// two at a time as packed 16-bit maxima. A block that holds a NaN or an Inf leaves the fast path:
/// its amax follows the recipe's NaN policy element by element and its codes come from the general
/// encoder; every other block uses the encoder for non-NaN inputs.
template <qrules::Scheme kScheme, bool kBf16, class Index, class Ctx>
MXV_HD void quantize_vector_body(Ctx& ctx, const QuantizeParams& p) {
  constexpr unsigned kBlock = kScheme == qrules::Scheme::kNvfp4Te ? 16u : 32u;
  constexpr unsigned kLanes = quantize_lanes_per_block(kScheme, kBf16);  // lanes sharing a block
  constexpr unsigned kLaneElems = kBlock / kLanes;                          // elements per lane
  constexpr unsigned kVecs = kLaneElems * (kBf16 ? 2u : 4u) / 16u;        // 16-byte loads per lane
  constexpr unsigned kWordsPerVec = 4u;                                    // u32 words per load
  constexpr unsigned kOutWords = kLaneElems / 8u;                          // 8 codes per u32 word
  // Slots per step: bf16 takes two (NVFP4: 64 bytes in flight per lane, MX: 128), fp32 one (64
  // bytes); on the H200 four NVFP4 bf16 slots ran slower, two MX bf16 slots faster than one
  // (BENCHMARKS.md, "E2M1 in three roundings").
  constexpr unsigned kSlots = kBf16 ? 2u : 1u;
  constexpr unsigned kElemBytes = kBf16 ? 2u : 4u;
  const Index tid = static_cast<Index>(Index{ctx.block_idx().x} * ctx.block_dim().x + ctx.thread_idx().x);
  const Index stride = static_cast<Index>(Index{ctx.grid_dim().x} * ctx.block_dim().x / kLanes);
  // A lane pair walks one slot sequence; `part` is the lane's half of the block.
  const Index first = tid / kLanes;
  const unsigned part = static_cast<unsigned>(tid % kLanes);
  [[maybe_unused]] const unsigned pair_mask = kLanes == 1u ? kFullMask : fp4_block::lane_pair_mask(ctx.thread_idx().x);
  const auto items = static_cast<Index>(p.items);
  const auto kb = static_cast<Index>(p.kb);
  const auto cols = static_cast<Index>(p.cols);
  const auto row_bytes = static_cast<Index>(p.row_bytes);
  const qrules::Nvfp4TensorScale ts = fp4_block::tensor_scale(ctx, kScheme, p.amax_bits, p.s_dec_out);
  fp4_block::SlotCursor<Index> cursor = fp4_block::slot_cursor<Index>(
      first, stride, static_cast<Index>(p.kb_slots), p.layout == ScaleLayout::kSwizzled128x4);
  // The block-wide maximum of a per-lane maximum: the partner's, through one shuffle.
  const auto pair_max = [&](std::uint32_t v) {
    if constexpr (kLanes == 2u) v = fp4_block::lane_pair_max(ctx, pair_mask, v);
    return v;
  };

  // One copy of the slot loop per block reciprocal (fp4_block::with_block_reciprocal).
  const auto slot_loop = [&](auto quick) {
    for (Index i = first; i < items; i += kSlots * stride) {
      Index srow[kSlots], kcol[kSlots], row[kSlots];
      bool active[kSlots], has_data[kSlots];
      Vec16 v[kSlots][kVecs];
      // Loads first: every slot's vectors are requested before any is used.
      MXV_QUANTIZE_UNROLL
      for (unsigned s = 0; s < kSlots; ++s) {
        srow[s] = cursor.row();
        kcol[s] = cursor.k();
        cursor.advance();
        active[s] = i + s * stride < items;
        fp4_block::RowSlot<Index> slot{};
        if (active[s]) slot = fp4_block::resolve_row<Index>(ctx, p.tile_rows, p.rows, srow[s]);
        row[s] = slot.row;
        has_data[s] = active[s] && slot.valid && kcol[s] < kb;
        if (has_data[s]) {
          const Index base = (row[s] * cols + kcol[s] * kBlock + part * kLaneElems) * kElemBytes;
          MXV_QUANTIZE_UNROLL
          for (unsigned j = 0; j < kVecs; ++j) v[s][j] = ctx.load16(p.input, std::size_t{base + 16u * j});
        }
      }
      MXV_QUANTIZE_UNROLL
      for (unsigned s = 0; s < kSlots; ++s) {
        if (!active[s]) continue;
        const auto scale_off = static_cast<Index>(i + s * stride);  // item = scale byte (SlotCursor)
        if (!has_data[s]) {
          if (part == 0u) ctx.store(p.scales, scale_off, std::uint8_t{0});  // padding slot
          continue;
        }
        const auto word = [&](unsigned w) { return v[s][w / kWordsPerVec].w[w % kWordsPerVec]; };
        const auto element = [&](unsigned j) {
          if constexpr (kBf16) return cvt::f32_from_bf16(static_cast<std::uint16_t>(word(j >> 1) >> ((j & 1u) * 16u)));
          else return cvt::float_of(word(j));
        };
        // Raw amax of the magnitudes, NaN patterns included (they are the largest).
        std::uint32_t raw = 0;
        if constexpr (kBf16) {
          raw = fp4_block::bf16_pairs_abs_max_bits<kLaneElems / 2u>(word);
        } else {
          raw = fp4_block::f32_abs_max_bits<kLaneElems>(word);
        }
        raw = pair_max(raw);  // both lanes of a pair take the same path below
        const bool finite = raw < qrules::kInfBits;
        std::uint32_t key = raw;
        if (!finite) {  // an Inf or a NaN: the recipe's NaN policy decides the amax
          key = 0;
          for (unsigned j = 0; j < kLaneElems; ++j) key = qrules::max_u32(key, qrules::amax_key(element(j), p.nan_propagates));
          key = pair_max(key);
        }
        const qrules::BlockChoice c = qrules::choose_block<decltype(quick)::value>(kScheme, key, ts);
        // The multiplier of a finite block is not negative (both NVFP4 scale factors carry the
        // tensor scale's sign), as pack_e2m1_word_non_nan requires.
        const bool saturate = finite && fp4_block::e2m1_may_saturate(kScheme, key, c.multiplier);
        const fp4_block::Bf16BlockEncoding encoding = fp4_block::bf16_block_encoding(kScheme, c, saturate);
        // The block's encoder chosen once, not per word (a branch and a convergence barrier each).
        std::uint32_t out[kOutWords];
        if (!finite) {
          fp4_block::pack_e2m1_words<kOutWords>(element, c.multiplier, out);
        } else if constexpr (kBf16) {
          fp4_block::pack_e2m1_words_bf16_block<kOutWords>(word, encoding, out);
        } else {
          fp4_block::pack_e2m1_words_non_nan<kOutWords>(element, c.multiplier, saturate, out);
        }
        // byte_off is a multiple of 8: whole NVFP4 blocks, MX half blocks.
        const Index byte_off = row[s] * row_bytes + kcol[s] * (kBlock / 2u) + part * (kLaneElems / 2u);
        fp4_block::store_code_words<kOutWords>(ctx, p.elements, byte_off, out);
        if (part == 0u) ctx.store(p.scales, scale_off, static_cast<std::uint8_t>(c.code));
      }
    }
  };
  fp4_block::with_block_reciprocal<kScheme == qrules::Scheme::kNvfp4Te>(ts, slot_loop);
}

/// The scalar variant: one thread per scale slot, any K.
template <class Ctx>
MXV_HD void quantize_scalar_body(Ctx& ctx, const QuantizeParams& p) {
  const std::uint64_t block = qrules::block_size(p.scheme);
  const bool nan_prop = p.nan_propagates;
  const std::uint64_t tid = std::uint64_t{ctx.block_idx().x} * ctx.block_dim().x + ctx.thread_idx().x;
  const std::uint64_t stride = std::uint64_t{ctx.grid_dim().x} * ctx.block_dim().x;
  const qrules::Nvfp4TensorScale ts = fp4_block::tensor_scale(ctx, p.scheme, p.amax_bits, p.s_dec_out);
  const auto in_f32 = quantize_detail::retype<float>(p.input);
  const auto in_bf16 = quantize_detail::retype<std::uint16_t>(p.input);
  auto load_x = [&](std::uint64_t idx) -> float {
    return p.input_bf16 ? cvt::f32_from_bf16(ctx.load(in_bf16, idx)) : ctx.load(in_f32, idx);
  };

  for (std::uint64_t item = tid; item < p.items; item += stride) {
    const std::uint64_t scale_row = item / p.kb_slots;
    const std::uint64_t k = item - scale_row * p.kb_slots;
    const fp4_block::RowSlot<> slot = fp4_block::resolve_row<std::uint64_t>(ctx, p.tile_rows, p.rows, scale_row);
    const std::uint64_t off = qrules::scale_offset(p.layout, scale_row, k, p.kb);
    if (!slot.valid || k >= p.kb) {
      ctx.store(p.scales, off, std::uint8_t{0});  // padding slot
      continue;
    }
    const std::uint64_t k0 = k * block;
    const std::uint64_t n = p.cols - k0 < block ? p.cols - k0 : block;  // partial last block
    const std::uint64_t base = slot.row * p.cols + k0;
    std::uint32_t key = 0;
    for (std::uint64_t j = 0; j < n; ++j) key = qrules::max_u32(key, qrules::amax_key(load_x(base + j), nan_prop));
    const qrules::BlockChoice c = qrules::choose_block(p.scheme, key, ts);
    const std::uint64_t out = slot.row * p.row_bytes + k0 / 2u;  // k0 is even: block sizes are even
    for (std::uint64_t j = 0; j < n; j += 2) {
      const float even = load_x(base + j);
      const std::uint32_t byte =
          j + 1u < n ? qrules::pack_pair(even, load_x(base + j + 1u), c.multiplier)
                     : cvt::e2m1x2_from_f32(0.0f, qrules::mul_rn(even, c.multiplier));  // K odd: high nibble 0
      ctx.store(p.elements, out + j / 2u, static_cast<std::uint8_t>(byte));
    }
    ctx.store(p.scales, off, static_cast<std::uint8_t>(c.code));
  }
}

/// Resident blocks the NVFP4 vector kernels with 32-bit indexing declare: five, at 48 registers
/// without spilling (nvcc 13.0); the quick block reciprocal's second slot loop took them to 54-56
/// registers, four blocks (tests/device/kernel_registers_test.cpp holds the budget).
template <qrules::Scheme kScheme, bool kBf16, class Index>
inline constexpr unsigned kQuantizeVectorMinBlocks = kScheme == qrules::Scheme::kNvfp4Te && sizeof(Index) == 4 ? 5u : 1u;

/// The quantize kernels as both backends run them (kernel_family.h).
template <qrules::Scheme kScheme, bool kBf16, class Index>
struct QuantizeVectorKernel
    : KernelOf<QuantizeParams, kQuantizeBlockThreads, kQuantizeVectorMinBlocks<kScheme, kBf16, Index>> {
  template <class Ctx>
  static MXV_HD MXV_FORCEINLINE void run(Ctx& ctx, const QuantizeParams& p) {
    quantize_vector_body<kScheme, kBf16, Index>(ctx, p);
  }
};
struct QuantizeScalarKernel : KernelOf<QuantizeParams, kQuantizeBlockThreads> {
  template <class Ctx>
  static MXV_HD MXV_FORCEINLINE void run(Ctx& ctx, const QuantizeParams& p) { quantize_scalar_body(ctx, p); }
};

/// The quantize family: the scalar kernel, or the vector kernel of the launch's scheme, input
/// type and index width.
struct QuantizeFamily : FamilyOf<QuantizeParams, QuantizeVariant::kVector, QuantizeVariant::kScalar> {
  template <class Visitor>
  static void visit(QuantizeVariant v, const LaunchPlan&, const QuantizeParams& p, Visitor&& visitor) {
    if (v == QuantizeVariant::kScalar) {
      visitor.template operator()<QuantizeScalarKernel>();
    } else {
      visit_scheme_kernel<QuantizeVectorKernel>(p.scheme, p.input_bf16, p.narrow_index, visitor);
    }
  }
};

}  // namespace mxv::device
