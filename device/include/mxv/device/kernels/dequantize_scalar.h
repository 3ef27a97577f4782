// The scalar weight-dequantize kernel: one thread per output element, k fastest (the layout of
// ONNX Runtime's scalar QMoE FP4 dequantize kernels, as described in the ONNX Runtime pull request
// "Coalesce QMoE MXFP4/NVFP4 weight dequantization"; docs/design.md section 5.2). It takes every
// shape the layout allows and is the fallback of the tiled kernel; it is also the baseline the
// benchmark compares against.
//
// Why it is slow on N-packed weights ([E, K, N/2]): consecutive lanes have consecutive k, so they
// read bytes N/2 apart, one 32-byte sector per lane for half a byte of payload; the emulator's
// coalescing test pins this pattern. Its index math uses 64-bit division, as ONNX Runtime's does.
#pragma once

#include <cstdint>

#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernels/dequantize_params.h"

namespace mxv::device {

inline constexpr unsigned kDequantScalarBlockThreads = 256;

/// grid.x = ceil(E*N*K / 256), block.x = 256; thread i computes output element i.
template <class Ctx>
MXV_HD void dequantize_scalar_body(Ctx& ctx, const DequantizeParams& p) {
  using namespace dequant_detail;
  const std::uint64_t i = std::uint64_t{ctx.block_idx().x} * ctx.block_dim().x + ctx.thread_idx().x;
  const std::uint64_t n_dim = p.n, k_dim = p.k;
  const std::uint64_t per_expert = n_dim * k_dim;
  if (i >= per_expert * p.experts) return;
  const std::uint64_t e = i / per_expert;
  const std::uint64_t rem = i - e * per_expert;
  const std::uint64_t n = rem / k_dim;
  const std::uint64_t k = rem - n * k_dim;

  std::uint64_t byte_index;
  std::uint32_t shift;
  if (p.packing == WeightPacking::kKPacked) {
    byte_index = (e * n_dim + n) * (k_dim / 2) + k / 2;
    shift = static_cast<std::uint32_t>(k & 1u) * 4u;
  } else {
    byte_index = (e * k_dim + k) * (n_dim / 2) + n / 2;
    shift = static_cast<std::uint32_t>(n & 1u) * 4u;
  }
  const std::uint32_t nibble = (std::uint32_t{ctx.load(p.packed, byte_index)} >> shift) & 0xFu;
  const std::uint64_t scale_index = (e * n_dim + n) * p.scale_cols + (k >> p.block_shift);
  const BlockFactor f{decode_scale(p.scale, ctx.load(p.scales, scale_index)),
                      load_s_dec(ctx, p, static_cast<std::uint32_t>(e)), p.scale == DequantScale::kUE4M3};
  const float v = dequant_value(nibble, f);
  switch (p.out_type) {
    case WideType::kFp32:
      ctx.store(GlobalPtr<float>{reinterpret_cast<float*>(p.out.raw)}, i, v);
      break;
    case WideType::kBf16:
    case WideType::kFp16:
      ctx.store(GlobalPtr<std::uint16_t>{reinterpret_cast<std::uint16_t*>(p.out.raw)}, i,
                static_cast<std::uint16_t>(narrow_bits(p.out_type, v)));
      break;
  }
}

}  // namespace mxv::device
