// GPU benchmark of the dequantize (scalar vs tiled) and convert kernels, as a fraction of the copy
// bandwidth measured in the same run (docs/design.md section 7, "Performance": tiled dequantize >=
// 85% of copy, scalar ~5-10%). CUDA events on the backend's stream, warm-up, median of --reps timed
// measurements, inputs rotated over several sets whose total exceeds the 50 MB L2, random (never
// zero) data. A measurement times --batch consecutive launches, each on the next input set, and
// reports their mean, so a kernel shorter than the launch gap is not timed with the gap.
// Usage: see usage() below.      Output: one line per case, then a summary.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "mxv/device/convert.h"
#include "mxv/device/cuda_backend.h"
#include "mxv/device/dequantize.h"
#include "mxv/device/kernels/dequantize_tiled.h"
#include "bench_timing.h"

using namespace mxv::device;
using namespace mxv::device::bench;
using mxv::WideType;
using mxv::WeightPacking;

namespace {

Timing g_timing{50, 1, 3};  // --reps, --batch; 3 warm-up calls
int g_sets = 4;

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: dequantize_bench [--reps N] [--sets S] [--batch B] [--no-hold]\n"
               "  --reps N   timed measurements per case; the median is reported (default 50)\n"
               "  --sets S   input sets the launches rotate over (default 4; their total exceeds L2)\n"
               "  --batch B  launches per measurement, back to back on the stream, each on the next\n"
               "             input set; the figure is the measurement / B, so the launch overhead\n"
               "             between kernels is hidden behind the previous kernel (default 1)\n"
               "  --no-hold  do not hold the stream while a measurement's launches are queued, so the\n"
               "             host's latency before the first launch counts (bench_timing.h)\n");
}

