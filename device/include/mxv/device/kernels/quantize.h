// The quantize kernel bodies: activations [M, K] (fp32 or bf16, row-major) -> packed E2M1
// [M, ceil(K/2)] + one scale byte per (row, block) in the linear or swizzled 128x4 layout (its
// padding written as zero), for nvfp4_te, mxfp4_nvidia and mxfp4_ocp (SEMANTICS.md sections 4-5).
// Grouped (MoE) rows: the activations and elements are compact; each expert's scales sit in its
// own 128-row tiles starting at a padded row (SEMANTICS.md section 5, "Grouped (MoE) rows").
//
// Two variants, chosen by the host launcher (quantize.cpp) and recorded in the launch plan:
//  - vector ("quantize_vector"): K a multiple of the block size. Each lane loads 16-byte vectors
//    (4 fp32 or 8 bf16 elements), kQuantizeVectorSlots of them per step, all issued before use; a
//    block is 2..8 adjacent lanes, whose amax meets through butterfly shuffles; every lane then
//    converts its own elements and stores them as one 2- or 4-byte word, so a warp reads 512
//    contiguous bytes and writes 64..128 contiguous bytes per slot.
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

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernels/fp4_block.h"
#include "mxv/device/kernels/quantize_rules.h"

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

/// Arguments of one quantize launch (built by quantize.cpp; every size already validated).
struct QuantizeParams {
  QuantizeVariant variant = QuantizeVariant::kScalar;
  qrules::Scheme scheme = qrules::Scheme::kNvfp4Te;
  qrules::ScaleLayoutKind layout = qrules::ScaleLayoutKind::kLinear;
  bool input_bf16 = false;
  bool nan_propagates = false;   ///< the recipe's NaN-in-amax policy (true: NaN reaches the amax)
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

/// Which activation row a scale row holds, if any (padding rows hold none).
struct RowSlot {
  bool valid = false;
  std::uint64_t row = 0;
};

template <class Ctx>
MXV_HD MXV_FORCEINLINE RowSlot resolve_row(Ctx& ctx, const QuantizeParams& p, std::uint64_t scale_row) {
  if (p.tile_rows.raw == nullptr) return {scale_row < p.rows, scale_row};
  const std::uint64_t tile = scale_row >> 7;
  const std::uint32_t first = ctx.load(p.tile_rows, 2u * tile);
  const std::uint32_t count = ctx.load(p.tile_rows, 2u * tile + 1u);
  const std::uint64_t local = scale_row & 127u;
  return {local < count, std::uint64_t{first} + local};
}

}  // namespace quantize_detail

/// Items (lane vectors) a thread of the vector variant keeps in flight: all their loads are issued
/// before the first is used (the previous kernel did one load, then waited on it before storing).
inline constexpr unsigned kQuantizeVectorSlots = 4;

