// The contract between a kernel body and whatever executes it (docs/design.md section 3.4, "One
// kernel source, two executions"). A kernel body is
//
//   template <class Ctx> MXV_HD void some_kernel_body(Ctx& ctx, const SomeParams& p);
//
// and reaches thread/block indices, shared memory, barriers, warp collectives and global memory
// only through `ctx`. On the GPU a thin __global__ wrapper passes a CudaCtx (cuda_ctx.cuh), whose
// members inline to the builtins. The emulator (mxv::emu) passes its own context, which records
// every access and runs each thread as a fiber. Global and shared memory are reached through
// GlobalPtr / SharedPtr, which have no operator* or operator[]: an access that bypasses the
// context (and so the emulator's checks) is a compile error.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define MXV_HD __host__ __device__
#define MXV_FORCEINLINE __forceinline__
#else
#define MXV_HD
#define MXV_FORCEINLINE inline
#endif

// Full unrolling of a kernel's fixed-count loops over its per-thread items, so their arrays stay
// in registers (nvcc's heuristic gives up on bodies with calls or cold paths). Not logic: the
// host compiler ignores it.
#if defined(__CUDA_ARCH__)
#define MXV_UNROLL _Pragma("unroll")
#else
#define MXV_UNROLL
#endif

namespace mxv::device {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// A pointer into global memory. Deliberately opaque: use ctx.load / ctx.store.
template <class T>
struct GlobalPtr {
  T* raw = nullptr;
};

/// A pointer into shared memory (static or dynamic). Use ctx.load / ctx.store.
template <class T>
struct SharedPtr {
  T* raw = nullptr;
};

/// Sixteen bytes moved by one vector instruction (LDG.128 / STG.128).
struct alignas(16) Vec16 {
  std::uint32_t w[4];
};

inline constexpr unsigned kWarpSize = 32;
inline constexpr unsigned kFullMask = 0xffffffffu;

/// Everything a kernel body may ask of its context. T below ranges over float, std::uint64_t,
/// std::uint32_t, std::int32_t, std::uint16_t and std::uint8_t for memory (an access of T is
/// sizeof(T)-aligned); float, std::uint32_t and std::int32_t for shuffles.
///   Indices:   thread_idx(), block_idx(), block_dim(), grid_dim()            -> Dim3
///   Global:    load(GlobalPtr<T>, i) -> T;  store(GlobalPtr<T>, i, T)
///              load16(GlobalPtr<T>, i) -> Vec16   (16 bytes from element i; 16-byte aligned)
///              store16(GlobalPtr<T>, i, Vec16)
///              store16_streaming(GlobalPtr<T>, i, Vec16)   (store16 of bytes the launch writes
///                  once and no later access of it reads: the same bytes, with the GPU's
///                  evict-first ("streaming") cache hint)
///              atomic_max(GlobalPtr<std::uint32_t>, i, std::uint32_t) -> old value
///   Shared:    shared_array<T, N, Id>() -> SharedPtr<T>  (one static array per (T, N, Id))
///              dynamic_shared<T>() -> SharedPtr<T>        (the launch's dynamic shared memory)
///              load(SharedPtr<T>, i) -> T;  store(SharedPtr<T>, i, T)
///   Barriers:  syncthreads();  syncwarp(mask)
///   Async:     barrier_init(SharedPtr<std::uint64_t> bar, arrivals)     (a transaction barrier;
///              one thread, then a block barrier before any other use)
///              barrier_arrive_expect(bar, bytes)   (one arrival that announces `bytes` to come)
///              bulk_copy(SharedPtr<std::uint8_t> dst, GlobalPtr<const std::uint8_t> src, bytes, bar)
///                  (bytes a positive multiple of 16, both ends 16-byte aligned; they count
///                  against the barrier's phase when they land)
///              barrier_wait(bar, parity)   (returns once the phase of that parity completed; a
///                  thread reads a copy's bytes only after waiting for its phase)
///   Warp:      shfl(mask, v, src_lane, width), shfl_xor(mask, v, lane_mask, width),
///              shfl_up(mask, v, delta, width), shfl_down(mask, v, delta, width)   (width = 32)
///              ballot(mask, pred) -> std::uint32_t;  any(mask, pred), all(mask, pred) -> bool
template <class C>
concept KernelCtx = requires(C& c, GlobalPtr<float> gf, GlobalPtr<std::uint32_t> gu,
                             SharedPtr<float> sf, float v, std::uint32_t u, std::size_t i,
                             Vec16 vec, SharedPtr<std::uint64_t> bar, SharedPtr<std::uint8_t> sb,
                             GlobalPtr<const std::uint8_t> gb) {
  { c.thread_idx() } -> std::same_as<Dim3>;
  { c.block_idx() } -> std::same_as<Dim3>;
  { c.block_dim() } -> std::same_as<Dim3>;
  { c.grid_dim() } -> std::same_as<Dim3>;
  { c.load(gf, i) } -> std::same_as<float>;
  c.store(gf, i, v);
  { c.load16(gf, i) } -> std::same_as<Vec16>;
  c.store16(gf, i, vec);
  c.store16_streaming(gf, i, vec);
  { c.atomic_max(gu, i, u) } -> std::same_as<std::uint32_t>;
  { c.template shared_array<float, 4, 0>() } -> std::same_as<SharedPtr<float>>;
  { c.template dynamic_shared<float>() } -> std::same_as<SharedPtr<float>>;
  { c.load(sf, i) } -> std::same_as<float>;
  c.store(sf, i, v);
  c.syncthreads();
  c.syncwarp(kFullMask);
  c.barrier_init(bar, u);
  c.barrier_arrive_expect(bar, u);
  c.bulk_copy(sb, gb, u, bar);
  c.barrier_wait(bar, u);
  { c.shfl_xor(kFullMask, v, 1, 32) } -> std::same_as<float>;
  { c.shfl(kFullMask, v, 0, 32) } -> std::same_as<float>;
  { c.shfl_up(kFullMask, v, 1, 32) } -> std::same_as<float>;
  { c.shfl_down(kFullMask, v, 1, 32) } -> std::same_as<float>;
  { c.ballot(kFullMask, true) } -> std::same_as<std::uint32_t>;
  { c.any(kFullMask, true) } -> std::same_as<bool>;
  { c.all(kFullMask, true) } -> std::same_as<bool>;
};

}  // namespace mxv::device
