// The cuda backend's launch entries for the quantize family: thin __global__ wrappers passing a
// CudaCtx to the same kernel bodies the emulator runs (kernels/amax.h, kernels/quantize.h), with
// the host launcher's plan (DESIGN.md "One kernel source, two executions").
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

// One wrapper per variant and input type, so each compiles to straight-line code.
__global__ void __launch_bounds__(kQuantizeBlockThreads) quantize_vector_f32_kernel(const QuantizeParams p) {
  CudaCtx ctx;
  quantize_vector_body<4>(ctx, p);
}
__global__ void __launch_bounds__(kQuantizeBlockThreads) quantize_vector_bf16_kernel(const QuantizeParams p) {
  CudaCtx ctx;
  quantize_vector_body<8>(ctx, p);
}
__global__ void __launch_bounds__(kQuantizeBlockThreads) quantize_scalar_kernel(const QuantizeParams p) {
  CudaCtx ctx;
  quantize_scalar_body(ctx, p);
}

dim3 to_dim3(Dim3 d) { return dim3(d.x, d.y, d.z); }

}  // namespace

static_assert(KernelCtx<CudaCtx>);

void CudaBackend::launch_amax(const LaunchPlan& plan, const AmaxParams& p) {
  if (plan.kernel != "amax") not_implemented(plan.kernel);
  validate_launch_plan(plan);
  note_launch(plan);
  amax_kernel<<<to_dim3(plan.grid), to_dim3(plan.block), plan.dynamic_smem_bytes,
                static_cast<cudaStream_t>(stream())>>>(p);
  check_launch(plan);
}

void CudaBackend::launch_quantize(const LaunchPlan& plan, const QuantizeParams& p) {
  const bool vector = p.variant == QuantizeVariant::kVector;
  if (plan.kernel != (vector ? "quantize_vector" : "quantize_scalar")) not_implemented(plan.kernel);
  validate_launch_plan(plan);
  note_launch(plan);
  const auto s = static_cast<cudaStream_t>(stream());
  const dim3 g = to_dim3(plan.grid), b = to_dim3(plan.block);
  if (!vector) {
    quantize_scalar_kernel<<<g, b, plan.dynamic_smem_bytes, s>>>(p);
  } else if (p.input_bf16) {
    quantize_vector_bf16_kernel<<<g, b, plan.dynamic_smem_bytes, s>>>(p);
  } else {
    quantize_vector_f32_kernel<<<g, b, plan.dynamic_smem_bytes, s>>>(p);
  }
  check_launch(plan);
}

}  // namespace mxv::device
