// The correctly rounded fp32 operations the kernels' arithmetic is written in: on the GPU the
// _rn intrinsics, which nvcc never contracts or reassociates and which keep IEEE division even in
// a --use_fast_math build (the contract's "/"); on the host (the emulator) the plain operators
// (g++ in ISO C++20 mode does not contract) and std::fma. The block-scaling rules
// (kernels/quantize_rules.h), the quick division (kernels/quick_division.h) and the SwiGLU
// arithmetic (kernels/swiglu_math.h) share these one definitions.
#pragma once

#include <cmath>

#include "mxv/device/kernel_ctx.h"

namespace mxv::device::qrules {

MXV_HD MXV_FORCEINLINE float div_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}

MXV_HD MXV_FORCEINLINE float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

MXV_HD MXV_FORCEINLINE float fma_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

}  // namespace mxv::device::qrules
