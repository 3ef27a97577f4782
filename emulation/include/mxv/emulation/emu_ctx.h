// The emulator's kernel context: what a kernel body's `ctx` is when the body runs on the CPU
// (device/include/mxv/device/kernel_ctx.h defines the contract; docs/design.md section 3.4, "One
// kernel source, two executions"). One EmuCtx per emulated CUDA thread; each thread runs as a
// fiber, and every member that CUDA would make a rendezvous (__syncthreads, __syncwarp, shuffles,
// votes) yields to the scheduler until the whole warp or block has arrived. Every memory member
// checks bounds, alignment and the written-shadow, and records the access for the coalescing
// figures. The trailing CallSite parameters are defaulted, so kernel bodies call these members
// exactly as they call CudaCtx's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "mxv/device/kernel_ctx.h"
#include "mxv/emulation/call_site.h"
#include "mxv/emulation/coalescing.h"

namespace mxv::emu {

namespace detail {
struct ThreadState;
class BlockRun;
/// One object per (T, N, Id) whose address identifies a static shared array.
template <class T, std::size_t N, auto Id>
inline constexpr char kSharedArrayTag = 0;
}  // namespace detail

/// Warp-collective operations; the scheduler matches participants on op, mask, width and site.
enum class CollectiveOp : std::uint8_t {
  kShflIdx, kShflXor, kShflUp, kShflDown, kBallot, kAny, kAll, kSyncwarp
};

class EmuCtx {
 public:
  // --- indices (same geometry a CUDA launch gives) ---
  device::Dim3 thread_idx() const { return thread_; }
  device::Dim3 block_idx() const { return block_; }
  device::Dim3 block_dim() const { return block_dim_; }
  device::Dim3 grid_dim() const { return grid_dim_; }
  /// Lane within the warp and warp within the block (linear thread id / 32), as CUDA numbers them.
  unsigned lane() const { return lane_; }
  unsigned warp() const { return warp_; }

  // --- global memory ---
  // Value types and deduction follow CudaCtx (cuda_ctx.cuh) exactly, so a call that compiles
  // here compiles for the GPU too: T is deduced from the pointer and the value alike.
  template <class T>
  std::remove_const_t<T> load(device::GlobalPtr<T> p, std::size_t i, CallSite site = {}) {
    std::remove_const_t<T> out;
    global_access(p.raw, i, sizeof(T), sizeof(T), AccessKind::kLoad, &out, site);
    return out;
  }
  template <class T>
  void store(device::GlobalPtr<T> p, std::size_t i, T v, CallSite site = {}) {
    global_access(p.raw, i, sizeof(T), sizeof(T), AccessKind::kStore, &v, site);
  }
  /// 16 bytes starting at element i (LDG.128); the address must be 16-byte aligned.
  template <class T>
  device::Vec16 load16(device::GlobalPtr<T> p, std::size_t i, CallSite site = {}) {
    device::Vec16 out;
    global_access(p.raw, i, sizeof(T), 16, AccessKind::kLoad, &out, site);
    return out;
  }
  template <class T>
  void store16(device::GlobalPtr<T> p, std::size_t i, device::Vec16 v, CallSite site = {}) {
    global_access(p.raw, i, sizeof(T), 16, AccessKind::kStore, &v, site);
  }
  /// store16 with the GPU's streaming cache hint: the same access here (caches are not modelled).
  template <class T>
  void store16_streaming(device::GlobalPtr<T> p, std::size_t i, device::Vec16 v, CallSite site = {}) {
    store16(p, i, v, site);
  }
  /// atomicMax on a 32-bit word; returns the old value. Atomics from several blocks are not
  /// reported as cross-block writes or reads; a plain load of the word by another block of the
  /// launch, or an atomic over another block's plain store, is a cross-block read.
  std::uint32_t atomic_max(device::GlobalPtr<std::uint32_t> p, std::size_t i, std::uint32_t v,
                           CallSite site = {});

  // --- shared memory ---
  /// The block's static shared array for (T, N, Id); allocated on first use, alive for the block.
  template <class T, std::size_t N, auto Id = 0>
  device::SharedPtr<T> shared_array(CallSite site = {}) {
    return {static_cast<T*>(
        shared_static(&detail::kSharedArrayTag<T, N, Id>, sizeof(T) * N, alignof(T), site))};
  }
  /// The launch's dynamic shared memory (the `dynamic_smem` bytes given to launch).
  template <class T>
  device::SharedPtr<T> dynamic_shared() {
    return {static_cast<T*>(shared_dynamic())};
  }
  template <class T>
  std::remove_const_t<T> load(device::SharedPtr<T> p, std::size_t i, CallSite site = {}) {
    std::remove_const_t<T> out;
    shared_access(p.raw, i, sizeof(T), false, &out, site);
    return out;
  }
  template <class T>
  void store(device::SharedPtr<T> p, std::size_t i, T v, CallSite site = {}) {
    shared_access(p.raw, i, sizeof(T), true, &v, site);
  }

