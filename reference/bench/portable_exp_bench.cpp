// Throughput of the portable fp32 exp and the SwiGLU activations built on it (portable_exp.h,
// swiglu.h), next to glibc's expf for scale. Tuned for: nothing beyond the fixed operation
// order (the order is the contract); the x86-64 build picks an FMA clone at load time.
// Run: build/<dir>/reference/portable_exp_bench (BENCHMARKS.md "swiglu, portable exp").
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <span>
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

// Times `run(x, y)`, which writes one output per input.
template <class Run>
void BM_over_inputs(benchmark::State& state, Run run) {
  const std::vector<float> x = inputs();
  std::vector<float> y(x.size());
  for (auto _ : state) {
    run(std::span<const float>(x), std::span<float>(y));
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(x.size()));
}

// `f` called once per value: the scalar form a kernel thread runs.
template <class F>
auto per_value(F f) {
  return [f](std::span<const float> x, std::span<float> y) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = f(x[i]);
  };
}

BENCHMARK_CAPTURE(BM_over_inputs, portable_exp,
                  [](std::span<const float> x, std::span<float> y) { mxv::portable_exp(x, y); });
BENCHMARK_CAPTURE(BM_over_inputs, glibc_expf, per_value([](float v) { return std::exp(v); }));
BENCHMARK_CAPTURE(BM_over_inputs, swiglu_silu, per_value([](float v) { return mxv::swiglu_silu(v, 1.5f); }));
BENCHMARK_CAPTURE(BM_over_inputs, swiglu_clamped,
                  per_value([](float v) { return mxv::swiglu_clamped(v, 1.5f, 1.702f, 7.0f); }));

}  // namespace

BENCHMARK_MAIN();
