// GPU benchmark of quantize and SwiGLU (docs/design.md section 7, "Performance"): quantize (amax +
// quantize kernels, NVFP4 and MXFP4, fp32 and bf16) and SwiGLU (fused vs the unfused pair), each
// reported as effective bandwidth and as a fraction of the device-to-device copy bandwidth measured
// in the same run. Targets: quantize >= 85% of copy, fused swiglu_quantize >= 80% and faster than
// the unfused pair.
//
// Method (docs/design.md section 7): CUDA events around every launch, the launch queued behind a
// kernel that holds the stream (bench_timing.h), warm-up launches first,
// the median of many timed launches, inputs rotated over several buffers whose total exceeds the
// 50 MB L2 (each input here is >= 100 MB), inputs random (never zeros). The kernels launch through
// CudaBackend's entries with the host launchers' plans, i.e. exactly what the tests verify.
//
// Run on the GPU machine: build/gpu/device/quantize_bench [--reps N] [--only quantize|swiglu]
// [--activation silu|clamped] [--no-hold] (bench_timing.h: without the stream hold each figure
// includes the host's launch latency of the call); prints one table. --activation picks SwiGLU's
// activation (default silu; clamped is gpt-oss's, alpha 1.702 and limit 7).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mxv/device/cuda_backend.h"
#include "mxv/device/quantize.h"
#include "mxv/device/swiglu_quantize.h"
#include "bench_inputs.h"
#include "bench_timing.h"