  // --- barriers ---
  void syncthreads(CallSite site = {});
  void syncwarp(unsigned mask = device::kFullMask, CallSite site = {});

  // --- asynchronous bulk copies and their transaction barriers (CudaCtx: cp.async.bulk, mbarrier) ---
  // A copy happens when it is issued (its global reads and shared writes checked like any other),
  // and its bytes count against the barrier at once; a thread may read them only after waiting on
  // that barrier's phase (a read before is an async-copy finding, whatever the schedule), and a
  // wait yields until the phase completes. See docs/design.md section 4.2.
  void barrier_init(device::SharedPtr<std::uint64_t> bar, std::uint32_t arrivals, CallSite site = {});
  void barrier_arrive_expect(device::SharedPtr<std::uint64_t> bar, std::uint32_t bytes, CallSite site = {});
  void bulk_copy(device::SharedPtr<std::uint8_t> dst, device::GlobalPtr<const std::uint8_t> src, std::uint32_t bytes,
                 device::SharedPtr<std::uint64_t> bar, CallSite site = {});
  void barrier_wait(device::SharedPtr<std::uint64_t> bar, std::uint32_t parity, CallSite site = {});

  // --- warp collectives (CUDA's __shfl*_sync / __ballot_sync / __any_sync / __all_sync) ---
  template <class T>
  T shfl(unsigned mask, T v, int src_lane, int width = 32, CallSite site = {}) {
    return shuffle(CollectiveOp::kShflIdx, mask, v, src_lane, width, site);
  }
  template <class T>
  T shfl_xor(unsigned mask, T v, int lane_mask, int width = 32, CallSite site = {}) {
    return shuffle(CollectiveOp::kShflXor, mask, v, lane_mask, width, site);
  }
  template <class T>
  T shfl_up(unsigned mask, T v, unsigned delta, int width = 32, CallSite site = {}) {
    return shuffle(CollectiveOp::kShflUp, mask, v, static_cast<int>(delta), width, site);
  }
  template <class T>
  T shfl_down(unsigned mask, T v, unsigned delta, int width = 32, CallSite site = {}) {
    return shuffle(CollectiveOp::kShflDown, mask, v, static_cast<int>(delta), width, site);
  }
  std::uint32_t ballot(unsigned mask, bool pred, CallSite site = {}) {
    return static_cast<std::uint32_t>(collective(CollectiveOp::kBallot, mask, pred ? 1u : 0u, 0, 32, site));
  }
  bool any(unsigned mask, bool pred, CallSite site = {}) {
    return collective(CollectiveOp::kAny, mask, pred ? 1u : 0u, 0, 32, site) != 0;
  }
  bool all(unsigned mask, bool pred, CallSite site = {}) {
    return collective(CollectiveOp::kAll, mask, pred ? 1u : 0u, 0, 32, site) != 0;
  }

  EmuCtx(const EmuCtx&) = delete;
  EmuCtx& operator=(const EmuCtx&) = delete;

 private:
  friend class detail::BlockRun;
  friend struct detail::ThreadState;
  EmuCtx() = default;

  template <class T>
  T shuffle(CollectiveOp op, unsigned mask, T v, int arg, int width, CallSite site) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8,
                  "shuffles move at most 8 trivially copyable bytes");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    bits = collective(op, mask, bits, arg, width, site);
    T out;
    std::memcpy(&out, &bits, sizeof(T));
    return out;
  }

  // Non-template entry points (emu_ctx.cpp): checks, shadows, coalescing records, rendezvous.
  void global_access(const void* base, std::size_t index, std::size_t elem_bytes,
                     std::size_t access_bytes, AccessKind kind, void* data, CallSite site);
  void shared_access(const void* base, std::size_t index, std::size_t bytes, bool is_store,
                     void* data, CallSite site);
  void* shared_static(const void* key, std::size_t bytes, std::size_t align, CallSite site);
  void* shared_dynamic();
  std::uint64_t collective(CollectiveOp op, unsigned mask, std::uint64_t bits, int arg, int width,
                           CallSite site);

  device::Dim3 thread_{}, block_{}, block_dim_{}, grid_dim_{};
  unsigned lane_ = 0, warp_ = 0;
  detail::ThreadState* self_ = nullptr;
  detail::BlockRun* run_ = nullptr;
};

static_assert(device::KernelCtx<EmuCtx>, "EmuCtx must satisfy the kernel-context contract");

}  // namespace mxv::emu
