// The cuda backend's launch entries for the quantize family: thin __global__ wrappers passing a
// CudaCtx to the same kernel bodies the emulator runs (kernels/amax.h, kernels/quantize.h), with
// the host launcher's plan (docs/design.md section 3.4, "One kernel source, two executions").
#include <cuda_runtime.h>

#include "mxv/device/cuda_backend.h"
#include "mxv/device/cuda_ctx.cuh"
#include "mxv/device/kernels/amax.h"
#include "mxv/device/kernels/quantize.h"

namespace mxv::device {

namespace {

__global__ void __launch_bounds__(kAmaxBlockThreads) amax_kernel(const AmaxParams p) {
  CudaCtx ctx;
  amax_body(ctx, p);
}

// One wrapper per variant, scheme and input type, so each compiles to straight-line code.
template <qrules::Scheme kScheme, bool kBf16, class Index>
__global__ void __launch_bounds__(kQuantizeBlockThreads) quantize_vector_kernel(const QuantizeParams p) {
  CudaCtx ctx;
  quantize_vector_body<kScheme, kBf16, Index>(ctx, p);
}

/// The vector kernel instantiation for a runtime input type and index width.
template <qrules::Scheme kScheme>
void launch_quantize_vector(dim3 g, dim3 b, std::size_t smem, cudaStream_t s, const QuantizeParams& p) {
  if (p.input_bf16 && p.narrow_index) {
    quantize_vector_kernel<kScheme, true, std::uint32_t><<<g, b, smem, s>>>(p);
  } else if (p.input_bf16) {
    quantize_vector_kernel<kScheme, true, std::uint64_t><<<g, b, smem, s>>>(p);
  } else if (p.narrow_index) {
    quantize_vector_kernel<kScheme, false, std::uint32_t><<<g, b, smem, s>>>(p);
  } else {
    quantize_vector_kernel<kScheme, false, std::uint64_t><<<g, b, smem, s>>>(p);
  }
}
__global__ void __launch_bounds__(kQuantizeBlockThreads) quantize_scalar_kernel(const QuantizeParams p) {
  CudaCtx ctx;
  quantize_scalar_body(ctx, p);
}

}  // namespace

static_assert(KernelCtx<CudaCtx>);

void CudaBackend::run_kernel(const LaunchPlan& plan, const AmaxParams& p) {
  if (plan.kernel != "amax") not_implemented(plan.kernel);
  amax_kernel<<<to_dim3(plan.grid), to_dim3(plan.block), plan.dynamic_smem_bytes,
                static_cast<cudaStream_t>(stream())>>>(p);
}

void CudaBackend::run_kernel(const LaunchPlan& plan, const QuantizeParams& p) {
  const bool vector = p.variant == QuantizeVariant::kVector;
  if (plan.kernel != (vector ? "quantize_vector" : "quantize_scalar")) not_implemented(plan.kernel);
  const auto s = static_cast<cudaStream_t>(stream());
  const dim3 g = to_dim3(plan.grid), b = to_dim3(plan.block);
  using qrules::Scheme;
  if (!vector) {
    quantize_scalar_kernel<<<g, b, plan.dynamic_smem_bytes, s>>>(p);
  } else if (p.scheme == Scheme::kNvfp4Te) {
    launch_quantize_vector<Scheme::kNvfp4Te>(g, b, plan.dynamic_smem_bytes, s, p);
  } else if (p.scheme == Scheme::kMxfp4Nvidia) {
    launch_quantize_vector<Scheme::kMxfp4Nvidia>(g, b, plan.dynamic_smem_bytes, s, p);
  } else {
    launch_quantize_vector<Scheme::kMxfp4Ocp>(g, b, plan.dynamic_smem_bytes, s, p);
  }
}

}  // namespace mxv::device
