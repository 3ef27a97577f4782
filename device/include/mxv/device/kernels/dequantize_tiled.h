// The tiled weight-dequantize kernel (docs/design.md section 5.2, "dequantize", which also cites
// the ONNX Runtime pull request this tiling follows; section 7, "Performance": >= 85% of the copy
// bandwidth).
//
// Output mapping (both geometries below): a warp covers 4 rows n; the 8 lanes x = 0..7 of a row
// emit 16 bytes each per store instruction, so every store request is 4 full 128-byte lines:
//   - bf16 / fp16: k = kt + 8x .. kt + 8x + 7 (kt = first k of a 64-k tile), one 16-byte store;
//   - fp32: two 16-byte stores of 4 values, k = kt + 32s + 4x + {0..3} (s = 0, 1).
// The 4 (or 8) values of a store never straddle a 16- or 32-k scale block: one scale byte each.
//
// Two launch geometries, told apart by the block shape the launcher (dequantize.cpp) chose:
//  - "units" (block (256, 1, 1); K-packed [E, N, K/2]): a block covers 64 rows n x
//    64 * kDequantUnits<out> k. Thread l handles rows n0 + l/8 and n0 + l/8 + 32 and that many
//    64-k tiles, i.e. 8 stores of 16 bytes. All its packed words (one 32-bit / 16-bit load per
//    store: the 8 lanes of a row read 32 / 16 contiguous bytes) and scale bytes are loaded before
//    the first value is computed, so 8 independent loads are in flight per thread (Little's law:
//    with one store per thread, each thread would wait a full memory latency per 16 bytes written).
//  - "rows64" (block (8, 64); N-packed [E, K, N/2]): a block covers 64 rows x 64 k, thread (x, y)
//    row n0 + y. 64 rows n are exactly 32 packed bytes per k, so the block stages its 64 k x 32
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
// result narrows with cvt.h's finite-input pair conversion (bf16x2_from_f32_finite /
// fp16x2_from_f32_finite: the hardware's round-to-nearest-even cvt on the GPU, the integer code on
// the host, which agree on every non-NaN value). Any store whose scale decodes to
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

// Loops over a thread's stores must unroll fully so their arrays live in registers (nvcc's
// heuristic gives up on bodies that contain the general path). Not logic: the host ignores it.
// The general (NaN-aware) path is a real call on the GPU so the 8 inlined fast paths stay compact
// in the instruction cache; it runs only for stores whose scale is NaN / Inf.
#if defined(__CUDA_ARCH__)
#define MXV_DEQUANT_UNROLL _Pragma("unroll")
#define MXV_DEQUANT_COLD __noinline__
#else
#define MXV_DEQUANT_UNROLL
#define MXV_DEQUANT_COLD
#endif

