// The cuda backend's launch entries for the SwiGLU family: __global__ wrappers passing a CudaCtx
// to the bodies in kernels/swiglu_quantize.h. This file is compiled with -fmad=false (see
// device/CMakeLists.txt) on top of the explicit __f*_rn intrinsics in swiglu_math.h, so no
// contraction can change the portable exp or the activation (docs/semantics.md section 7.1).
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

// One wrapper per scheme, input type and index width, so each compiles to straight-line code.
template <qrules::Scheme kScheme, bool kBf16, class Index>
__global__ void __launch_bounds__(kSwigluBlockThreads) swiglu_quantize_fused_kernel(const SwigluQuantizeParams p) {
  CudaCtx ctx;
  swiglu_quantize_body<kScheme, kBf16, Index>(ctx, p);
}

template <qrules::Scheme kScheme>
void launch_fused(dim3 g, dim3 b, std::size_t smem, cudaStream_t s, const SwigluQuantizeParams& p) {
  if (p.in.input_bf16 && p.narrow_index) {
    swiglu_quantize_fused_kernel<kScheme, true, std::uint32_t><<<g, b, smem, s>>>(p);
  } else if (p.in.input_bf16) {
    swiglu_quantize_fused_kernel<kScheme, true, std::uint64_t><<<g, b, smem, s>>>(p);
  } else if (p.narrow_index) {
    swiglu_quantize_fused_kernel<kScheme, false, std::uint32_t><<<g, b, smem, s>>>(p);
  } else {
    swiglu_quantize_fused_kernel<kScheme, false, std::uint64_t><<<g, b, smem, s>>>(p);
  }
}

}  // namespace

void CudaBackend::run_kernel(const LaunchPlan& plan, const SwigluParams& p) {
  if (plan.kernel != "swiglu_bf16") not_implemented(plan.kernel);
  swiglu_bf16_kernel<<<to_dim3(plan.grid), to_dim3(plan.block), plan.dynamic_smem_bytes,
                       static_cast<cudaStream_t>(stream())>>>(p);
}

void CudaBackend::run_kernel(const LaunchPlan& plan, const SwigluQuantizeParams& p) {
  if (plan.kernel != "swiglu_quantize_fused") not_implemented(plan.kernel);
  const dim3 g = to_dim3(plan.grid), b = to_dim3(plan.block);
  const auto s = static_cast<cudaStream_t>(stream());
  if (p.scheme == qrules::Scheme::kNvfp4Te) {
    launch_fused<qrules::Scheme::kNvfp4Te>(g, b, plan.dynamic_smem_bytes, s, p);
  } else if (p.scheme == qrules::Scheme::kMxfp4Nvidia) {
    launch_fused<qrules::Scheme::kMxfp4Nvidia>(g, b, plan.dynamic_smem_bytes, s, p);
  } else {
    launch_fused<qrules::Scheme::kMxfp4Ocp>(g, b, plan.dynamic_smem_bytes, s, p);
  }
}

}  // namespace mxv::device
