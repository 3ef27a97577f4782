// The logic of sample_kernel.h written directly with CUDA builtins, as one would without a
// context; its PTX must equal sample_with_ctx.cu's (cuda_ctx_zero_cost_test.cpp).
#include <cstddef>
#include <cstdint>

#ifndef MXV_PLANTED_DIFFERENCE
#define MXV_PLANTED_DIFFERENCE 0
#endif

struct alignas(16) RawVec16 {
  std::uint32_t w[4];
};

extern "C" __global__ void __launch_bounds__(256) sample_kernel(const float* in, float* out,
                                                                 std::uint32_t* flags, unsigned n) {
  __shared__ float tile[256];
  const unsigned t = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + t;
  const float x = i < n ? in[i] : 0.0f;
  tile[t] = x;
  __syncthreads();
#if MXV_PLANTED_DIFFERENCE
  __syncthreads();  // the planted difference: one extra barrier the comparison must notice
#endif
  const float y = tile[(t + 1) % 256];
  float a = fabsf(x + y);
  for (int o = 16; o > 0; o /= 2) a = fmaxf(a, __shfl_xor_sync(0xffffffffu, a, o, 32));
  const std::uint32_t votes = __ballot_sync(0xffffffffu, x > 0.0f);
  if ((t & 31u) == 0) {
    flags[i / 32] = votes;
    (void)atomicMax(reinterpret_cast<unsigned int*>(flags + gridDim.x * blockDim.x / 32), static_cast<unsigned int>(votes));
  }
  if (i < n) out[i] = a;
  if (t % 4 == 0 && i + 3 < n) {
    const RawVec16 v = *reinterpret_cast<const RawVec16*>(in + i);
    // Element offsets in 32 bits, widened where each store takes them, as the body's calls do.
    const auto store16 = [](float* p, std::size_t e, RawVec16 w) { *reinterpret_cast<RawVec16*>(p + e) = w; };
    const auto store16_streaming = [](float* p, std::size_t e, RawVec16 w) {
      __stcs(reinterpret_cast<uint4*>(p + e), make_uint4(w.w[0], w.w[1], w.w[2], w.w[3]));
    };
    if ((t & 4u) != 0u) store16_streaming(out, n + i, v);
    else store16(out, n + i, v);
  }
}
