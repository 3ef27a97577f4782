// CudaCtx: the kernel context on a real GPU. Every member is a forced-inline wrapper over the
// CUDA builtin it names, so a kernel body instantiated with CudaCtx compiles to the same code as
// one written against the builtins directly (proven by emulation's PTX comparison test).
// Only nvcc compiles this header.
#pragma once

#if !defined(__CUDACC__)
#error "cuda_ctx.cuh is CUDA-only; host code uses the emulator's context"
#endif

#include <cstddef>
#include <cstdint>

#include "mxv/device/kernel_ctx.h"

namespace mxv::device {

struct CudaCtx {
  __device__ MXV_FORCEINLINE Dim3 thread_idx() const { return {threadIdx.x, threadIdx.y, threadIdx.z}; }
  __device__ MXV_FORCEINLINE Dim3 block_idx() const { return {blockIdx.x, blockIdx.y, blockIdx.z}; }
  __device__ MXV_FORCEINLINE Dim3 block_dim() const { return {blockDim.x, blockDim.y, blockDim.z}; }
  __device__ MXV_FORCEINLINE Dim3 grid_dim() const { return {gridDim.x, gridDim.y, gridDim.z}; }

  // Global memory. Plain loads: the compiler is free to use the read-only path where it can prove
  // the buffer is not written in the launch (kernels mark inputs const through __restrict__ params).
  template <class T>
  __device__ MXV_FORCEINLINE T load(GlobalPtr<T> p, std::size_t i) const { return p.raw[i]; }
  template <class T>
  __device__ MXV_FORCEINLINE T load(GlobalPtr<const T> p, std::size_t i) const { return p.raw[i]; }
  template <class T>
  __device__ MXV_FORCEINLINE void store(GlobalPtr<T> p, std::size_t i, T v) const { p.raw[i] = v; }
  template <class T>
  __device__ MXV_FORCEINLINE Vec16 load16(GlobalPtr<T> p, std::size_t i) const {
    return *reinterpret_cast<const Vec16*>(p.raw + i);
  }
  template <class T>
  __device__ MXV_FORCEINLINE void store16(GlobalPtr<T> p, std::size_t i, Vec16 v) const {
    *reinterpret_cast<Vec16*>(p.raw + i) = v;
  }
  // st.global.cs: the lines are marked to leave the caches first. For the dequantize kernels,
  // whose output is four fifths of their traffic, this was 0.3-3 points of copy on the H200
  // (BENCHMARKS.md, run 57).
  template <class T>
  __device__ MXV_FORCEINLINE void store16_streaming(GlobalPtr<T> p, std::size_t i, Vec16 v) const {
    __stcs(reinterpret_cast<uint4*>(p.raw + i), make_uint4(v.w[0], v.w[1], v.w[2], v.w[3]));
  }
  __device__ MXV_FORCEINLINE std::uint32_t atomic_max(GlobalPtr<std::uint32_t> p, std::size_t i,
                                                      std::uint32_t v) const {
    return atomicMax(reinterpret_cast<unsigned int*>(p.raw + i), static_cast<unsigned int>(v));
  }

  // Shared memory: one static array per (T, N, Id) instantiation, as a function-scope __shared__.
  template <class T, std::size_t N, int Id = 0>
  __device__ MXV_FORCEINLINE SharedPtr<T> shared_array() const {
    __shared__ T storage[N];
    return {storage};
  }
  template <class T>
  __device__ MXV_FORCEINLINE SharedPtr<T> dynamic_shared() const {
    extern __shared__ __align__(16) unsigned char mxv_dynamic_smem[];
    return {reinterpret_cast<T*>(mxv_dynamic_smem)};
  }
  template <class T>
  __device__ MXV_FORCEINLINE T load(SharedPtr<T> p, std::size_t i) const { return p.raw[i]; }
  template <class T>
  __device__ MXV_FORCEINLINE void store(SharedPtr<T> p, std::size_t i, T v) const { p.raw[i] = v; }

  __device__ MXV_FORCEINLINE void syncthreads() const { __syncthreads(); }
  __device__ MXV_FORCEINLINE void syncwarp(unsigned mask) const { __syncwarp(mask); }

  // Asynchronous bulk copies (PTX cp.async.bulk, sm_90) completed through a transaction barrier
  // (PTX mbarrier): the copy engine moves the bytes, no register holds them (kernel_ctx.h).
  __device__ MXV_FORCEINLINE void barrier_init(SharedPtr<std::uint64_t> bar, std::uint32_t arrivals) const {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar.raw)), "r"(arrivals) : "memory");
    // Makes the initialisation visible to the copy engine (the async proxy).
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __device__ MXV_FORCEINLINE void barrier_arrive_expect(SharedPtr<std::uint64_t> bar, std::uint32_t bytes) const {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar.raw)), "r"(bytes)
                 : "memory");
  }
  __device__ MXV_FORCEINLINE void bulk_copy(SharedPtr<std::uint8_t> dst, GlobalPtr<const std::uint8_t> src,
                                            std::uint32_t bytes, SharedPtr<std::uint64_t> bar) const {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            shared_address(dst.raw)),
        "l"(src.raw), "r"(bytes), "r"(shared_address(bar.raw))
        : "memory");
  }
  __device__ MXV_FORCEINLINE void barrier_wait(SharedPtr<std::uint64_t> bar, std::uint32_t parity) const {
    asm volatile(
        "{\n .reg .pred p;\n waiting:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra waiting;\n}" ::"r"(
            shared_address(bar.raw)),
        "r"(parity)
        : "memory");
  }

  // Warp shuffles: one builtin each (index, xor, up, down).
  template <class T>
  __device__ MXV_FORCEINLINE T shfl(unsigned mask, T v, int src, int w = 32) const { return __shfl_sync(mask, v, src, w); }
  template <class T>
  __device__ MXV_FORCEINLINE T shfl_xor(unsigned mask, T v, int lanes, int w = 32) const { return __shfl_xor_sync(mask, v, lanes, w); }
  template <class T>
  __device__ MXV_FORCEINLINE T shfl_up(unsigned mask, T v, unsigned d, int w = 32) const { return __shfl_up_sync(mask, v, d, w); }
  template <class T>
  __device__ MXV_FORCEINLINE T shfl_down(unsigned mask, T v, unsigned d, int w = 32) const { return __shfl_down_sync(mask, v, d, w); }
  __device__ MXV_FORCEINLINE std::uint32_t ballot(unsigned mask, bool pred) const {
    return __ballot_sync(mask, pred);
  }
  __device__ MXV_FORCEINLINE bool any(unsigned mask, bool pred) const { return __any_sync(mask, pred) != 0; }
  __device__ MXV_FORCEINLINE bool all(unsigned mask, bool pred) const { return __all_sync(mask, pred) != 0; }

 private:
  __device__ static MXV_FORCEINLINE std::uint32_t shared_address(const void* p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  }
};

/// A plan's geometry as CUDA takes it (host side of every cuda_*.cu launch).
inline dim3 to_dim3(Dim3 d) { return dim3(d.x, d.y, d.z); }

}  // namespace mxv::device
