// The __global__ wrappers of every kernel (docs/design.md section 3.4, "One kernel source, two
// executions"): one per Kernel of a family (kernel_family.h), passing a CudaCtx to Kernel::run,
// bounded by the kernel's own __launch_bounds__ and started with the plan's geometry and dynamic
// shared memory. Only the per-family translation units that device/CMakeLists.txt generates
// include this header.
#pragma once

#include <cuda_runtime.h>

#include "mxv/device/cuda_ctx.cuh"
#include "mxv/device/cuda_family.h"

namespace mxv::device {

static_assert(KernelCtx<CudaCtx>);

namespace {

template <class Kernel>
__global__ void __launch_bounds__(Kernel::kMaxThreads) bounded_kernel(const typename Kernel::Params p) {
  CudaCtx ctx;
  Kernel::run(ctx, p);
}

// A kernel that declares no bound keeps the register allocation ptxas picks without one.
template <class Kernel>
__global__ void unbounded_kernel(const typename Kernel::Params p) {
  CudaCtx ctx;
  Kernel::run(ctx, p);
}

}  // namespace

template <KernelFamily Family>
bool launch_on_cuda(const LaunchPlan& plan, const typename Family::Params& params, void* stream) {
  const dim3 grid = to_dim3(plan.grid), block = to_dim3(plan.block);
  const auto s = static_cast<cudaStream_t>(stream);
  return with_kernel<Family>(plan, params, [&]<class Kernel>() {
    if constexpr (Kernel::kMaxThreads > 0) {
      bounded_kernel<Kernel><<<grid, block, plan.dynamic_smem_bytes, s>>>(params);
    } else {
      unbounded_kernel<Kernel><<<grid, block, plan.dynamic_smem_bytes, s>>>(params);
    }
  });
}

}  // namespace mxv::device

/// The cuda backend's kernels of one family: the one line of a generated translation unit.
#define MXV_CUDA_KERNEL_FAMILY(Family)                                                          \
  template bool mxv::device::launch_on_cuda<Family>(const mxv::device::LaunchPlan&, const Family::Params&, \
                                                    void*)
