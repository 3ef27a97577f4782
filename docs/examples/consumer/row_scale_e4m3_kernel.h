// The toy kernel of this example: per-row FP8 quantization. One warp per row of 32 fp32 values;
// the warp finds the row's amax with a butterfly of shuffles, lane 0 stores the row's scale
// 448 / amax, and every lane stores its value times that scale as an E4M3 code. Written only
// against the KernelCtx contract (mxv/device/kernel_ctx.h), so the same body would compile for
// nvcc behind a __global__ wrapper.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"

namespace consumer {

inline constexpr unsigned kRowLength = 32;  // one warp per row

struct RowScaleParams {
  mxv::device::GlobalPtr<const float> x;          // [rows][32]
  mxv::device::GlobalPtr<std::uint8_t> codes;     // [rows][32] E4M3
  mxv::device::GlobalPtr<float> scales;           // [rows]
  std::size_t rows = 0;
  // A bug to plant, for the test that proves the check catches it: flips the rounding of
  // element 5 of row 0 by storing the code one above.
  bool plant_bug = false;
};

template <class Ctx>
  requires mxv::device::KernelCtx<Ctx>
MXV_HD void row_scale_e4m3_body(Ctx& ctx, const RowScaleParams& p) {
  const std::size_t row = ctx.block_idx().x;
  const unsigned lane = ctx.thread_idx().x;
  if (row >= p.rows) return;
  const std::size_t i = row * kRowLength + lane;
  const float v = ctx.load(p.x, i);
  float amax = v < 0.0f ? -v : v;
  for (unsigned offset = 16; offset > 0; offset /= 2) {
    const float other = ctx.shfl_xor(mxv::device::kFullMask, amax, static_cast<int>(offset), 32);
    amax = other > amax ? other : amax;
  }
  const float scale = amax > 0.0f ? 448.0f / amax : 1.0f;
  if (lane == 0) ctx.store(p.scales, row, scale);
  std::uint8_t code = mxv::device::cvt::e4m3_from_f32(v * scale);
  if (p.plant_bug && row == 0 && lane == 5) code = static_cast<std::uint8_t>(code + 1);
  ctx.store(p.codes, i, code);
}

}  // namespace consumer
