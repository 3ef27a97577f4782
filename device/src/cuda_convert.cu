// The cuda backend's convert entry: one __global__ wrapper per (direction, wide type, format,
// index mode), each running convert_variant_body with a CudaCtx; convert_visit picks it.
#include <cuda_runtime.h>

#include "mxv/device/cuda_backend.h"
#include "mxv/device/cuda_ctx.cuh"
#include "mxv/device/kernels/convert.h"

namespace mxv::device {

namespace {
template <ConvertDirection kDir, WideType kWide, CodeFormat kFormat, bool kIndex>
__global__ void __launch_bounds__(kConvertBlockThreads) convert_kernel(const ConvertParams p) {
  CudaCtx ctx;
  convert_variant_body<kDir, kWide, kFormat, kIndex>(ctx, p);
}
static_assert(KernelCtx<CudaCtx>);
}  // namespace

void CudaBackend::run_kernel(const LaunchPlan& plan, const ConvertParams& p) {
  if (plan.kernel != "convert") not_implemented(plan.kernel);
  const dim3 grid = to_dim3(plan.grid), block = to_dim3(plan.block);
  const auto s = static_cast<cudaStream_t>(stream());
  convert_visit(p, [&]<ConvertDirection kDir, WideType kWide, CodeFormat kFormat, bool kIndex>() {
    convert_kernel<kDir, kWide, kFormat, kIndex><<<grid, block, plan.dynamic_smem_bytes, s>>>(p);
  });
}

}  // namespace mxv::device