namespace {

using namespace mxv;
using namespace mxv::device;
using namespace mxv::device::bench;

Timing g_timing{50, 1, 5};  // --reps; 5 warm-up launches
constexpr int kRotate = 3;  // input buffers per benchmark, each >= 100 MB: far beyond the L2

struct Row {
  std::string name;
  double bytes;
  double ms;
};

void print(const Row& r, double copy_gbs) {
  const double gbs = r.bytes / (r.ms * 1e-3) / 1e9;
  std::printf("%-52s %9.3f ms %9.1f GB/s %6.1f%% of copy\n", r.name.c_str(), r.ms, gbs, 100.0 * gbs / copy_gbs);
}

int usage_error(const char* why, const char* what) {
  std::fprintf(stderr, "quantize_bench: %s '%s'\nusage: quantize_bench [--reps N (at least 5)] [--only quantize|swiglu] "
               "[--activation silu|clamped] [--no-hold]\n",
               why, what);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // --only quantize|swiglu: one section (an A/B comparison of one kernel need not pay for the other's
  // input generation and launches).
  std::string only;
  Activation activation = Activation::kSilu;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--no-hold") {
      g_timing.hold = false;
      continue;
    }
    if (arg != "--reps" && arg != "--only" && arg != "--activation") return usage_error("unknown option", argv[i]);
    if (i + 1 == argc) return usage_error("needs a value:", argv[i]);
    const char* value = argv[++i];
    if (arg == "--only") {
      only = value;
      if (only != "quantize" && only != "swiglu") return usage_error("--only takes quantize or swiglu, not", value);
      continue;
    }
    if (arg == "--activation") {
      const std::string a = value;
      if (a != "silu" && a != "clamped") return usage_error("--activation takes silu or clamped, not", value);
      activation = a == "silu" ? Activation::kSilu : Activation::kSwigluClamped;
      continue;
    }
    char* end = nullptr;
    const long reps = std::strtol(value, &end, 10);
    if (end == value || *end != '\0' || reps < 1 || reps > 100000) return usage_error("--reps needs a positive integer, not", value);
    g_timing.reps = std::max(5, static_cast<int>(reps));  // a median of fewer is not worth printing
  }
  auto backend_ptr = cuda_backend_or_exit("quantize_bench");
  auto& be = static_cast<CudaBackend&>(*backend_ptr);
  print_device(g_timing);
  const double copy_gbs = copy_bandwidth_gbs(be, g_timing);

  // ---- quantize ----
  const std::int64_t M = 16384, K = 7168;
  if (only != "swiglu") {
    // The rotated inputs of one type, drawn once and shared by both presets.
    std::vector<std::vector<std::uint8_t>> host_inputs[2];
    for (const bool bf16 : {true, false}) {
      for (int r = 0; r < kRotate; ++r) {
        host_inputs[bf16].push_back(random_normal_bytes(static_cast<std::size_t>(M * K), bf16, 100 + static_cast<std::uint64_t>(r)));
      }
    }
    for (const char* preset : {"nvfp4_te", "mxfp4_nvidia"}) {
      for (const bool bf16 : {true, false}) {
        QuantizeProblem prob;
        prob.recipe = Recipe::by_name(preset);
        prob.input_type = bf16 ? WideType::kBf16 : WideType::kFp32;
        prob.rows = M;
        prob.cols = K;
        prob.scale_layout = ScaleLayout::kSwizzled128x4;
        const QuantizePlan plan = plan_quantize(prob);
        std::vector<DeviceBuffer> inputs;
        for (const auto& host : host_inputs[bf16]) inputs.push_back(be.alloc_upload(std::span<const std::uint8_t>(host), "input"));
        QuantizeBuffers out = alloc_quantize_buffers(be, plan);
        QuantizeParams q = plan.params;
        q.elements = out.elements.as<std::uint8_t>();
        q.scales = out.scales.as<std::uint8_t>();
        q.amax_bits = out.amax.as<std::uint32_t>();
        q.s_dec_out = out.s_dec.as<float>();
        AmaxParams a = plan.amax_params;
        a.amax_bits = q.amax_bits;
        const std::string tag = std::string(preset) + (bf16 ? " bf16 " : " fp32 ") + std::to_string(M) + "x" + std::to_string(K);
        const double in_b = static_cast<double>(plan.input_bytes);
        const double out_b = static_cast<double>(plan.element_bytes + plan.scale_bytes);
        if (plan.launches_amax) {
          const double amax_ms = median_ms(be, g_timing, [&](int i) {
            be.set_bytes(out.amax, 0);
            a.input = inputs[static_cast<std::size_t>(i % kRotate)].as<std::uint8_t>();
            be.launch(plan.amax_launch, a);
          });
          print({"amax " + tag, in_b, amax_ms}, copy_gbs);
        }
        const double q_ms = median_ms(be, g_timing, [&](int i) {
          q.input = inputs[static_cast<std::size_t>(i % kRotate)].as<std::uint8_t>();
          be.launch(plan.quantize_launch, q);
        });
        print({plan.quantize_launch.kernel + " " + tag, in_b + out_b, q_ms}, copy_gbs);
        if (plan.launches_amax) {
          const double both_ms = median_ms(be, g_timing, [&](int i) {
            be.set_bytes(out.amax, 0);
            a.input = q.input = inputs[static_cast<std::size_t>(i % kRotate)].as<std::uint8_t>();
            be.launch(plan.amax_launch, a);
            be.launch(plan.quantize_launch, q);
          });
          print({"amax+quantize " + tag + " (2 reads)", 2 * in_b + out_b, both_ms}, copy_gbs);
        }
        be.clear_launch_log();
      }
    }

  }

  // ---- swiglu: fused vs unfused ----
  const std::int64_t R = 16384, I = 2048;
  for (const bool bf16 : {true, false}) {
    if (only == "quantize") break;
    // Drawn once per input type: the layouts only read the same bytes as gate/up differently.
    std::vector<std::vector<std::uint8_t>> host_gate_up;
    for (int r = 0; r < kRotate; ++r) {
      host_gate_up.push_back(random_normal_bytes(static_cast<std::size_t>(R * 2 * I), bf16, 200 + static_cast<std::uint64_t>(r)));
    }
    for (const GateUpLayout layout : {GateUpLayout::interleaved(8), GateUpLayout::halves()}) {
      SwigluQuantizeProblem prob;
      prob.recipe = Recipe::nvfp4_te();
      prob.recipe.intermediate = Intermediate::kBf16;
      prob.recipe.activation = activation;
      prob.input_type = bf16 ? WideType::kBf16 : WideType::kFp32;
      prob.rows = R;
      prob.inter = I;
      prob.layout = layout;
      prob.tensor_amax = 12.0f;
      const SwigluQuantizePlan fplan = plan_swiglu_quantize(prob);
      const SwigluBf16Plan aplan = plan_swiglu_bf16(prob);
      const QuantizePlan qplan = plan_quantize(unfused_quantize_problem(prob));
      std::vector<DeviceBuffer> inputs;
      for (const auto& host : host_gate_up) inputs.push_back(be.alloc_upload(std::span<const std::uint8_t>(host), "gate_up"));
      SwigluQuantizeBuffers fout = alloc_swiglu_quantize_buffers(be, fplan);
      const float amax = 12.0f;
      be.upload(fout.amax, std::span<const float>(&amax, 1));
      // run_swiglu_quantize's launches without its synchronous amax upload: the gate-factor table
      // fill (bf16 input; only the first call fills it, as in repeated runs on the same buffers),
      // then the fused kernel. "first run" times a fill before every kernel, as on fresh buffers.
      SwigluQuantizeParams f = fplan.params;
      bind_block_quantize_buffers(f, block_quantize_layout(fplan), fout);
      DeviceBuffer mid = be.alloc(aplan.output_bytes, "mid");
      QuantizeBuffers qout = alloc_quantize_buffers(be, qplan);
      be.upload(qout.amax, std::span<const float>(&amax, 1));
      SwigluParams sp = aplan.params;
      sp.out = mid.as<std::uint16_t>();
      QuantizeParams q = qplan.params;
      q.input = mid.as<std::uint8_t>();
      q.elements = qout.elements.as<std::uint8_t>();
      q.scales = qout.scales.as<std::uint8_t>();
      q.amax_bits = qout.amax.as<std::uint32_t>();
      q.s_dec_out = qout.s_dec.as<float>();

      const std::string tag = std::string(activation == Activation::kSilu ? "" : "clamped ") + (bf16 ? "bf16 " : "fp32 ") +
                              to_string(layout) + " " + std::to_string(R) + "x2*" + std::to_string(I);
      const double in_b = static_cast<double>(fplan.input_bytes);
      const double out_b = static_cast<double>(fplan.element_bytes + fplan.scale_bytes);
      const double mid_b = static_cast<double>(aplan.output_bytes);
      const auto fused_run = [&](int i) {
        run_swiglu_gate_table(be, fplan, fout);
        f.in.gate_up = inputs[static_cast<std::size_t>(i % kRotate)].as<std::uint8_t>();
        be.launch(fplan.launch, f);
      };
      const double fused_ms = median_ms(be, g_timing, fused_run);
      const double first_ms = !bf16 ? 0.0 : median_ms(be, g_timing, [&](int i) {
        fout.gate_table_holds.reset();
        fused_run(i);
      });
      const double act_ms = median_ms(be, g_timing, [&](int i) {
        sp.in.gate_up = inputs[static_cast<std::size_t>(i % kRotate)].as<std::uint8_t>();
        be.launch(aplan.launch, sp);
      });
      const double pair_ms = median_ms(be, g_timing, [&](int i) {
        sp.in.gate_up = inputs[static_cast<std::size_t>(i % kRotate)].as<std::uint8_t>();
        be.launch(aplan.launch, sp);
        be.launch(qplan.quantize_launch, q);
      });
      print({"swiglu_quantize_fused " + tag, in_b + out_b, fused_ms}, copy_gbs);
      if (bf16) print({"  first run (table fill + kernel) " + tag, in_b + out_b, first_ms}, copy_gbs);
      print({"swiglu_bf16 " + tag, in_b + mid_b, act_ms}, copy_gbs);
      print({"unfused pair " + tag + " (own bytes)", in_b + 2 * mid_b + out_b, pair_ms}, copy_gbs);
      std::printf("  fused speed-up over the unfused pair: %.2fx\n", pair_ms / fused_ms);
      be.clear_launch_log();
    }
  }
  be.synchronize();
  return 0;
}