/// The positive integer `text`, or exit 2 naming the option.
int positive(const char* option, const char* text) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 1 || v > 1000000) {
    std::fprintf(stderr, "dequantize_bench: %s needs a positive integer, got '%s'\n", option, text);
    usage(stderr);
    std::exit(2);
  }
  return static_cast<int>(v);
}

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed, std::uint8_t mask = 0xFF, std::uint8_t base = 0) {
  // Eight bytes per generator call: the MoE shape's packed weights alone are 470 MB per set.
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> v(n);
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 8 == 0) bits = rng();
    v[i] = static_cast<std::uint8_t>(base + (static_cast<std::uint8_t>(bits >> (8 * (i % 8))) & mask));
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (!std::strcmp(arg, "--help") || !std::strcmp(arg, "-h")) {
      usage(stdout);
      return 0;
    }
    if (!std::strcmp(arg, "--no-hold")) {
      g_timing.hold = false;
      continue;
    }
    int* target = !std::strcmp(arg, "--reps")    ? &g_timing.reps
                  : !std::strcmp(arg, "--sets")  ? &g_sets
                  : !std::strcmp(arg, "--batch") ? &g_timing.batch
                                                 : nullptr;
    if (target == nullptr || i + 1 == argc) {
      std::fprintf(stderr, target == nullptr ? "dequantize_bench: unknown option '%s'\n" : "dequantize_bench: %s needs a value\n", arg);
      usage(stderr);
      return 2;
    }
    *target = positive(arg, argv[++i]);
  }
  auto owned = cuda_backend_or_exit("dequantize_bench");
  auto& b = static_cast<CudaBackend&>(*owned);
  print_device(g_timing);
  std::printf("%d rotating input sets\n", g_sets);
  const double copy_gbs = copy_bandwidth_gbs(b, g_timing);

  // [E, N, K]: the reference shape, and an MoE layer's expert weights (32 experts x 4096 x 7168).
  struct Shape { std::int64_t e, n, k; };
  std::printf("\n%-14s %-8s %-5s %-9s %-18s %10s %10s %8s\n", "recipe", "packing", "out", "kernel", "shape", "ms", "GB/s", "of copy");
  for (const Shape shape : {Shape{8, 2048, 4096}, Shape{32, 4096, 7168}})
  for (const char* rname : {"nvfp4_te", "mxfp4_nvidia"}) {
    const mxv::Recipe r = mxv::Recipe::by_name(rname);
    const std::int64_t total = shape.e * shape.n * shape.k;
    const std::int64_t scale_bytes = shape.e * shape.n * (shape.k / r.block_size);
    std::vector<DeviceBuffer> packed, scales;
    for (int s = 0; s < g_sets; ++s) {
      const auto p = random_bytes(static_cast<std::size_t>(total / 2), 11 + static_cast<std::uint64_t>(s));
      const auto sc = r.is_nvfp4() ? random_bytes(static_cast<std::size_t>(scale_bytes), 99 + static_cast<std::uint64_t>(s), 0x3F, 0x20)
                                   : random_bytes(static_cast<std::size_t>(scale_bytes), 99 + static_cast<std::uint64_t>(s), 0x1F, 112);
      packed.push_back(b.alloc_upload(std::span<const std::uint8_t>(p), "packed"));
      scales.push_back(b.alloc_upload(std::span<const std::uint8_t>(sc), "scales"));
    }
    std::vector<float> sd(static_cast<std::size_t>(shape.e), 0.01f);
    DeviceBuffer s_dec = b.alloc_upload(std::span<const float>(sd), "s_dec");
    DeviceBuffer out = b.alloc(static_cast<std::size_t>(total) * 4, "out");
    for (WeightPacking packing : {WeightPacking::kKPacked, WeightPacking::kNPacked}) {
      for (WideType t : {WideType::kBf16, WideType::kFp32}) {
        // "tiled-r64": the tiled kernel forced into its rows64 geometry (block (8, 64), one 64-k tile
        // per thread, with the tiled arithmetic), so one run shows what the "units" (K-packed) and
        // "transpose" (N-packed) geometries add on top of the arithmetic.
        for (int variant = 0; variant < 3; ++variant) {
          const DequantizeVariant v = variant == 0 ? DequantizeVariant::kScalar : DequantizeVariant::kTiled;
          DequantizeArgs args;
          args.recipe = r;
          args.packing = packing;
          args.out_type = t;
          args.experts = shape.e;
          args.n = shape.n;
          args.k = shape.k;
          args.s_dec = &s_dec;
          args.out = &out;
          args.variant = v;
          const double ms = median_ms(b, g_timing, [&](int i) {
            args.packed = &packed[static_cast<std::size_t>(i % g_sets)];
            args.scales = &scales[static_cast<std::size_t>(i % g_sets)];
            if (variant == 2) {
              DequantizeLaunch l = plan_dequantize(args);
              l.plan.grid = {static_cast<unsigned>(shape.k / kDequantTileK),
                             static_cast<unsigned>((shape.n + kDequantTileN - 1) / kDequantTileN), static_cast<unsigned>(shape.e)};
              l.plan.block = {kDequantGroups, kDequantTileN, 1};
              b.launch(l.plan, l.params);
            } else {
              dequantize(b, args);
            }
          });
          const double bytes = static_cast<double>(total / 2 + scale_bytes) + static_cast<double>(total) * (t == WideType::kFp32 ? 4 : 2);
          const double gbs = bytes / (ms * 1e6);
          std::printf("%-14s %-8s %-5s %-9s %lldx%lldx%-8lld %10.3f %10.0f %7.1f%%\n", rname,
                      packing == WeightPacking::kKPacked ? "K" : "N", std::string(to_string(t)).c_str(),
                      variant == 2 ? "tiled-r64" : v == DequantizeVariant::kTiled ? "tiled" : "scalar", static_cast<long long>(shape.e),
                      static_cast<long long>(shape.n), static_cast<long long>(shape.k), ms, gbs, 100.0 * gbs / copy_gbs);
        }
      }
    }
  }

  // convert: 2^28 fp32 -> codes (index-free: real inputs, rotated over 2 sets of 1 GiB each).
  std::printf("\n%-10s %-5s %10s %10s %8s\n", "convert", "from", "ms", "GB/s", "of copy");
  const std::uint64_t count = std::uint64_t{1} << 28;
  std::vector<DeviceBuffer> ins;
  for (int s = 0; s < 2; ++s) {
    const auto bytes = random_bytes(static_cast<std::size_t>(count * 4), 7 + static_cast<std::uint64_t>(s));
    ins.push_back(b.alloc_upload(std::span<const std::uint8_t>(bytes), "in"));
  }
  DeviceBuffer codes = b.alloc(count, "codes");
  for (CodeFormat f : {CodeFormat::kE4M3, CodeFormat::kE2M1, CodeFormat::kE8M0Rp}) {
    ConvertArgs args;
    args.format = f;
    args.count = count;
    args.out = &codes;
    const double ms = median_ms(b, g_timing, [&](int i) {
      args.in = &ins[static_cast<std::size_t>(i % 2)];
      convert(b, args);
    });
    const double bytes = static_cast<double>(count * 4 + code_bytes(f, count));
    const double gbs = bytes / (ms * 1e6);
    std::printf("%-10s %-5s %10.3f %10.0f %7.1f%%\n", std::string(to_string(f)).c_str(), "fp32", ms, gbs, 100.0 * gbs / copy_gbs);
  }
  return 0;
}