namespace mxv::device {

inline constexpr unsigned kDequantTileN = 64;    ///< rows n per block
inline constexpr unsigned kDequantTileK = 64;    ///< k per tile (the gate: K % 64 == 0)
inline constexpr unsigned kDequantGroups = 8;    ///< lanes per row: k groups of one tile
inline constexpr unsigned kNPackedRowBytes = 32; ///< packed bytes of 64 rows n at one k
inline constexpr unsigned kNPackedSmemStride = 33;
inline constexpr unsigned kDequantUnitThreads = 256;  ///< "units" geometry: block (256, 1, 1)

/// "units" geometry: 64-k tiles per thread (bf16/fp16: 4 tiles = 4 stores per row; fp32: 2
/// tiles = 4 stores per row), so every thread issues 8 16-byte stores over its 2 rows.
MXV_HD constexpr unsigned dequant_units(WideType out) { return out == WideType::kF32 ? 2u : 4u; }

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
  if constexpr (kOut == WideType::kF32) {
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
  constexpr unsigned kValues = kOut == WideType::kF32 ? 4u : 8u;
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
  MXV_DEQUANT_UNROLL
  for (unsigned j = 0; j < kValues; ++j) x[j] = (e2m1_raw(codes >> (4 * j)) * fa) * fb;
  // Finite values only here: cvt.h's pair conversions (hardware cvt from sm_80; `hi` first).
  if constexpr (kOut == WideType::kF32) {
    for (unsigned j = 0; j < 4; ++j) v.w[j] = cvt::bits_of(x[j]);
  } else if constexpr (kOut == WideType::kBf16) {
    for (unsigned j = 0; j < 4; ++j) v.w[j] = cvt::bf16x2_from_f32_finite(x[2 * j + 1], x[2 * j]);
  } else {
    for (unsigned j = 0; j < 4; ++j) v.w[j] = cvt::fp16x2_from_f32_finite(x[2 * j + 1], x[2 * j]);
  }
  return v;
}

/// "units" geometry (K-packed only). See the file comment.
template <WideType kOut, DequantScale kScale, class Ctx>
MXV_HD void tiled_units(Ctx& ctx, const DequantizeParams& p) {
  constexpr bool kF32 = kOut == WideType::kF32;
  constexpr unsigned kUnits = dequant_units(kOut);
  constexpr unsigned kStoresPerUnit = kF32 ? 2u : 1u;
  constexpr unsigned kPerRow = kUnits * kStoresPerUnit;  // 4
  constexpr unsigned kItems = 2 * kPerRow;                // 8 stores per thread
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
  MXV_DEQUANT_UNROLL
  for (unsigned j = 0; j < kPerRow; ++j) {
    const unsigned u = j / kStoresPerUnit, s = j % kStoresPerUnit;
    kk[j] = (tile0 + u) * kDequantTileK + (kF32 ? 32u * s + 4u * x : 8u * x);
    unit_ok[j] = tile0 + u < tiles;
  }
  std::uint64_t row[2];
  bool row_ok[2];
  MXV_DEQUANT_UNROLL
  for (unsigned r = 0; r < 2; ++r) {
    const std::uint32_t n = n_first + 32u * r;
    row_ok[r] = n < p.n;
    row[r] = std::uint64_t{b.z} * p.n + n;
  }

  // Every load first: 8 packed words and 8 scale bytes in flight per thread.
  std::uint32_t codes[kItems];
  std::uint32_t scodes[kItems];
  MXV_DEQUANT_UNROLL
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

  MXV_DEQUANT_UNROLL
  for (unsigned i = 0; i < kItems; ++i) {
    const unsigned r = i / kPerRow, j = i % kPerRow;
    if (row_ok[r] && unit_ok[j]) {
      const Vec16 v = convert_store<kOut, kScale>(codes[i], scodes[i], sd);
      const std::uint64_t o = row[r] * p.k + kk[j];
      if constexpr (kF32) {
        ctx.store16(GlobalPtr<float>{reinterpret_cast<float*>(p.out.raw)}, o, v);
      } else {
        ctx.store16(GlobalPtr<std::uint16_t>{reinterpret_cast<std::uint16_t*>(p.out.raw)}, o, v);
      }
    }
  }
}

/// "rows64" geometry (N-packed; also takes K-packed). Its access stream is the one the ncu
/// calibration test pins.
template <WideType kOut, DequantScale kScale, class Ctx>
MXV_HD void tiled_rows64(Ctx& ctx, const DequantizeParams& p) {
  constexpr bool kF32 = kOut == WideType::kF32;
  constexpr unsigned kValues = kF32 ? 4u : 8u;  // per 16-byte store
  constexpr unsigned kStores = kF32 ? 2u : 1u;
  const Dim3 b = ctx.block_idx();
  const Dim3 t = ctx.thread_idx();
  const std::uint32_t e = b.z;
  const std::uint32_t n0 = b.y * kDequantTileN;
  const std::uint32_t k0 = b.x * kDequantTileK;
  const std::uint32_t n = n0 + t.y;
  const std::uint64_t row = std::uint64_t{e} * p.n + n;  // output row (e, n)

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

  SdecInfo sd{};
  if constexpr (kScale == DequantScale::kUE4M3) sd = make_sdec(load_s_dec(ctx, p, e));
  for (unsigned s = 0; s < kStores; ++s) {
    const std::uint32_t kk = kF32 ? k0 + 32u * s + 4u * t.x : k0 + 8u * t.x;  // first k of this store
    std::uint32_t codes = 0;  // nibble j = element kk + j
    if (p.packing == WeightPackingAxis::kK) {
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
      ctx.store16(GlobalPtr<float>{reinterpret_cast<float*>(p.out.raw)}, row * p.k + kk, v);
    } else {
      ctx.store16(GlobalPtr<std::uint16_t>{reinterpret_cast<std::uint16_t*>(p.out.raw)}, row * p.k + kk, v);
    }
  }
}

template <WideType kOut, DequantScale kScale, class Ctx>
MXV_HD void tiled_dispatch_geometry(Ctx& ctx, const DequantizeParams& p) {
  if (ctx.block_dim().y == 1u) {
    tiled_units<kOut, kScale>(ctx, p);
  } else {
    tiled_rows64<kOut, kScale>(ctx, p);
  }
}

template <WideType kOut, class Ctx>
MXV_HD void tiled_dispatch_scale(Ctx& ctx, const DequantizeParams& p) {
  switch (p.scale) {
    case DequantScale::kE8M0: tiled_dispatch_geometry<kOut, DequantScale::kE8M0>(ctx, p); return;
    case DequantScale::kE8M0OrtQmoe: tiled_dispatch_geometry<kOut, DequantScale::kE8M0OrtQmoe>(ctx, p); return;
    case DequantScale::kE8M0Flushed: tiled_dispatch_geometry<kOut, DequantScale::kE8M0Flushed>(ctx, p); return;
    case DequantScale::kUE4M3: tiled_dispatch_geometry<kOut, DequantScale::kUE4M3>(ctx, p); return;
  }
}

}  // namespace dequant_detail

/// block (256, 1, 1): "units" geometry, grid (ceil(K / (64 * dequant_units(out))), ceil(N/64), E),
/// K-packed only; block (8, 64): "rows64" geometry, grid (K/64, ceil(N/64), E), either packing.
template <class Ctx>
MXV_HD void dequantize_tiled_body(Ctx& ctx, const DequantizeParams& p) {
  using namespace dequant_detail;
  switch (p.out_type) {
    case WideType::kF32: tiled_dispatch_scale<WideType::kF32>(ctx, p); return;
    case WideType::kBf16: tiled_dispatch_scale<WideType::kBf16>(ctx, p); return;
    case WideType::kF16: tiled_dispatch_scale<WideType::kF16>(ctx, p); return;
  }
}

}  // namespace mxv::device
