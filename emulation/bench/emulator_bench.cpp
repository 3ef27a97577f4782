// Benchmarks of the SIMT emulator (docs/design.md section 4.5, "Cost"): the fiber switch cost, and
// the wall time to emulate a kernel producing 1M outputs with every check and the coalescing record
// on (goal: under 2 s on one core), next to the same computation as a plain loop. Figures go to
// BENCHMARKS.md ("Emulator" section) with the command that reproduces them.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "mxv/emulation/emulator.h"
#include "mxv/emulation/fiber.h"

namespace {

using mxv::emu::EmuCtx;
using mxv::emu::Emulator;
using mxv::emu::Fiber;

struct PingPong {
  Fiber* fiber;
};

void ping_forever(void* arg) {
  auto* p = static_cast<PingPong*>(arg);
  for (;;) p->fiber->yield();
}

// One iteration = resume + yield = two context switches.
void BM_FiberSwitchRoundTrip(benchmark::State& state) {
  Fiber f(Fiber::default_stack_bytes());
  PingPong p{&f};
  f.prepare(&ping_forever, &p);
  for (auto _ : state) f.resume();
  state.counters["ns_per_switch"] =
      benchmark::Counter(2.0 * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_FiberSwitchRoundTrip);

constexpr unsigned kOutputs = 1u << 20;
constexpr unsigned kBlock = 256;

// The kernel body: scale by a per-16 block amax (one shuffle reduction per 16 lanes), the shape
// of an NVFP4 quantizer's inner step: 1 load, 4 shuffles, 1 store per output.
template <class Ctx>
void scale_by_block_amax(Ctx& ctx, mxv::device::GlobalPtr<const float> in,
                         mxv::device::GlobalPtr<float> out) {
  const unsigned i = ctx.block_idx().x * ctx.block_dim().x + ctx.thread_idx().x;
  const float x = ctx.load(in, i);
  float a = std::fabs(x);
  for (int offset = 8; offset > 0; offset /= 2) a = std::fmax(a, ctx.shfl_xor(mxv::device::kFullMask, a, offset, 16));
  ctx.store(out, i, a > 0.0f ? x / a : 0.0f);
}

void BM_Emulate1MOutputsAllChecks(benchmark::State& state) {
  Emulator emu;
  auto in = emu.alloc<float>(kOutputs, "in");
  auto out = emu.alloc<float>(kOutputs, "out");
  std::vector<float> host(kOutputs);
  for (unsigned i = 0; i < kOutputs; ++i) host[i] = static_cast<float>(static_cast<int>(i % 97) - 48);
  emu.upload(in, std::span<const float>(host));
  const mxv::device::GlobalPtr<const float> cin{in.raw};
  for (auto _ : state) {
    emu.launch("scale_by_block_amax", {kOutputs / kBlock, 1, 1}, {kBlock, 1, 1}, 0,
               [&](EmuCtx& ctx) { scale_by_block_amax(ctx, cin, out); });
  }
  if (emu.finding_count() != 0) state.SkipWithError("the benchmark kernel produced findings");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kOutputs);
}
BENCHMARK(BM_Emulate1MOutputsAllChecks)->Unit(benchmark::kMillisecond)->Iterations(3);

// The same computation without the emulator: the floor the overhead is measured against.
void BM_PlainLoop1MOutputs(benchmark::State& state) {
  std::vector<float> in(kOutputs), out(kOutputs);
  for (unsigned i = 0; i < kOutputs; ++i) in[i] = static_cast<float>(static_cast<int>(i % 97) - 48);
  for (auto _ : state) {
    for (unsigned g = 0; g < kOutputs; g += 16) {
      float a = 0.0f;
      for (unsigned k = 0; k < 16; ++k) a = std::fmax(a, std::fabs(in[g + k]));
      for (unsigned k = 0; k < 16; ++k) out[g + k] = a > 0.0f ? in[g + k] / a : 0.0f;
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kOutputs);
}
BENCHMARK(BM_PlainLoop1MOutputs)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
