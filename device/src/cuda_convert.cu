// The cuda backend's convert entry: a __global__ wrapper that runs convert_body with a CudaCtx.
#include <cuda_runtime.h>

#include "mxv/device/cuda_backend.h"
#include "mxv/device/cuda_ctx.cuh"
#include "mxv/device/kernels/convert.h"

namespace mxv::device {

namespace {
__global__ void convert_kernel(ConvertParams p) {
  CudaCtx ctx;
  convert_body(ctx, p);
}
static_assert(KernelCtx<CudaCtx>);
}  // namespace

void CudaBackend::launch_convert(const LaunchPlan& plan, const ConvertParams& p) {
  if (plan.kernel != "convert") not_implemented(plan.kernel);
  note_launch(plan);
  const dim3 grid(plan.grid.x, plan.grid.y, plan.grid.z), block(plan.block.x, plan.block.y, plan.block.z);
  convert_kernel<<<grid, block, plan.dynamic_smem_bytes, static_cast<cudaStream_t>(stream())>>>(p);
  check_launch(plan);
}

}  // namespace mxv::device
