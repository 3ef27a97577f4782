// The cuda backend's launch entries for the SwiGLU family: __global__ wrappers passing a CudaCtx
// to the bodies in kernels/swiglu_quantize.h. This file is compiled with -fmad=false (see
// device/CMakeLists.txt) on top of the explicit __f*_rn intrinsics in swiglu_math.h, so no
// contraction can change the portable exp or the activation (SEMANTICS.md section 6).
#include <cuda_runtime.h>

#include "mxv/device/cuda_backend.h"
#include "mxv/device/cuda_ctx.cuh"
#include "mxv/device/kernels/swiglu_quantize.h"

namespace mxv::device {

namespace {

__global__ void __launch_bounds__(kSwigluBlockThreads) swiglu_bf16_kernel(const SwigluParams p) {
  CudaCtx ctx;
  swiglu_bf16_body(ctx, p);
}

__global__ void __launch_bounds__(kSwigluBlockThreads) swiglu_quantize_fused_kernel(const SwigluQuantizeParams p) {
  CudaCtx ctx;
  swiglu_quantize_body(ctx, p);
}

dim3 to_dim3(Dim3 d) { return dim3(d.x, d.y, d.z); }

}  // namespace

void CudaBackend::launch_swiglu(const LaunchPlan& plan, const SwigluParams& p) {
  if (plan.kernel != "swiglu_bf16") not_implemented(plan.kernel);
  validate_launch_plan(plan);
  note_launch(plan);
  swiglu_bf16_kernel<<<to_dim3(plan.grid), to_dim3(plan.block), plan.dynamic_smem_bytes,
                       static_cast<cudaStream_t>(stream())>>>(p);
  check_launch(plan);
}

void CudaBackend::launch_swiglu_quantize(const LaunchPlan& plan, const SwigluQuantizeParams& p) {
  if (plan.kernel != "swiglu_quantize_fused") not_implemented(plan.kernel);
  validate_launch_plan(plan);
  note_launch(plan);
  swiglu_quantize_fused_kernel<<<to_dim3(plan.grid), to_dim3(plan.block), plan.dynamic_smem_bytes,
                                 static_cast<cudaStream_t>(stream())>>>(p);
  check_launch(plan);
}

}  // namespace mxv::device
