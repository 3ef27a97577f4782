// The sample kernel body instantiated with CudaCtx (see sample_kernel.h). Compiled to PTX by
// cuda_ctx_zero_cost_test.cpp only; not part of any library.
#include "mxv/device/cuda_ctx.cuh"
#include "sample_kernel.h"

extern "C" __global__ void __launch_bounds__(256) sample_kernel(const float* in, float* out,
                                                                 std::uint32_t* flags, unsigned n) {
  mxv::device::CudaCtx ctx;
  mxv::zero_cost::sample_body(ctx, mxv::device::GlobalPtr<const float>{in},
                              mxv::device::GlobalPtr<float>{out},
                              mxv::device::GlobalPtr<std::uint32_t>{flags}, n);
}
