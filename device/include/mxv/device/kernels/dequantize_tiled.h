// The tiled weight-dequantize kernel (docs/design.md section 5.2, "dequantize", which also cites
// the ONNX Runtime pull request this tiling follows; section 7, "Performance": >= 85% of the copy
// bandwidth).
//
// Output mapping (every geometry below): a warp covers 4 rows n; the 8 lanes x = 0..7 of a row
// emit 16 bytes each per store instruction, so every store request is 4 full 128-byte lines:
//   - bf16 / fp16: k = kt + 8x .. kt + 8x + 7 (kt = first k of a 64-k tile), one 16-byte store;
//   - fp32: two 16-byte stores of 4 values, k = kt + 32s + 4x + {0..3} (s = 0, 1).
// The 4 (or 8) values of a store never straddle a 16- or 32-k scale block: one scale byte each.
// Every output store is store16_streaming: the launch writes each line once and never reads it, and
// the evict-first hint was worth 0.3-3 points of copy on the H200 (BENCHMARKS.md, run 57).
//
// Three launch geometries, told apart by the block shape the launcher (dequantize.cpp) chose
// (dequant_geometry; each geometry is its own kernel instantiation, kernels/dequantize.h):
//  - "units" (block (256, 1, 1); K-packed [E, N, K/2]): a block covers 64 rows n x
//    64 * dequant_units(out) k. Thread l handles rows n0 + l/8 and n0 + l/8 + 32 and that many
//    64-k tiles, i.e. 4 stores of 16 bytes. All its packed words (one 32-bit / 16-bit load per
//    store: the 8 lanes of a row read 32 / 16 contiguous bytes) and scale bytes are loaded before
//    the first value is computed, so 4 independent loads are in flight per thread (Little's law:
//    with one store per thread, each thread would wait a full memory latency per 16 bytes written).
//    Twice that per thread (8 stores) ran 1-1.5 points slower at 8 x 2048 x 4096 on the H200 and
//    the same at the MoE shape (BENCHMARKS.md); there its 4,096 blocks made 6.2 waves at 5 blocks
//    per SM, so the likely cost is the last, partly filled wave.
//  - "transpose" (block (8, 32); N-packed [E, K, N/2] with N % 32 == 0): a block covers 256 rows n
//    x 64 k. It stages the tile's 64 k rows of 128 packed bytes with 16-byte loads (8 lanes per k
//    row: each warp request is 4 full 128-byte lines) and the 4 (NVFP4) or 2 (MX) scale bytes of
//    each row (one load per thread) in shared memory. Thread (x, g) then owns rows n0 + 8g ..
//    n0 + 8g + 7, i.e. packed word column g: it reads that word from 8 k rows (k = 8x + i for
//    bf16/fp16; 4x + i and 32 + 4x + i for fp32, so each fp32 store instruction also writes full
//    lines), transposes the 8 x 8 nibbles in registers (6 byte permutes per word pair and 4
//    shift/xor steps) so that word j holds row 8g + j's codes along k, and stores each row's 16 (or
//    2 x 16) bytes: the 8 lanes x of a row write one full 128-byte line. The shared tile's word
//    columns are XORed with 4 * ((k row >> 3 or 2) & 7), so the 32 lanes of a read hit 32
//    different banks. Each thread converts 64 values, after 2 16-byte and 1 scale load issued
//    together.
//  - "rows64" (block (8, 64); N-packed [E, K, N/2] with N % 32 != 0): a block covers 64 rows x
//    64 k, thread (x, y) row n0 + y. 64 rows n are exactly 32 packed bytes per k, so the block stages its 64 k x 32
//    bytes in shared memory with byte loads where 32 consecutive lanes read one 32-byte run (every
//    packed sector the block touches is consumed whole), then each thread picks its nibbles from
//    shared memory (rows padded to 33 bytes so the 8 k groups of a warp fall in different banks).
//    Its global access stream is the one tests/emulation/ncu_calibration_test.cpp pins against
//    Nsight Compute, so a change to it must be re-measured there (docs/design.md section 4.3).
//
// Arithmetic. The kernel is specialised per (output type, scale kind) so the hot path is straight
// code, with no test of out_type / scale / packing per value. The general per-value arithmetic
// costs about 25 instructions (branchy e2m1 decode, two NaN-checked multiplies, integer bf16
// rounding), enough to hold K-packed bf16 output at ~30% of copy on the H200 (BENCHMARKS.md,
// "After the first tuning pass", the "before" column). The fast path here, taken for a whole store
// when its scale (and s_dec) are finite, computes the same fp32 value with two plain multiplies:
//   a_raw = fp32 bits (sign << 31) | (e2m1 magnitude << 22)  =  e2m1 value * 2^-126  (exact:
//           exponent field = e2m1 exponent, mantissa bit 22 = e2m1 mantissa; e = 0 lands on the
//           fp32 subnormal 2^-127 = 0.5 * 2^-126);
//   NVFP4: (a_raw * (scale * 2^118)) * (s_dec * 2^8). The first product is a * scale * 2^-8,
//          exact (<= 5 significant bits, >= 2^-18); scale * 2^118 < 2^127 and s_dec * 2^8 are
//          exact (the latter needs |s_dec| < 2^120), so the second product is the single
//          rounding of the real a * scale * s_dec, as the reference's (a * scale) * s_dec is.
//   MX:    (a_raw * 2^126) * scale: the first product is a exactly, the second the one rounding.
// No NaN can arise there (finite factors; the 0 * Inf case needs an infinite factor), so the
// result narrows with cvt.h's finite-input pair conversion (half2_from_f32_finite: the
// hardware's round-to-nearest-even cvt on the GPU, the integer code on the host, which agree on
// every non-NaN value). Any store whose scale decodes to
// NaN / Inf (or whose s_dec is non-finite or >= 2^120) takes the general per-value path, the
// scalar kernel's arithmetic (NaN rules of dequantize_params.h), so results stay byte-exact.
//
// Index math is grid arithmetic (shifts and multiplies; no integer division). The host gate
// (dequantize.h) guarantees K % 64 == 0, N even, the grid within limits and aligned buffers; rows
// n >= N of the last row tile are predicated off.
#pragma once

