// The cuda backend's dequantize entries: __global__ wrappers running the scalar and tiled kernel
// bodies with a CudaCtx, dispatched on the plan's variant name (and, for tiled, the geometry its
// block shape selects).
#include <cuda_runtime.h>

#include "mxv/device/cuda_backend.h"
#include "mxv/device/cuda_ctx.cuh"
#include "mxv/device/kernels/dequantize_scalar.h"
#include "mxv/device/kernels/dequantize_tiled.h"

namespace mxv::device {

namespace {
__global__ void dequantize_scalar_kernel(DequantizeParams p) {
  CudaCtx ctx;
  dequantize_scalar_body(ctx, p);
}
// One wrapper per geometry, each bounded by its own block size. A minimum of 6 resident blocks
// (40 registers) measured no faster on the H200 than the allocation ptxas picks by itself
// (BENCHMARKS.md, "Tiled dequantize: register bound and early s_dec load").
template <DequantGeometry kGeometry, unsigned kThreads>
__global__ void __launch_bounds__(kThreads) dequantize_tiled_kernel(DequantizeParams p) {
  CudaCtx ctx;
  dequantize_tiled_geometry_body<kGeometry>(ctx, p);
}
}  // namespace

void CudaBackend::run_kernel(const LaunchPlan& plan, const DequantizeParams& p) {
  const dim3 grid = to_dim3(plan.grid), block = to_dim3(plan.block);
  const auto s = static_cast<cudaStream_t>(stream());
  if (plan.kernel == "dequantize_scalar") {
    dequantize_scalar_kernel<<<grid, block, plan.dynamic_smem_bytes, s>>>(p);
  } else if (plan.kernel == "dequantize_tiled") {
    switch (dequant_geometry(plan.block)) {
      case DequantGeometry::kUnits:
        dequantize_tiled_kernel<DequantGeometry::kUnits, kDequantUnitThreads><<<grid, block, plan.dynamic_smem_bytes, s>>>(p);
        break;
      case DequantGeometry::kTranspose:
        dequantize_tiled_kernel<DequantGeometry::kTranspose, kTransposeThreads><<<grid, block, plan.dynamic_smem_bytes, s>>>(p);
        break;
      case DequantGeometry::kRows64:
        dequantize_tiled_kernel<DequantGeometry::kRows64, kDequantTileN * kDequantGroups><<<grid, block, plan.dynamic_smem_bytes, s>>>(p);
        break;
    }
  } else {
    not_implemented(plan.kernel);
  }
}

}  // namespace mxv::device
