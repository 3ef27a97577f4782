// A small kernel body written once against the kernel-context contract (kernel_ctx.h), used to
// prove that CudaCtx costs nothing: instantiated with CudaCtx (sample_with_ctx.cu) it must compile
// to the same PTX as the same logic written with raw CUDA builtins (sample_with_builtins.cu).
// It touches every kind of member: indices, global load/store/store16/store16_streaming, static shared memory,
// __syncthreads, shfl_xor, ballot and atomicMax. It is also host code, and runs in the emulator.
#pragma once

#include <cmath>
#include <cstdint>

#include "mxv/device/kernel_ctx.h"

namespace mxv::zero_cost {

inline constexpr unsigned kSampleBlock = 256;

template <class Ctx>
MXV_HD MXV_FORCEINLINE void sample_body(Ctx& ctx, device::GlobalPtr<const float> in,
                                        device::GlobalPtr<float> out,
                                        device::GlobalPtr<std::uint32_t> flags, unsigned n) {
  const unsigned t = ctx.thread_idx().x;
  const unsigned i = ctx.block_idx().x * ctx.block_dim().x + t;
  auto tile = ctx.template shared_array<float, kSampleBlock, 0>();
  const float x = i < n ? ctx.load(in, i) : 0.0f;
  ctx.store(tile, t, x);
  ctx.syncthreads();
  const float y = ctx.load(tile, (t + 1) % kSampleBlock);
  float a = fabsf(x + y);
  for (int o = 16; o > 0; o /= 2) a = fmaxf(a, ctx.shfl_xor(device::kFullMask, a, o, 32));
  const std::uint32_t votes = ctx.ballot(device::kFullMask, x > 0.0f);
  if ((t & 31u) == 0) {
    ctx.store(flags, i / 32, votes);
    // The word after every warp's vote slot: every block's atomic meets no plain store there.
    (void)ctx.atomic_max(flags, ctx.grid_dim().x * ctx.block_dim().x / 32, votes);
  }
  if (i < n) ctx.store(out, i, a);
  if (t % 4 == 0 && i + 3 < n) {
    const device::Vec16 v = ctx.load16(in, i);
    if ((t & 4u) != 0u) ctx.store16_streaming(out, n + i, v);
    else ctx.store16(out, n + i, v);
  }
}

}  // namespace mxv::zero_cost