#include <cstdint>

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernels/dequantize_params.h"
#include "mxv/device/kernels/fp4_block.h"  // byte_perm

// Loops over a thread's stores unroll fully (MXV_UNROLL) so their arrays live in registers. The
// general (NaN-aware) path is a real call on the GPU so the 8 inlined fast paths stay compact
// in the instruction cache; it runs only for stores whose scale is NaN / Inf.
#if defined(__CUDA_ARCH__)
#define MXV_DEQUANT_COLD __noinline__
#else
#define MXV_DEQUANT_COLD
#endif

namespace mxv::device {

inline constexpr unsigned kDequantTileN = 64;    ///< rows n per block
inline constexpr unsigned kDequantTileK = 64;    ///< k per tile (the gate: K % 64 == 0)
inline constexpr unsigned kDequantGroups = 8;    ///< lanes per row: k groups of one tile
inline constexpr unsigned kNPackedRowBytes = 32; ///< packed bytes of 64 rows n at one k
inline constexpr unsigned kNPackedSmemStride = 33;
inline constexpr unsigned kDequantUnitThreads = 256;  ///< "units" geometry: block (256, 1, 1)
inline constexpr unsigned kTransposeTileN = 256;      ///< "transpose" geometry: rows n per block
inline constexpr unsigned kTransposeRowBytes = kTransposeTileN / 2;  ///< packed bytes per k row
inline constexpr unsigned kTransposeGroups = 32;      ///< block (8, 32): 8 rows n per thread
inline constexpr unsigned kTransposeThreads = kDequantGroups * kTransposeGroups;

/// The three launch geometries of the tiled kernel (see the file comment).
enum class DequantGeometry : std::uint8_t { kUnits, kRows64, kTranspose };

/// The geometry a block shape selects: (256, 1) units, (8, 32) transpose, (8, 64) rows64.
MXV_HD constexpr DequantGeometry dequant_geometry(Dim3 block) {
  return block.y == 1u ? DequantGeometry::kUnits
                       : block.y == kTransposeGroups ? DequantGeometry::kTranspose : DequantGeometry::kRows64;
}

/// "units" geometry: 64-k tiles per thread (bf16/fp16: 2 tiles = 2 stores per row; fp32: 1
/// tile = 2 stores per row), so every thread issues 4 16-byte stores over its 2 rows.
MXV_HD constexpr unsigned dequant_units(WideType out) { return out == WideType::kFp32 ? 1u : 2u; }

namespace dequant_detail {

inline constexpr std::uint32_t kTwoPow126Bits = 0x7E800000u;  // 2^126
inline constexpr std::uint32_t kTwoPow118Bits = 0x7A800000u;  // 2^118
inline constexpr float kTwoPow8 = 256.0f;
inline constexpr std::uint32_t kSdecFastLimitBits = 0x7B800000u;  // 2^120

/// The per-thread s_dec facts: its value, and the fast path's pre-scaled factor when usable.
struct SdecInfo {
  float s_dec = 1.0f;
  float scaled = 1.0f;  ///< s_dec * 2^8 (exact when `fast`)
  bool fast = true;     ///< |s_dec| < 2^120 (finite, and the 2^8 scaling cannot overflow)
};

MXV_HD MXV_FORCEINLINE SdecInfo make_sdec(float s_dec) {
  const bool fast = (cvt::bits_of(s_dec) & 0x7FFFFFFFu) < kSdecFastLimitBits;
  return {s_dec, s_dec * kTwoPow8, fast};
}

/// fp32 bits of e2m1 nibble `nib` (bits [3:0]) times 2^-126, sign included (see the file comment).
MXV_HD MXV_FORCEINLINE float e2m1_raw(std::uint32_t nib) {
  return cvt::float_of(((nib & 0x7u) << 22) | ((nib & 0x8u) << 28));
}

/// The general path: the reference-order arithmetic with its NaN rules, one value at a time.
template <WideType kOut>
MXV_HD MXV_DEQUANT_COLD Vec16 convert_store_general(std::uint32_t codes, BlockFactor f) {
  Vec16 v{};
  if constexpr (kOut == WideType::kFp32) {
    for (unsigned j = 0; j < 4; ++j) v.w[j] = narrow_bits(kOut, dequant_value((codes >> (4 * j)) & 0xFu, f));
  } else {
    for (unsigned j = 0; j < 4; ++j) {
      const std::uint32_t lo = narrow_bits(kOut, dequant_value((codes >> (8 * j)) & 0xFu, f));
      const std::uint32_t hi = narrow_bits(kOut, dequant_value((codes >> (8 * j + 4)) & 0xFu, f));
      v.w[j] = lo | (hi << 16);
    }
  }
  return v;
}

/// One store's 16 bytes: the values of the nibbles in `codes` (element j in bits [4j+3:4j]; 8
/// elements for bf16/fp16, 4 for fp32) under the block scale code `scale_code`.
template <WideType kOut, DequantScale kScale>
MXV_HD MXV_FORCEINLINE Vec16 convert_store(std::uint32_t codes, std::uint32_t scale_code, const SdecInfo& sd) {
  constexpr bool kNvfp4 = kScale == DequantScale::kUE4M3;
  constexpr unsigned kValues = kOut == WideType::kFp32 ? 4u : 8u;
  const float scale = decode_scale(kScale, scale_code);
  // The fast factors: value = (a_raw * fa) * fb.
  float fa, fb;
  bool fast;
  if constexpr (kNvfp4) {
    fa = scale * cvt::float_of(kTwoPow118Bits);  // scale <= 448: exact, < 2^127
    fb = sd.scaled;
    fast = sd.fast && (scale_code & 0x7Fu) != 0x7Fu;  // 0x7F / 0xFF: NaN scale
  } else {
    fa = cvt::float_of(kTwoPow126Bits);
    fb = scale;
    fast = (cvt::bits_of(scale) & 0x7F800000u) != 0x7F800000u;  // neither NaN nor Inf
  }
  if (!fast) return convert_store_general<kOut>(codes, BlockFactor{scale, sd.s_dec, kNvfp4});
  Vec16 v{};
  float x[kValues];
  MXV_UNROLL
  for (unsigned j = 0; j < kValues; ++j) x[j] = (e2m1_raw(codes >> (4 * j)) * fa) * fb;
  // Finite values only here: cvt.h's pair conversions (hardware cvt from sm_80; `hi` first).
  if constexpr (kOut == WideType::kFp32) {
    for (unsigned j = 0; j < 4; ++j) v.w[j] = cvt::bits_of(x[j]);
  } else if constexpr (kOut == WideType::kBf16) {
    for (unsigned j = 0; j < 4; ++j) v.w[j] = cvt::half2_from_f32_finite<true>(x[2 * j + 1], x[2 * j]);
  } else {
    for (unsigned j = 0; j < 4; ++j) v.w[j] = cvt::half2_from_f32_finite<false>(x[2 * j + 1], x[2 * j]);
  }
  return v;
}

/// "units" geometry (K-packed only). See the file comment.
template <WideType kOut, DequantScale kScale, class Ctx>
MXV_HD void tiled_units(Ctx& ctx, const DequantizeParams& p) {
  constexpr bool kF32 = kOut == WideType::kFp32;
  constexpr unsigned kUnits = dequant_units(kOut);
  constexpr unsigned kStoresPerUnit = kF32 ? 2u : 1u;
  constexpr unsigned kPerRow = kUnits * kStoresPerUnit;  // 2
  constexpr unsigned kItems = 2 * kPerRow;                // 4 stores per thread
  const Dim3 b = ctx.block_idx();
  const unsigned l = ctx.thread_idx().x;
  const unsigned x = l & 7u;
  const std::uint32_t n_first = b.y * kDequantTileN + (l >> 3);
  const std::uint32_t tiles = p.k / kDequantTileK;  // K % 64 == 0 (the gate)
  const std::uint32_t tile0 = b.x * kUnits;
  const std::uint32_t half_k = p.k >> 1;

  // Item i = (row r = i / kPerRow, unit u, store s): k offset within the row and validity.
  std::uint32_t kk[kPerRow];
  bool unit_ok[kPerRow];
  MXV_UNROLL
  for (unsigned j = 0; j < kPerRow; ++j) {
    const unsigned u = j / kStoresPerUnit, s = j % kStoresPerUnit;
    kk[j] = (tile0 + u) * kDequantTileK + (kF32 ? 32u * s + 4u * x : 8u * x);
    unit_ok[j] = tile0 + u < tiles;
  }
  std::uint64_t row[2];
  bool row_ok[2];
  MXV_UNROLL
  for (unsigned r = 0; r < 2; ++r) {
    const std::uint32_t n = n_first + 32u * r;
    row_ok[r] = n < p.n;
    row[r] = std::uint64_t{b.z} * p.n + n;
  }

  // Every element load first: 4 packed words and 4 scale bytes in flight per thread. s_dec comes
  // after them here: loaded first, it cost 6 registers and 1-2% of copy bandwidth on the H200
  // (BENCHMARKS.md, "Tiled dequantize: register bound and early s_dec load").
  std::uint32_t codes[kItems];
  std::uint32_t scodes[kItems];
  MXV_UNROLL
  for (unsigned i = 0; i < kItems; ++i) {
    const unsigned r = i / kPerRow, j = i % kPerRow;
    codes[i] = 0;
    scodes[i] = 0;
    if (row_ok[r] && unit_ok[j]) {
      const std::uint64_t byte = row[r] * half_k + (kk[j] >> 1);
      if constexpr (kF32) {
        codes[i] = ctx.load(GlobalPtr<std::uint16_t>{reinterpret_cast<std::uint16_t*>(p.packed.raw)}, byte >> 1);
      } else {
        codes[i] = ctx.load(GlobalPtr<std::uint32_t>{reinterpret_cast<std::uint32_t*>(p.packed.raw)}, byte >> 2);
      }
      scodes[i] = ctx.load(p.scales, row[r] * p.scale_cols + (kk[j] >> p.block_shift));
    }
  }

  SdecInfo sd{};
  if constexpr (kScale == DequantScale::kUE4M3) sd = make_sdec(load_s_dec(ctx, p, b.z));
  MXV_UNROLL
  for (unsigned i = 0; i < kItems; ++i) {
    const unsigned r = i / kPerRow, j = i % kPerRow;
    if (row_ok[r] && unit_ok[j]) {
      const Vec16 v = convert_store<kOut, kScale>(codes[i], scodes[i], sd);
      const std::uint64_t o = row[r] * p.k + kk[j];
      if constexpr (kF32) {
        ctx.store16_streaming(GlobalPtr<float>{reinterpret_cast<float*>(p.out.raw)}, o, v);
      } else {
        ctx.store16_streaming(GlobalPtr<std::uint16_t>{reinterpret_cast<std::uint16_t*>(p.out.raw)}, o, v);
      }
    }
  }
}

/// "rows64" geometry (N-packed; also takes K-packed). Its access stream is the one the ncu
/// calibration test pins.
template <WideType kOut, DequantScale kScale, class Ctx>
MXV_HD void tiled_rows64(Ctx& ctx, const DequantizeParams& p) {
  constexpr bool kF32 = kOut == WideType::kFp32;
  constexpr unsigned kValues = kF32 ? 4u : 8u;  // per 16-byte store
  constexpr unsigned kStores = kF32 ? 2u : 1u;
  const Dim3 b = ctx.block_idx();
  const Dim3 t = ctx.thread_idx();
  const std::uint32_t e = b.z;
  const std::uint32_t n0 = b.y * kDequantTileN;
  const std::uint32_t k0 = b.x * kDequantTileK;
  const std::uint32_t n = n0 + t.y;
  const std::uint64_t row = std::uint64_t{e} * p.n + n;  // output row (e, n)

  // s_dec first, so its load overlaps the staging loads rather than following the barrier; only
  // threads whose row exists load it (the access stream the calibration test pins).
  SdecInfo sd{};
  if constexpr (kScale == DequantScale::kUE4M3) {
    if (n < p.n) sd = make_sdec(load_s_dec(ctx, p, e));
  }

  // N-packed: stage the block's 64 k x 32 bytes. Linear thread id l covers bytes l + 512*i;
  // 32 consecutive ids are one k row of 32 contiguous bytes.
  SharedPtr<std::uint8_t> tile{};
  if (p.packing == WeightPacking::kNPacked) {
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

  for (unsigned s = 0; s < kStores; ++s) {
    const std::uint32_t kk = kF32 ? k0 + 32u * s + 4u * t.x : k0 + 8u * t.x;  // first k of this store
    std::uint32_t codes = 0;  // nibble j = element kk + j
    if (p.packing == WeightPacking::kKPacked) {
      const std::uint64_t byte = row * (p.k >> 1) + (kk >> 1);
      if constexpr (kF32) {
        codes = ctx.load(GlobalPtr<std::uint16_t>{reinterpret_cast<std::uint16_t*>(p.packed.raw)}, byte >> 1);
      } else {
        codes = ctx.load(GlobalPtr<std::uint32_t>{reinterpret_cast<std::uint32_t*>(p.packed.raw)}, byte >> 2);
      }
    } else {
      const std::uint32_t shift = (t.y & 1u) * 4u;
      for (unsigned j = 0; j < kValues; ++j) {
        const std::uint32_t byte = ctx.load(tile, (kk - k0 + j) * kNPackedSmemStride + (t.y >> 1));
        codes |= ((byte >> shift) & 0xFu) << (4 * j);
      }
    }
    const std::uint32_t scale_code = ctx.load(p.scales, row * p.scale_cols + (kk >> p.block_shift));
    const Vec16 v = convert_store<kOut, kScale>(codes, scale_code, sd);
    if constexpr (kF32) {
      ctx.store16_streaming(GlobalPtr<float>{reinterpret_cast<float*>(p.out.raw)}, row * p.k + kk, v);
    } else {
      ctx.store16_streaming(GlobalPtr<std::uint16_t>{reinterpret_cast<std::uint16_t*>(p.out.raw)}, row * p.k + kk, v);
    }
  }
}

/// The 8 x 8 nibble matrix held in w (nibble j of w[i] = M[i][j]) transposed in place (nibble i
/// of w[j] = M[i][j]): halves between words i and i + 4, then bytes between i and i + 2, then
/// nibbles between i and i + 1, each step transposing the blocks the previous one left in place.
MXV_HD MXV_FORCEINLINE void transpose_nibbles_8x8(std::uint32_t (&w)[8]) {
  MXV_UNROLL
  for (unsigned i = 0; i < 4; ++i) {
    const std::uint32_t a = w[i], b = w[i + 4];
    w[i] = fp4_block::byte_perm(a, b, 0x5410u);      // [a.b0, a.b1, b.b0, b.b1]
    w[i + 4] = fp4_block::byte_perm(a, b, 0x7632u);  // [a.b2, a.b3, b.b2, b.b3]
  }
  MXV_UNROLL
  for (unsigned j = 0; j < 4; ++j) {
    const unsigned i = (j & 1u) | ((j & 2u) << 1);  // 0, 1, 4, 5
    const std::uint32_t a = w[i], b = w[i + 2];
    w[i] = fp4_block::byte_perm(a, b, 0x6240u);      // [a.b0, b.b0, a.b2, b.b2]
    w[i + 2] = fp4_block::byte_perm(a, b, 0x7351u);  // [a.b1, b.b1, a.b3, b.b3]
  }
  MXV_UNROLL
  for (unsigned i = 0; i < 8; i += 2) {
    const std::uint32_t t = ((w[i] >> 4) ^ w[i + 1]) & 0x0F0F0F0Fu;
    w[i] ^= t << 4;
    w[i + 1] ^= t;
  }
}

/// "transpose" geometry (N-packed, N % 32 == 0). See the file comment.
template <WideType kOut, DequantScale kScale, class Ctx>
MXV_HD void tiled_transpose(Ctx& ctx, const DequantizeParams& p) {
  constexpr bool kF32 = kOut == WideType::kFp32;
  constexpr bool kNvfp4 = kScale == DequantScale::kUE4M3;
  constexpr unsigned kWordsPerRow = kTransposeRowBytes / 4;                  // 32
  constexpr unsigned kChunks = kDequantTileK * kTransposeRowBytes / 16 / kTransposeThreads;  // 2
  // Reads of one instruction come from k rows 8x + i (bf16/fp16) or 4x + i, 32 + 4x + i (fp32):
  // x = (row >> kSwizzleShift) & 7 in both, and the word column XORed with 4x puts the 32 lanes
  // (8 x, 4 column groups) on 32 different banks.
  constexpr unsigned kSwizzleShift = kF32 ? 2u : 3u;
  const auto column = [](std::uint32_t r, std::uint32_t c) { return r * kWordsPerRow + (c ^ (4u * ((r >> kSwizzleShift) & 7u))); };
  const Dim3 b = ctx.block_idx();
  const Dim3 t = ctx.thread_idx();
  const std::uint32_t e = b.z;
  const std::uint32_t n0 = b.y * kTransposeTileN;
  const std::uint32_t k0 = b.x * kDequantTileK;
  const std::uint32_t l = t.y * kDequantGroups + t.x;
  const std::uint32_t row_bytes = p.n >> 1;  // a multiple of 16 (the gate: N % 32 == 0)

  // Loads, all issued first: s_dec (NVFP4, by the threads that will convert rows: its latency
  // hides behind the staging loads instead of following the barrier), 64 k rows x 128 bytes in
  // 16-byte chunks (8 lanes per k row, 4 full lines per warp request), and the 4 (NVFP4) or 2 (MX)
  // scale bytes of row n0 + l.
  const bool converts = n0 + 8u * t.y < p.n;  // N % 8 == 0: all 8 rows of thread (x, y) or none
  SdecInfo sd{};
  if constexpr (kNvfp4) {
    if (converts) sd = make_sdec(load_s_dec(ctx, p, e));
  }
  Vec16 chunk[kChunks];
  bool chunk_ok[kChunks];
  MXV_UNROLL
  for (unsigned i = 0; i < kChunks; ++i) {
    const std::uint32_t q = l + i * kTransposeThreads, r = q >> 3, part = q & 7u;
    chunk_ok[i] = (n0 >> 1) + 16u * part < row_bytes;
    if (chunk_ok[i]) {
      const std::uint64_t byte = (std::uint64_t{e} * p.k + k0 + r) * row_bytes + (n0 >> 1) + 16u * part;
      chunk[i] = ctx.load16(GlobalPtr<std::uint32_t>{reinterpret_cast<std::uint32_t*>(p.packed.raw)}, byte >> 2);
    }
  }
  const bool scale_row_ok = n0 + l < p.n;
  std::uint32_t scale_word = 0;
  if (scale_row_ok) {
    const std::uint64_t byte = (std::uint64_t{e} * p.n + n0 + l) * p.scale_cols + (k0 >> (kNvfp4 ? 4u : 5u));
    if constexpr (kNvfp4) {
      scale_word = ctx.load(GlobalPtr<std::uint32_t>{reinterpret_cast<std::uint32_t*>(p.scales.raw)}, byte >> 2);
    } else {
      scale_word = ctx.load(GlobalPtr<std::uint16_t>{reinterpret_cast<std::uint16_t*>(p.scales.raw)}, byte >> 1);
    }
  }
  SharedPtr<std::uint32_t> tile = ctx.template shared_array<std::uint32_t, kDequantTileK * kWordsPerRow, 1>();
  SharedPtr<std::uint32_t> tile_scales = ctx.template shared_array<std::uint32_t, kTransposeTileN, 2>();
  MXV_UNROLL
  for (unsigned i = 0; i < kChunks; ++i) {
    const std::uint32_t q = l + i * kTransposeThreads, r = q >> 3, part = q & 7u;
    if (!chunk_ok[i]) continue;
    MXV_UNROLL
    for (unsigned j = 0; j < 4; ++j) ctx.store(tile, column(r, 4u * part + j), chunk[i].w[j]);
  }
  if (scale_row_ok) ctx.store(tile_scales, l, scale_word);
  ctx.syncthreads();

  // Thread (x, g): rows n0 + 8g .. n0 + 8g + 7 (packed word column g), k group x.
  const std::uint32_t x = t.x, g = t.y;
  if (!converts) return;  // after the barrier
  std::uint32_t w[8];
  MXV_UNROLL
  for (unsigned i = 0; i < 8; ++i) {
    const std::uint32_t r = kF32 ? (i < 4 ? 4u * x + i : 32u + 4u * x + (i - 4)) : 8u * x + i;
    w[i] = ctx.load(tile, column(r, g));
  }
  transpose_nibbles_8x8(w);  // w[j]: row n0 + 8g + j, nibble i = the i-th k read above

  constexpr unsigned kBlockShift = kNvfp4 ? 4u : 5u;
  MXV_UNROLL
  for (unsigned j = 0; j < 8; ++j) {
    const std::uint32_t local = 8u * g + j;
    const std::uint32_t scales = ctx.load(tile_scales, local);
    const std::uint64_t out_row = (std::uint64_t{e} * p.n + n0 + local) * p.k;
    if constexpr (kF32) {
      MXV_UNROLL
      for (unsigned s = 0; s < 2; ++s) {
        const std::uint32_t kk = 32u * s + 4u * x;  // k offset in the tile
        const std::uint32_t code = (scales >> (8u * (kk >> kBlockShift))) & 0xFFu;
        const Vec16 v = convert_store<kOut, kScale>(w[j] >> (16u * s), code, sd);
        ctx.store16_streaming(GlobalPtr<float>{reinterpret_cast<float*>(p.out.raw)}, out_row + k0 + kk, v);
      }
    } else {
      const std::uint32_t kk = 8u * x;
      const std::uint32_t code = (scales >> (8u * (kk >> kBlockShift))) & 0xFFu;
      const Vec16 v = convert_store<kOut, kScale>(w[j], code, sd);
      ctx.store16_streaming(GlobalPtr<std::uint16_t>{reinterpret_cast<std::uint16_t*>(p.out.raw)}, out_row + k0 + kk, v);
    }
  }
}

template <DequantGeometry kGeometry, WideType kOut, DequantScale kScale, class Ctx>
MXV_HD void tiled_geometry(Ctx& ctx, const DequantizeParams& p) {
  if constexpr (kGeometry == DequantGeometry::kUnits) {
    tiled_units<kOut, kScale>(ctx, p);
  } else if constexpr (kGeometry == DequantGeometry::kTranspose) {
    tiled_transpose<kOut, kScale>(ctx, p);
  } else {
    tiled_rows64<kOut, kScale>(ctx, p);
  }
}

template <DequantGeometry kGeometry, WideType kOut, class Ctx>
MXV_HD void tiled_dispatch_scale(Ctx& ctx, const DequantizeParams& p) {
  switch (p.scale) {
    case DequantScale::kE8M0: tiled_geometry<kGeometry, kOut, DequantScale::kE8M0>(ctx, p); return;
    case DequantScale::kE8M0OrtQmoe: tiled_geometry<kGeometry, kOut, DequantScale::kE8M0OrtQmoe>(ctx, p); return;
    case DequantScale::kE8M0Flushed: tiled_geometry<kGeometry, kOut, DequantScale::kE8M0Flushed>(ctx, p); return;
    case DequantScale::kUE4M3: tiled_geometry<kGeometry, kOut, DequantScale::kUE4M3>(ctx, p); return;
  }
}

}  // namespace dequant_detail

/// One geometry's kernel (each is its own kernel instantiation, kernels/dequantize.h, so each
/// gets its own register allocation): kUnits with block (256, 1, 1), grid (ceil(K / (64 *
/// dequant_units(out))), ceil(N/64), E), K-packed only; kTranspose with block (8, 32), grid (K/64,
/// ceil(N/256), E), N-packed with N % 32 == 0; kRows64 with block (8, 64), grid (K/64, ceil(N/64),
/// E), either packing.
template <DequantGeometry kGeometry, class Ctx>
MXV_HD void dequantize_tiled_geometry_body(Ctx& ctx, const DequantizeParams& p) {
  using namespace dequant_detail;
  switch (p.out_type) {
    case WideType::kFp32: tiled_dispatch_scale<kGeometry, WideType::kFp32>(ctx, p); return;
    case WideType::kBf16: tiled_dispatch_scale<kGeometry, WideType::kBf16>(ctx, p); return;
    case WideType::kFp16: tiled_dispatch_scale<kGeometry, WideType::kFp16>(ctx, p); return;
  }
}

}  // namespace mxv::device
