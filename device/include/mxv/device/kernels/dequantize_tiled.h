// The tiled weight-dequantize kernel (design story: /work/shared/seeds/coalesced-fp4-dequant-pr.txt;
// DESIGN.md "Production kernels", dequantize). A block covers 64 consecutive rows n x 64
// consecutive k of one expert: threadIdx.x (0..7) selects a k group, threadIdx.y (0..63) the row.
// Each thread emits 8 values:
//   - bf16 / fp16: k = k0 + 8x .. k0 + 8x + 7, one 16-byte store; the 8 lanes of a row in a warp
//     write one contiguous 128-byte line (a warp: 4 rows, 4 full lines per request);
//   - fp32: two 16-byte stores of 4 values, k = k0 + 4x + 32s + {0..3} (s = 0, 1), so each store
//     instruction of the 8 lanes of a row is again one full 128-byte line (a contiguous 8-value
//     run would make every request write half of 8 sectors).
// The block scale (and s_dec) is read once per store, i.e. once per 8 values for bf16/fp16 and
// once per 4 for fp32 (the 4 values of a store never straddle a 16- or 32-k block).
// Packed reads:
//   - K-packed [E, N, K/2]: each store's nibbles are 4 (or 2) consecutive aligned bytes of the
//     thread's row: one 32-bit (16-bit) load; the 8 lanes of a row read 32 contiguous bytes.
//   - N-packed [E, K, N/2]: 64 rows n are exactly 32 packed bytes per k, so the block stages its
//     64 k x 32 bytes in shared memory with byte loads where 32 consecutive lanes read one 32-byte
//     run (every packed sector the block touches is consumed whole), then each thread picks its
//     nibbles from shared memory (rows padded to 33 bytes so the 8 k groups of a warp fall in
//     different banks).
// Index math is pure grid arithmetic (shifts and multiplies; no integer division): grid =
// (K/64, ceil(N/64), E). The host gate (dequantize.h) guarantees K % 64 == 0, N even, the grid
// within limits and aligned buffers; rows n >= N of the last row tile are predicated off.
#pragma once

#include <cstdint>

#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernels/dequantize_params.h"

