// Captures the GPU's rcp.approx.ftz.f32 (MUFU.RCP, behind __frcp_approx-style fast reciprocals and
// TensorRT-LLM's NVFP4 quantization) as the 2^23-entry delta table of mxv/reference/rcp_approx.h,
// then proves the CPU emulation built from it equal to the hardware over ALL 2^32 fp32 inputs.
// docs/semantics.md section 4.6 claims the result depends only on the significand; the full sweep
// is what makes that claim (and the table) trustworthy on this GPU.
// Usage: mxv_capture_rcp_approx OUT.bin
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "mxv/reference/rcp_approx.h"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "mxv_capture_rcp_approx: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

__device__ __forceinline__ float rcp_approx_ftz(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// One thread per fp32 bit pattern base + i.
__global__ void sweep(std::uint32_t base, std::uint32_t count, std::uint32_t* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = __float_as_uint(rcp_approx_ftz(__uint_as_float(base + i)));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.bin   (writes the rcp.approx.ftz.f32 delta table)\n", argv[0]);
    return 2;
  }
  constexpr std::uint32_t kChunk = 1u << 26;
  std::uint32_t* d_out = nullptr;
  check(cudaMalloc(&d_out, kChunk * sizeof(std::uint32_t)), "cudaMalloc");
  std::vector<std::uint32_t> h(kChunk);

  // 1. The table: significands of [1, 2), delta = approx bits - correctly rounded bits.
  const std::uint32_t one = 0x3f800000u;
  sweep<<<(1u << 23) / 256, 256>>>(one, 1u << 23, d_out);
  check(cudaGetLastError(), "launch");
  check(cudaMemcpy(h.data(), d_out, (1u << 23) * sizeof(std::uint32_t), cudaMemcpyDeviceToHost), "copy");
  std::vector<std::int8_t> deltas(1u << 23);
  std::size_t plus = 0, minus = 0;
  for (std::uint32_t j = 0; j < (1u << 23); ++j) {
    const float x = std::bit_cast<float>(one + j);
    const auto exact = std::bit_cast<std::uint32_t>(mxv::rcp_ftz_correctly_rounded(x));
    const long d = static_cast<long>(h[j]) - static_cast<long>(exact);
    if (d < -1 || d > 1) {
      std::fprintf(stderr, "significand 0x%06x: rcp.approx 0x%08x vs correctly rounded 0x%08x: not within 1 ulp\n",
                   j, h[j], exact);
      return 1;
    }
    deltas[j] = static_cast<std::int8_t>(d);
    plus += d == 1;
    minus += d == -1;
  }
  const auto table = mxv::RcpApproxTable::from_deltas(deltas);
  table.save(argv[1]);
  std::printf("table: %zu of 2^23 significands differ from the correctly rounded reciprocal (+1: %zu, -1: %zu)\n",
              plus + minus, plus, minus);

  // 2. Every fp32 input: the hardware against the emulation from the table.
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::uint64_t mismatches = 0;
  std::uint32_t first_bad = 0;
  for (std::uint64_t base = 0; base < (1ull << 32); base += kChunk) {
    sweep<<<kChunk / 256, 256>>>(static_cast<std::uint32_t>(base), kChunk, d_out);
    check(cudaGetLastError(), "launch");
    check(cudaMemcpy(h.data(), d_out, kChunk * sizeof(std::uint32_t), cudaMemcpyDeviceToHost), "copy");
    std::vector<std::uint64_t> bad(threads, 0);
    std::vector<std::uint32_t> first(threads, 0);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        for (std::uint32_t i = t; i < kChunk; i += threads) {
          const auto bits = static_cast<std::uint32_t>(base + i);
          const float x = std::bit_cast<float>(bits);
          const auto emu = std::bit_cast<std::uint32_t>(table.rcp(x));
          if (emu != h[i]) {
            if (bad[t]++ == 0) first[t] = bits;
          }
        }
      });
    }
    for (auto& th : pool) th.join();
    for (unsigned t = 0; t < threads; ++t) {
      if (bad[t] != 0 && mismatches == 0) first_bad = first[t];
      mismatches += bad[t];
    }
  }
  if (mismatches != 0) {
    const float x = std::bit_cast<float>(first_bad);
    std::printf("emulation vs hardware over all 2^32 inputs: %llu MISMATCHES; first input 0x%08x: emulated 0x%08x\n",
                static_cast<unsigned long long>(mismatches), first_bad,
                std::bit_cast<std::uint32_t>(table.rcp(x)));
    return 1;
  }
  std::printf("emulation vs hardware over all 2^32 inputs: 0 mismatches\n");
  cudaFree(d_out);
  return 0;
}
