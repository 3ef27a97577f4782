// Throughput of the portable fp32 exp and the SwiGLU activations built on it (portable_exp.h,
// swiglu.h), next to glibc's expf for scale. Tuned for: nothing beyond the fixed operation
// order (the order is the contract); the x86-64 build picks an FMA clone at load time.
// Run: build/<dir>/reference/portable_exp_benchmark (BENCHMARKS.md "swiglu, portable exp").
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "mxv/reference/portable_exp.h"
#include "mxv/reference/swiglu.h"

namespace {

// 4096 inputs spread over [-20, 20) (fits in L1; the loop measures arithmetic, not memory).
std::vector<float> inputs() {
  std::vector<float> x(4096);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = -20.0f + 40.0f * static_cast<float>(i) / static_cast<float>(x.size());
  }
  return x;
}

void BM_portable_exp(benchmark::State& state) {
  const std::vector<float> x = inputs();
  std::vector<float> y(x.size());
  for (auto _ : state) {
    mxv::portable_exp(x, y);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(x.size()));
}
BENCHMARK(BM_portable_exp);

void BM_glibc_expf(benchmark::State& state) {
  const std::vector<float> x = inputs();
  std::vector<float> y(x.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = std::exp(x[i]);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(x.size()));
}
BENCHMARK(BM_glibc_expf);

void BM_swiglu_silu(benchmark::State& state) {
  const std::vector<float> x = inputs();
  std::vector<float> y(x.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = mxv::swiglu_silu(x[i], 1.5f);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(x.size()));
}
BENCHMARK(BM_swiglu_silu);

void BM_swiglu_clamped(benchmark::State& state) {
  const std::vector<float> x = inputs();
  std::vector<float> y(x.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = mxv::swiglu_clamped(x[i], 1.5f, 1.702f, 7.0f);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(x.size()));
}
BENCHMARK(BM_swiglu_clamped);

}  // namespace

BENCHMARK_MAIN();