namespace mxv::device {

inline constexpr unsigned kDequantTileN = 64;    ///< rows n per block
inline constexpr unsigned kDequantTileK = 64;    ///< k per block
inline constexpr unsigned kDequantGroups = 8;    ///< threadIdx.x range: k groups of 8 values
inline constexpr unsigned kNPackedRowBytes = 32; ///< packed bytes of 64 rows n at one k
inline constexpr unsigned kNPackedSmemStride = 33;

namespace dequant_detail {

/// One thread's `values_per_store` outputs starting at k (all in one scale block), from nibbles
/// in `codes` (element j in bits [4j+3:4j]), stored as one 16-byte vector at output element `o`.
template <class Ctx>
MXV_HD MXV_FORCEINLINE void emit16(Ctx& ctx, const DequantizeParams& p, std::uint64_t o, std::uint32_t codes,
                                   const BlockFactor& f) {
  Vec16 v{};
  if (p.out_type == WideType::kF32) {
    for (unsigned j = 0; j < 4; ++j) v.w[j] = narrow_bits(WideType::kF32, dequant_value((codes >> (4 * j)) & 0xFu, f));
    ctx.store16(GlobalPtr<float>{reinterpret_cast<float*>(p.out.raw)}, o, v);
  } else {
    for (unsigned j = 0; j < 4; ++j) {
      const std::uint32_t lo = narrow_bits(p.out_type, dequant_value((codes >> (8 * j)) & 0xFu, f));
      const std::uint32_t hi = narrow_bits(p.out_type, dequant_value((codes >> (8 * j + 4)) & 0xFu, f));
      v.w[j] = lo | (hi << 16);
    }
    ctx.store16(GlobalPtr<std::uint16_t>{reinterpret_cast<std::uint16_t*>(p.out.raw)}, o, v);
  }
}

}  // namespace dequant_detail

/// grid = (K/64, ceil(N/64), E), block = (8, 64). See the file comment for the mapping.
template <class Ctx>
MXV_HD void dequantize_tiled_body(Ctx& ctx, const DequantizeParams& p) {
  using namespace dequant_detail;
  const Dim3 b = ctx.block_idx();
  const Dim3 t = ctx.thread_idx();
  const std::uint32_t e = b.z;
  const std::uint32_t n0 = b.y * kDequantTileN;
  const std::uint32_t k0 = b.x * kDequantTileK;
  const std::uint32_t n = n0 + t.y;
  const std::uint64_t row = std::uint64_t{e} * p.n + n;  // output row (e, n)
  const bool fp32 = p.out_type == WideType::kF32;
  const unsigned values = fp32 ? 4u : 8u;  // per 16-byte store
  const unsigned stores = fp32 ? 2u : 1u;

  // N-packed: stage the block's 64 k x 32 bytes. Linear thread id l covers bytes l + 512*i;
  // 32 consecutive ids are one k row of 32 contiguous bytes.
  SharedPtr<std::uint8_t> tile{};
  if (p.packing == WeightPackingAxis::kN) {
    tile = ctx.template shared_array<std::uint8_t, kDequantTileK * kNPackedSmemStride, 0>();
    const std::uint32_t l = t.y * kDequantGroups + t.x;
    const std::uint32_t row_bytes = p.n >> 1;         // N/2 packed bytes per k
    const std::uint32_t first = n0 >> 1;              // this tile's first byte in a k row
    const std::uint32_t avail = row_bytes - first;    // bytes of the tile inside the row (>= 1)
    for (std::uint32_t i = 0; i < (kDequantTileK * kNPackedRowBytes) / (kDequantTileN * kDequantGroups); ++i) {
      const std::uint32_t byte = l + i * kDequantTileN * kDequantGroups;
      const std::uint32_t r = byte >> 5, c = byte & 31u;
      if (c < avail) {
        const std::uint64_t src = (std::uint64_t{e} * p.k + k0 + r) * row_bytes + first + c;
        ctx.store(tile, r * kNPackedSmemStride + c, ctx.load(p.packed, src));
      }
    }
    ctx.syncthreads();
  }
  if (n >= p.n) return;  // after the barrier: every thread took part in staging

  const float s_dec = load_s_dec(ctx, p, e);
  for (unsigned s = 0; s < stores; ++s) {
    const std::uint32_t kk = fp32 ? k0 + 32u * s + 4u * t.x : k0 + 8u * t.x;  // first k of this store
    std::uint32_t codes = 0;  // nibble j = element kk + j
    if (p.packing == WeightPackingAxis::kK) {
      const std::uint64_t byte = row * (p.k >> 1) + (kk >> 1);
      if (fp32) {
        codes = ctx.load(GlobalPtr<std::uint16_t>{reinterpret_cast<std::uint16_t*>(p.packed.raw)}, byte >> 1);
      } else {
        codes = ctx.load(GlobalPtr<std::uint32_t>{reinterpret_cast<std::uint32_t*>(p.packed.raw)}, byte >> 2);
      }
    } else {
      const std::uint32_t shift = (t.y & 1u) * 4u;
      for (unsigned j = 0; j < values; ++j) {
        const std::uint32_t byte = ctx.load(tile, (kk - k0 + j) * kNPackedSmemStride + (t.y >> 1));
        codes |= ((byte >> shift) & 0xFu) << (4 * j);
      }
    }
    const std::uint64_t scale_index = row * p.scale_cols + (kk >> p.block_shift);
    const BlockFactor f{decode_scale(p.scale, ctx.load(p.scales, scale_index)), s_dec,
                        p.scale == DequantScale::kUE4M3};
    emit16(ctx, p, row * p.k + kk, codes, f);
  }
}

}  // namespace mxv::device
