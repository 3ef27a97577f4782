// Encode throughput of the format models (docs/design.md section 7: goal >= 1e9 conversions/s on
// one core) per format and mode, and of the CUDA 13.0 header host functions on the same inputs
// (when the headers were found at configure time), so BENCHMARKS.md can record the ratio.
// Inputs: 2^20 fp32 values, x = n * 2^u with n standard normal and u uniform in [-10, 10]
// (covers subnormal, normal and overflow ranges of E4M3/E2M1/E8M0), fixed seed 20240501
// (override with MXV_BENCH_SEED). Items processed = conversions; Google Benchmark prints items/s.
#include <benchmark/benchmark.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "mxv/reference/float_format.h"

#if MXV_HAVE_CUDA_FP_HEADERS
#include <cuda_fp4.h>
#include <cuda_fp8.h>
#endif

namespace {

using mxv::ConvertMode;
using mxv::Dialect;
using mxv::Rounding;
using mxv::Saturation;

const std::vector<float>& inputs() {
  static const std::vector<float> xs = [] {
    unsigned seed = 20240501;
    if (const char* s = std::getenv("MXV_BENCH_SEED")) seed = static_cast<unsigned>(std::atoi(s));
    std::fprintf(stderr, "encode_bench: input seed %u (MXV_BENCH_SEED)\n", seed);
    std::mt19937 rng(seed);
    std::normal_distribution<float> n(0.0f, 1.0f);
    std::uniform_int_distribution<int> u(-10, 10);
    std::vector<float> v(1u << 20);
    for (float& x : v) x = std::ldexp(n(rng), u(rng));
    return v;
  }();
  return xs;
}

void run_mxv(benchmark::State& state, const mxv::FloatFormat& f, ConvertMode mode) {
  const std::vector<float>& xs = inputs();
  std::vector<std::uint8_t> out(xs.size());
  for (auto _ : state) {
    mxv::encode(f, xs, out, mode);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(xs.size()));
}

constexpr ConvertMode kMode(Rounding r, Saturation s) { return {r, s, Dialect::kCuda}; }

// One registration per format and mode; Google Benchmark names each run_mxv/<name>.
BENCHMARK_CAPTURE(run_mxv, e4m3_rne_finite, mxv::kE4M3, kMode(Rounding::kNearestEven, Saturation::kFinite));
BENCHMARK_CAPTURE(run_mxv, e4m3_rne_none, mxv::kE4M3, kMode(Rounding::kNearestEven, Saturation::kNone));
BENCHMARK_CAPTURE(run_mxv, e2m1_rne, mxv::kE2M1, kMode(Rounding::kNearestEven, Saturation::kFinite));
BENCHMARK_CAPTURE(run_mxv, e2m1_rz, mxv::kE2M1, kMode(Rounding::kTowardZero, Saturation::kFinite));
BENCHMARK_CAPTURE(run_mxv, e8m0_rz_finite, mxv::kE8M0, kMode(Rounding::kTowardZero, Saturation::kFinite));
BENCHMARK_CAPTURE(run_mxv, e8m0_rp_finite, mxv::kE8M0, kMode(Rounding::kUp, Saturation::kFinite));
BENCHMARK_CAPTURE(run_mxv, e8m0_rp_none, mxv::kE8M0, kMode(Rounding::kUp, Saturation::kNone));
BENCHMARK_CAPTURE(run_mxv, e4m3_ml_dtypes, mxv::kE4M3,
                  ConvertMode{Rounding::kNearestEven, Saturation::kNone, Dialect::kMlDtypes});

#if MXV_HAVE_CUDA_FP_HEADERS
template <class Fn>
void run_header(benchmark::State& state, Fn fn) {
  const std::vector<float>& xs = inputs();
  std::vector<std::uint8_t> out(xs.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < xs.size(); ++i) out[i] = fn(xs[i]);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(xs.size()));
}
// The CUDA header's host conversions on the same inputs, named run_header/<name>.
std::uint8_t header_e4m3_rne_finite(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3); }
std::uint8_t header_e4m3_rne_none(float x) { return __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3); }
std::uint8_t header_e2m1_rne(float x) { return __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest); }
std::uint8_t header_e2m1_rz(float x) { return __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundZero); }
std::uint8_t header_e8m0_rz_finite(float x) { return __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero); }
std::uint8_t header_e8m0_rp_finite(float x) { return __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf); }
std::uint8_t header_e8m0_rp_none(float x) { return __nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundPosInf); }
BENCHMARK_CAPTURE(run_header, e4m3_rne_finite, header_e4m3_rne_finite);
BENCHMARK_CAPTURE(run_header, e4m3_rne_none, header_e4m3_rne_none);
BENCHMARK_CAPTURE(run_header, e2m1_rne, header_e2m1_rne);
BENCHMARK_CAPTURE(run_header, e2m1_rz, header_e2m1_rz);
BENCHMARK_CAPTURE(run_header, e8m0_rz_finite, header_e8m0_rz_finite);
BENCHMARK_CAPTURE(run_header, e8m0_rp_finite, header_e8m0_rp_finite);
BENCHMARK_CAPTURE(run_header, e8m0_rp_none, header_e8m0_rp_none);
#endif

}  // namespace

BENCHMARK_MAIN();
