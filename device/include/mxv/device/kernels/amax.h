// The tensor-amax reduction kernel body: max |x| over a whole fp32 or bf16 tensor, the input of
// the NVFP4 per-tensor scale (docs/semantics.md section 4.2: S_enc = 2688 / amax_tensor).
//
// Each thread folds 16-byte vector loads (grid-stride) into a running max of |x| bit patterns
// (qrules::amax_key: NaN skipped or propagated per the recipe), the warp reduces with shuffles,
// the block's warps meet in shared memory, and one thread per block publishes the block's
// maximum with atomicMax on the fp32 bits. The result buffer must hold 0 before the launch (the
// host launcher uploads it). Unsigned order of |x| bits is float order, and the propagated NaN
// 0x7FC00000 sorts above +Inf, so one unsigned atomicMax serves both NaN policies.
#pragma once

#include <cstdint>
#include <string_view>

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernel_family.h"
#include "mxv/device/kernels/quantize_rules.h"

namespace mxv::device {

inline constexpr unsigned kAmaxBlockThreads = 256;

/// Arguments of one amax launch (built by quantize.cpp).
struct AmaxParams {
  bool input_bf16 = false;        ///< element type: bf16 bits, else fp32
  bool nan_propagates = false;    ///< NaN policy of the recipe's amax
  std::uint64_t count = 0;        ///< elements in the tensor
  GlobalPtr<std::uint8_t> input{};
  GlobalPtr<std::uint32_t> amax_bits{};  ///< one word, 0 before the launch; receives max |x| bits
};

namespace amax_detail {

template <class T>
MXV_HD MXV_FORCEINLINE GlobalPtr<T> retype(GlobalPtr<std::uint8_t> p) {
  return {reinterpret_cast<T*>(p.raw)};
}

/// The key of every element in one 16-byte chunk.
MXV_HD MXV_FORCEINLINE std::uint32_t chunk_key(const Vec16& v, bool bf16, bool nan_propagates) {
  std::uint32_t key = 0;
  for (int j = 0; j < 4; ++j) {
    if (bf16) {
      key = qrules::max_u32(key, qrules::amax_key(cvt::f32_from_bf16(static_cast<std::uint16_t>(v.w[j] & 0xFFFFu)),
                                                  nan_propagates));
      key = qrules::max_u32(key, qrules::amax_key(cvt::f32_from_bf16(static_cast<std::uint16_t>(v.w[j] >> 16)),
                                                  nan_propagates));
    } else {
      key = qrules::max_u32(key, qrules::amax_key(cvt::float_of(v.w[j]), nan_propagates));
    }
  }
  return key;
}

}  // namespace amax_detail

/// Grid-stride amax: any grid of kAmaxBlockThreads-thread blocks covers any count.
template <class Ctx>
MXV_HD void amax_body(Ctx& ctx, const AmaxParams& p) {
  const std::uint64_t elem_bytes = p.input_bf16 ? 2u : 4u;
  const std::uint64_t per_chunk = 16u / elem_bytes;
  const std::uint64_t chunks = p.count / per_chunk;
  const std::uint64_t tid = std::uint64_t{ctx.block_idx().x} * ctx.block_dim().x + ctx.thread_idx().x;
  const std::uint64_t stride = std::uint64_t{ctx.grid_dim().x} * ctx.block_dim().x;

  std::uint32_t key = 0;
  for (std::uint64_t c = tid; c < chunks; c += stride) {
    key = qrules::max_u32(key, amax_detail::chunk_key(ctx.load16(p.input, c * 16u), p.input_bf16, p.nan_propagates));
  }
  // The tail that does not fill a 16-byte chunk (fewer than 8 elements): scalar loads.
  for (std::uint64_t i = chunks * per_chunk + tid; i < p.count; i += stride) {
    const float x = p.input_bf16 ? cvt::f32_from_bf16(ctx.load(amax_detail::retype<std::uint16_t>(p.input), i))
                                 : ctx.load(amax_detail::retype<float>(p.input), i);
    key = qrules::max_u32(key, qrules::amax_key(x, p.nan_propagates));
  }

  // Warp: butterfly over the 32 lanes (every lane ends with the warp max).
  for (int m = 16; m >= 1; m >>= 1) key = qrules::max_u32(key, ctx.shfl_xor(kFullMask, key, m, 32));

  // Block: one word per warp in shared memory, then warp 0 folds them.
  SharedPtr<std::uint32_t> warp_max = ctx.template shared_array<std::uint32_t, kAmaxBlockThreads / 32, 0>();
  const unsigned t = ctx.thread_idx().x;
  const unsigned warps = ctx.block_dim().x / 32u;
  if ((t & 31u) == 0u) ctx.store(warp_max, t >> 5, key);
  ctx.syncthreads();
  if (t < 32u) {
    std::uint32_t k = t < warps ? ctx.load(warp_max, t) : 0u;
    for (int m = 16; m >= 1; m >>= 1) k = qrules::max_u32(k, ctx.shfl_xor(kFullMask, k, m, 32));
    if (t == 0u && k != 0u) ctx.atomic_max(p.amax_bits, 0, k);  // 0 is already there
  }
}

enum class AmaxVariant : std::uint8_t { kAmax };
constexpr std::string_view to_string(AmaxVariant) { return "amax"; }

/// The amax kernel as both backends run it (kernel_family.h).
struct AmaxKernel : KernelOf<AmaxParams, kAmaxBlockThreads> {
  template <class Ctx>
  static MXV_HD MXV_FORCEINLINE void run(Ctx& ctx, const AmaxParams& p) { amax_body(ctx, p); }
};
using AmaxFamily = OneKernelFamily<AmaxKernel, AmaxVariant::kAmax>;

}  // namespace mxv::device
