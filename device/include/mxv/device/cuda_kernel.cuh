// The __global__ wrappers of every kernel (docs/design.md section 3.4, "One kernel source, two
// executions"): one per Kernel of a family (kernel_family.h), passing a CudaCtx to Kernel::run,
// bounded by the kernel's own __launch_bounds__ and started with the plan's geometry (grid.x cut
// to the resident blocks for a one-wave plan, LaunchPlan::one_wave) and dynamic shared memory, as
// a programmatic dependent launch (docs/design.md section 3.5).
// Only the per-family translation units that device/CMakeLists.txt generates include this header.
#pragma once

#include <cuda_runtime.h>

#include "mxv/device/cuda_ctx.cuh"
#include "mxv/device/cuda_family.h"
#include "mxv/device/resident_blocks_cache.h"

namespace mxv::device {

static_assert(KernelCtx<CudaCtx>);

namespace {

// Programmatic dependent launch (PTX griddepcontrol, sm_90): every kernel is launched allowed to
// start before the kernel ahead of it on the stream has finished, and every kernel first waits
// until the grids it depends on have completed and their memory is visible, before any access to
// global memory. So no kernel reads an input that its predecessor is still writing (the tensor
// amax before quantize, the gate-factor table before the fused kernel), and what overlaps is the
// launch and the block scheduling of a kernel with the tail of the one ahead of it. Each block then
// lets the next kernel be scheduled: once every block of this grid has started, the next grid's
// blocks may take the SM slots this grid's last wave leaves free, and they wait there.
__device__ __forceinline__ void dependent_launch_prologue() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

template <class Kernel>
__global__ void __launch_bounds__(Kernel::kMaxThreads) bounded_kernel(const typename Kernel::Params p) {
  dependent_launch_prologue();
  CudaCtx ctx;
  Kernel::run(ctx, p);
}

// A separate wrapper for a kernel that also asks for a number of resident blocks: ptxas allocates
// differently under __launch_bounds__(n, 1) than under __launch_bounds__(n) (the fp32 fused kernels
// took 4-9 more registers), so the other kernels keep the one-argument form.
template <class Kernel>
__global__ void __launch_bounds__(Kernel::kMaxThreads, Kernel::kMinBlocksPerSm)
    min_blocks_kernel(const typename Kernel::Params p) {
  dependent_launch_prologue();
  CudaCtx ctx;
  Kernel::run(ctx, p);
}

// A kernel that declares no bound keeps the register allocation ptxas picks without one.
template <class Kernel>
__global__ void unbounded_kernel(const typename Kernel::Params p) {
  dependent_launch_prologue();
  CudaCtx ctx;
  Kernel::run(ctx, p);
}

}  // namespace

/// The blocks of `kernel` (block size `threads`, `smem` dynamic bytes) the current device holds at
/// once: the occupancy calculator's blocks per SM times the SMs, asked once per kernel, device and
/// geometry (ResidentBlocksCache); 0 when the runtime cannot tell.
template <class Params>
unsigned resident_blocks(void (*kernel)(Params), unsigned threads, std::size_t smem) {
  static ResidentBlocksCache cache;  // one per Params type: the key still names the kernel
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return 0;
  return cache.get({reinterpret_cast<const void*>(kernel), device, threads, smem}, [&]() -> unsigned {
    int sms = 0, per_sm = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(threads), smem) != cudaSuccess) {
      return 0;
    }
    return static_cast<unsigned>(sms) * static_cast<unsigned>(per_sm);
  });
}

template <KernelFamily Family>
bool launch_on_cuda(const LaunchPlan& plan, const typename Family::Params& params, void* stream) {
  dim3 grid = to_dim3(plan.grid);
  const dim3 block = to_dim3(plan.block);
  const auto s = static_cast<cudaStream_t>(stream);
  return with_kernel<Family>(plan, params, [&]<class Kernel>() {
    void (*kernel)(typename Kernel::Params) = nullptr;  // only the wrapper the kernel uses is instantiated
    if constexpr (Kernel::kMinBlocksPerSm > 1) {
      kernel = &min_blocks_kernel<Kernel>;
    } else if constexpr (Kernel::kMaxThreads > 0) {
      kernel = &bounded_kernel<Kernel>;
    } else {
      kernel = &unbounded_kernel<Kernel>;
    }
    if (plan.one_wave) {
      const unsigned resident = resident_blocks(kernel, block.x * block.y * block.z, plan.dynamic_smem_bytes);
      if (resident > 0 && grid.x > resident) grid.x = resident;
    }
    // Launched as a programmatic dependent of the stream's previous kernel (see
    // dependent_launch_prologue); an error reaches CudaBackend::check_launch through
    // cudaGetLastError.
    cudaLaunchAttribute dependent{};
    dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    dependent.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = plan.dynamic_smem_bytes;
    config.stream = s;
    config.attrs = &dependent;
    config.numAttrs = 1;
    (void)cudaLaunchKernelEx(&config, kernel, params);
  });
}

}  // namespace mxv::device

/// The cuda backend's kernels of one family: the one line of a generated translation unit.
#define MXV_CUDA_KERNEL_FAMILY(Family)                                                          \
  template bool mxv::device::launch_on_cuda<Family>(const mxv::device::LaunchPlan&, const Family::Params&, \
                                                    void*)