/// The vector variant. `kElems` = elements per 16-byte lane vector: 4 (fp32) or 8 (bf16).
/// Lane i of the grid-stride walk handles lane vectors i, i + stride, i + 2 stride, ... taken
/// kQuantizeVectorSlots at a time. Lane vector i is sub-lane i % lanes of item i / lanes, and item
/// = scale_row * kb_slots + k; the (scale_row, k) pair is divided out once per thread and then
/// advanced by the constant item stride with a compare instead of a 64-bit division per item
/// (a 64-bit division is a ~70-instruction subroutine on the GPU, more than the conversions).
template <unsigned kElems, class Ctx>
MXV_HD void quantize_vector_body(Ctx& ctx, const QuantizeParams& p) {
  static_assert(kElems == 4 || kElems == 8);
  constexpr unsigned kSlots = kQuantizeVectorSlots;
  const bool bf16 = kElems == 8;
  const unsigned block = qrules::block_size(p.scheme);
  const unsigned lanes = block / kElems;  // 2, 4 or 8 lanes per block: a power of two
  const unsigned shift = lanes == 2u ? 1u : (lanes == 4u ? 2u : 3u);
  const bool nan_prop = p.nan_propagates;
  const std::uint64_t total = p.items << shift;
  const std::uint64_t tid = std::uint64_t{ctx.block_idx().x} * ctx.block_dim().x + ctx.thread_idx().x;
  const std::uint64_t stride = std::uint64_t{ctx.grid_dim().x} * ctx.block_dim().x;  // multiple of 32
  const qrules::Nvfp4TensorScale ts = fp4_block::tensor_scale(ctx, p.scheme, p.amax_bits, p.s_dec_out);
  const unsigned sub = static_cast<unsigned>(tid & (lanes - 1u));  // the same for every step
  // (scale_row, k) of item tid / lanes, stepped by the item stride (stride / lanes, exact).
  fp4_block::SlotCursor cursor = fp4_block::slot_cursor(tid >> shift, stride >> shift, p.kb_slots);

  // The trip count is uniform across a warp (the loop tests the warp's first lane), so every lane
  // reaches every shuffle; lanes and slots past the end carry amax 0 and store nothing.
  for (std::uint64_t i = tid; (i & ~std::uint64_t{31}) < total; i += kSlots * stride) {
    std::uint64_t srow[kSlots], kcol[kSlots], row[kSlots];
    bool active[kSlots], has_data[kSlots];
    Vec16 v[kSlots];
    // Loads first: every slot's vector is requested before any is used.
    MXV_QUANTIZE_UNROLL
    for (unsigned s = 0; s < kSlots; ++s) {
      srow[s] = cursor.row;
      kcol[s] = cursor.k;
      cursor.advance();
      active[s] = i + s * stride < total;
      quantize_detail::RowSlot slot{};
      if (active[s]) slot = quantize_detail::resolve_row(ctx, p, srow[s]);
      row[s] = slot.row;
      has_data[s] = active[s] && slot.valid && kcol[s] < p.kb;
      v[s] = Vec16{};
      if (has_data[s]) {
        const std::uint64_t col = kcol[s] * block + std::uint64_t{sub} * kElems;
        v[s] = ctx.load16(p.input, (row[s] * p.cols + col) * (bf16 ? 2u : 4u));
      }
    }
    MXV_QUANTIZE_UNROLL
    for (unsigned s = 0; s < kSlots; ++s) {
      const auto element = [&](unsigned j) { return fp4_block::vec16_element(v[s], j, bf16); };
      std::uint32_t key = 0;
      if (has_data[s]) {
        for (unsigned j = 0; j < kElems; ++j) key = qrules::max_u32(key, qrules::amax_key(element(j), nan_prop));
      }
      key = fp4_block::block_amax(ctx, key, lanes);

      if (has_data[s]) {
        const qrules::BlockChoice c = qrules::choose_block(p.scheme, key, ts);
        const std::uint32_t word = fp4_block::pack_e2m1_word<kElems>(element, c.multiplier);
        const std::uint64_t col = kcol[s] * block + std::uint64_t{sub} * kElems;
        const std::uint64_t byte_off = row[s] * p.row_bytes + col / 2u;
        if (kElems == 4) {
          ctx.store(quantize_detail::retype<std::uint16_t>(p.elements), byte_off / 2u, static_cast<std::uint16_t>(word));
        } else {
          ctx.store(quantize_detail::retype<std::uint32_t>(p.elements), byte_off / 4u, word);
        }
        if (sub == 0u) {
          ctx.store(p.scales, qrules::scale_offset(p.layout, srow[s], kcol[s], p.kb), static_cast<std::uint8_t>(c.code));
        }
      } else if (active[s] && sub == 0u) {
        ctx.store(p.scales, qrules::scale_offset(p.layout, srow[s], kcol[s], p.kb), std::uint8_t{0});  // padding slot
      }
    }
  }
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
    const quantize_detail::RowSlot slot = quantize_detail::resolve_row(ctx, p, scale_row);
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

/// The one entry both backends call: dispatches on the variant and the input type.
template <class Ctx>
MXV_HD void quantize_kernel(Ctx& ctx, const QuantizeParams& p) {
  if (p.variant == QuantizeVariant::kScalar) {
    quantize_scalar_body(ctx, p);
  } else if (p.input_bf16) {
    quantize_vector_body<8>(ctx, p);
  } else {
    quantize_vector_body<4>(ctx, p);
  }
}

}  // namespace mxv::device
