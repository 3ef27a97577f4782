// What every GPU benchmark of device/bench shares: the cuda backend (or exit 2 with the reason),
// CUDA errors as exit 1, the median time of a launch measured with CUDA events on the backend's
// stream, and the device-to-device copy bandwidth that every figure is a fraction of
// (docs/design.md section 7, "Performance"; BENCHMARKS.md).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "mxv/device/cuda_backend.h"

namespace mxv::device::bench {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

/// The cuda backend; without a usable device, prints "<who>: cuda backend unavailable: <why>"
/// and exits 2.
inline std::unique_ptr<Backend> cuda_backend_or_exit(const char* who) {
  const Availability a = cuda_availability();
  if (!a.available) {
    std::fprintf(stderr, "%s: cuda backend unavailable: %s\n", who, a.reason.c_str());
    std::exit(2);
  }
  return make_cuda_backend();
}

inline cudaStream_t stream_of(CudaBackend& b) { return static_cast<cudaStream_t>(b.stream()); }

/// How a launch is timed: `warmup` untimed calls, then `reps` measurements of `batch`
/// consecutive calls each; the result is the median per call. With `hold` (the default; the
/// benches' --no-hold turns it off) a spinning kernel holds the stream for kHoldNs before each
/// measurement's first event, so the host has queued the measurement's launches by the time the GPU
/// reaches them and the events time the GPU's work alone, as nvbench's blocking kernel does.
/// Without it the GPU idles between the first event and the first kernel while the host plans and
/// launches that call (a few microseconds: 5-8% of a 40-80 us kernel, BENCHMARKS.md), which a
/// 1 GiB copy amortises and a short kernel does not.
struct Timing {
  int reps = 50;
  int batch = 1;
  int warmup = 5;
  bool hold = true;
};

inline constexpr unsigned long long kHoldNs = 1000000;  // 1 ms: far more than a batch's host work

/// One thread spinning until `ns` nanoseconds of the GPU's global timer have passed.
static __global__ void hold_stream_kernel(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

/// Median milliseconds per call of `launch(i)`; i counts every call, warm-up included, so a
/// launch that rotates its inputs by i never meets the same set twice in a row.
template <class F>
double median_ms(CudaBackend& b, const Timing& timing, F&& launch) {
  const cudaStream_t s = stream_of(b);
  int call = 0;
  for (int i = 0; i < timing.warmup; ++i) launch(call++);
  b.synchronize();
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "event");
  check(cudaEventCreate(&e1), "event");
  std::vector<double> t;
  for (int i = 0; i < timing.reps; ++i) {
    if (timing.hold) {
      hold_stream_kernel<<<1, 1, 0, s>>>(kHoldNs);
      check(cudaGetLastError(), "hold");
    }
    check(cudaEventRecord(e0, s), "record");
    for (int j = 0; j < timing.batch; ++j) launch(call++);
    check(cudaEventRecord(e1, s), "record");
    check(cudaEventSynchronize(e1), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
    t.push_back(static_cast<double>(ms) / timing.batch);
    b.clear_launch_log();  // the log would otherwise hold every timed launch
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// The device-to-device copy bandwidth in GB/s (bytes read + bytes written per second) of a
/// 1 GiB cudaMemcpyAsync, timed as `timing` says; prints it as the first figure of the run.
inline double copy_bandwidth_gbs(CudaBackend& b, const Timing& timing) {
  const std::size_t bytes = std::size_t{1} << 30;
  DeviceBuffer src = b.alloc(bytes, "copy.src", 0x5A);
  DeviceBuffer dst = b.alloc(bytes, "copy.dst", 0x00);
  const double ms = median_ms(b, timing, [&](int) {
    check(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream_of(b)), "copy");
  });
  const double gbs = 2.0 * static_cast<double>(bytes) / (ms * 1e6);
  std::printf("copy 1 GiB (D2D memcpy): %.3f ms -> %.1f GB/s (read + write)\n", ms, gbs);
  return gbs;
}

/// The device line every run starts with.
inline void print_device(const Timing& timing) {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "props");
  std::printf("device: %s (sm_%d%d), %d SMs, L2 %d MB; median of %d measurements of %d launch(es) after %d warm-up; %s\n",
              prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize >> 20, timing.reps,
              timing.batch, timing.warmup,
              timing.hold ? "stream held 1 ms before each measurement (launches queued first)" : "no hold (--no-hold)");
}

}  // namespace mxv::device::bench
