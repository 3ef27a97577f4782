// The quantize and amax kernels on every available backend, held byte for byte to the reference
// model (reference/quantize.h) through the check library's report (docs/verification.md section
// 4). The shape matrix of docs/verification.md section 5: rows of 1, odd K, K of 16/48/80/400, both
// sides of the vector gate (K a multiple of the block size), grouped rows {1, 127, 128, 129} per
// expert with swizzled scales, and a larger tiled shape (GPU only). Outputs are sentinel-filled,
// guard bytes checked, and the test asserts which variant ran.
//
// Inputs come from the fuzz library (fuzz/values.h) under a seed printed by every case; override
// the base seed with MXV_TEST_SEED=<n>.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <ostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "mxv/device/cuda_backend.h"
#include "mxv/device/quantize.h"
#include "mxv/emulation/emulated_backend.h"
#include "mxv/fuzz/values.h"
#include "block_quantize_checks.h"
#include "case_backend_test.h"
#include "coalescing_sites.h"
#include "expect_rejected.h"
#include "mxv/check/check.h"
#include "mxv/check/gtest.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/wide_float.h"

namespace mxv::device {
namespace {

constexpr std::uint8_t kSentinel = 0xCD;

/// The test's inputs: the fuzz library's values aimed at the recipe's rounding decisions
/// (fuzz/values.h), NaN / Inf only when the case asks for them.
std::vector<float> make_input(const Recipe& r, WideType t, std::int64_t rows, std::int64_t cols, std::uint64_t seed,
                              bool specials) {
  fuzz::ValueMix mix;
  mix.specials = specials;
  return fuzz::quantize_inputs(r, t, rows, cols, mix, seed);
}

std::vector<std::uint8_t> to_bytes(WideType t, const std::vector<float>& v) { return narrow_from_fp32(t, v); }

struct Case {
  std::string name;
  std::string preset;
  WideType type = WideType::kFp32;
  std::int64_t rows = 1;
  std::int64_t cols = 16;
  ScaleLayout layout = ScaleLayout::kLinear;
  std::vector<std::int64_t> groups;
  std::optional<float> tensor_amax;
  bool specials = false;
  bool gpu_only = false;  // too large for the emulator in CI
  bool every_scale_code = false;  // NVFP4: block k's scale code is k (every_scale_code_input)
  int scale_exp = 0;              // every_scale_code: input and tensor amax times 2^scale_exp
  bool every_e8m0_code = false;   // MX bf16: every E8M0 code, every bf16 magnitude (every_e8m0_code_input)
};

/// One row of 127 NVFP4 blocks whose amaxes make block k's E4M3 scale code k (0 .. 126, every
/// code but NaN) under a calibrated tensor amax of 2688 (s_enc = 1, so sf = E4M3(amax / 6)): a
/// kernel that decodes any one scale code wrongly scales that block's elements wrongly. Block k
/// holds 6 * E4M3(k) and 15 smaller values of both signs.
std::vector<float> every_scale_code_input() {
  std::vector<float> v;
  for (std::uint32_t code = 0; code < 127; ++code) {
    const std::uint32_t e = code >> 3, m = code & 7u;
    const float scale = e == 0 ? std::ldexp(static_cast<float>(m), -9) : std::ldexp(1.0f + static_cast<float>(m) / 8.0f, static_cast<int>(e) - 7);
    for (int j = 0; j < 16; ++j) v.push_back(6.0f * scale * static_cast<float>(16 - j) / 16.0f * (j % 2 == 1 ? -1.0f : 1.0f));
  }
  return v;
}

/// `v` times 2^e (every_scale_code_input's values times 2^-120 are exact fp32 numbers, subnormals
/// included; the bf16 cases then narrow them like any input, and the test checks that block k still
/// takes scale code k).
std::vector<float> scaled(std::vector<float> v, int e) {
  for (float& x : v) x = std::ldexp(x, e);
  return v;
}

/// MX with bf16 input: every E8M0 scale code from 0 up to the largest the recipe reaches (253 for
/// mxfp4_nvidia, 252 for mxfp4_ocp), and under each code every bf16 magnitude from amax / 64 up
/// to the block amax, alternating signs: the domain where the packed power-of-two encoder (codes
/// 1..252, fp4_block::pack_e2m1_word_bf16_pow2) and the fp32 encoder it falls back to (0 and
/// 253) make every E2M1 decision, subnormal bf16 inputs of the lowest codes included. Each code's
/// blocks put amax = 5.5 * 2^(code - 127) (nvidia: E8M0 rounds amax / 6 up) or 7.5 * 2^(code -
/// 127) (OCP: floor(log2 amax) - 2) first and 31 walk values after it; the codes are 128 columns
/// of 32-element blocks per row, the last row padded with zeros (code 0).
constexpr std::int64_t kEveryE8m0Cols = 4096;
std::vector<float> every_e8m0_code_input(const std::string& preset) {
  const bool ocp = preset == "mxfp4_ocp";
  const std::uint32_t last = ocp ? 252u : 253u;
  std::vector<float> v;
  for (std::uint32_t code = 0; code <= last; ++code) {
    const float amax = std::ldexp(ocp ? 7.5f : 5.5f, static_cast<int>(code) - 127);
    const float top = code == 253u ? std::bit_cast<float>(0x7F7F0000u) : amax;  // the bf16 maximum
    const std::uint32_t hi = std::bit_cast<std::uint32_t>(top) >> 16;
    const std::uint32_t lo = std::bit_cast<std::uint32_t>(top / 64.0f) >> 16;
    std::uint32_t p = lo;
    while (p <= hi) {
      v.push_back(top);
      for (int j = 1; j < 32; ++j, ++p) {
        const float x = p <= hi ? std::bit_cast<float>(p << 16) : 0.0f;
        v.push_back(j % 2 == 1 ? -x : x);
      }
    }
  }
  while (v.size() % kEveryE8m0Cols != 0) v.push_back(0.0f);
  return v;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const std::string_view preset : quantize_supported_presets()) {
    const std::string p(preset);
    const std::int64_t block = p == "nvfp4_te" ? 16 : 32;
    for (const WideType t : {WideType::kFp32, WideType::kBf16}) {
      const std::string tn = t == WideType::kFp32 ? "f32" : "bf16";
      auto add = [&](std::string what, std::int64_t rows, std::int64_t cols, ScaleLayout layout,
                     std::vector<std::int64_t> groups = {}, bool specials = false, bool gpu_only = false) {
        Case c;
        c.name = p + "_" + tn + "_" + what;
        c.preset = p;
        c.type = t;
        c.rows = rows;
        c.cols = cols;
        c.layout = layout;
        c.groups = std::move(groups);
        c.specials = specials;
        c.gpu_only = gpu_only;
        out.push_back(std::move(c));
      };
      const auto lin = ScaleLayout::kLinear;
      const auto swz = ScaleLayout::kSwizzled128x4;
      add("row1_k16", 1, 16, lin);        // one row, one NVFP4 block (MX: a partial block)
      add("rows3_k48", 3, 48, swz);       // K = 64 - 16: one NVFP4 block short of 64
      add("rows5_k80", 5, 80, lin);       // K = 64 + 16: one block past 64
      add("rows7_k400", 7, 400, swz);     // NVFP4 vector; MX scalar (400 % 32 = 16)
      add("rows2_k17_odd", 2, 17, lin);   // odd K: scalar, high nibble of the last byte 0
      add("row1_k1", 1, 1, swz);          // a single element
      add("gate_k_block_minus", 4, 4 * block - 2, lin);  // just short of whole blocks: scalar
      add("gate_k_block_exact", 4, 4 * block, lin);      // whole blocks: vector
      add("gate_k_block_plus", 4, 4 * block + 2, swz);   // just past: scalar
      add("specials_k128", 9, 128, swz, {}, true);        // NaN / Inf under the NaN policy
      add("grouped_1_127_128_129", 385, 64, swz, {1, 127, 128, 129});  // around a 128-row tile
      add("grouped_empty_expert", 130, 2 * block, swz, {0, 2, 128, 0});
      add("grouped_linear", 256, 96, lin, {127, 129});
      add("grouped_odd_k", 129, 33, swz, {1, 128});  // grouped, scalar variant
      add("large_4096x7168", 4096, 7168, swz, {}, false, true);  // tiled, GPU only
    }
  }
  // Every scale code under s_dec = 1, and again with input and tensor amax times 2^-120: s_dec =
  // 2^-120 lies outside the quick block reciprocal's range (|s_dec| in [2^-115, 2^115],
  // qrules::Nvfp4TensorScale::quick_block_reciprocal), so the vector kernel runs its div_rn copy of
  // the slot loop, on divisors down to 2^-129 (subnormal), where the quick reciprocal is wrong.
  for (const WideType t : {WideType::kFp32, WideType::kBf16}) {
    for (const int scale_exp : {0, -120}) {
      Case e;
      e.name = std::string("nvfp4_te_") + (t == WideType::kFp32 ? "f32" : "bf16") + "_every_scale_code" +
               (scale_exp == 0 ? "" : "_s_dec_2m120");
      e.preset = "nvfp4_te";
      e.type = t;
      e.cols = 127 * 16;
      e.tensor_amax = std::ldexp(2688.0f, scale_exp);
      e.every_scale_code = true;
      e.scale_exp = scale_exp;
      out.push_back(e);
    }
  }
  for (const std::string preset : {"mxfp4_nvidia", "mxfp4_ocp"}) {
    Case e;
    e.name = preset + "_bf16_every_e8m0_code";
    e.preset = preset;
    e.type = WideType::kBf16;
    e.cols = kEveryE8m0Cols;
    e.rows = static_cast<std::int64_t>(every_e8m0_code_input(preset).size()) / kEveryE8m0Cols;
    e.layout = ScaleLayout::kSwizzled128x4;
    e.every_e8m0_code = true;
    out.push_back(e);
  }
  // A calibrated tensor amax (the unfused SwiGLU pair's second half uses this path).
  Case c;
  c.name = "nvfp4_te_bf16_calibrated_amax";
  c.preset = "nvfp4_te";
  c.type = WideType::kBf16;
  c.rows = 130;
  c.cols = 64;
  c.layout = ScaleLayout::kSwizzled128x4;
  c.tensor_amax = 17.25f;
  out.push_back(c);
  return out;
}

class QuantizeKernel : public test::CaseBackendTest<Case> {};

TEST_P(QuantizeKernel, MatchesReference) {
  const Case& c = GetParam().c;
  const std::uint64_t seed = test::case_seed(0x5eed0005u, c.name);
  SCOPED_TRACE(test::seed_note(seed));
  const Recipe recipe = Recipe::by_name(c.preset);
  const auto n = static_cast<std::size_t>(c.rows * c.cols);
  const std::vector<float> values = c.every_scale_code   ? scaled(every_scale_code_input(), c.scale_exp)
                                    : c.every_e8m0_code ? every_e8m0_code_input(c.preset)
                                                        : make_input(recipe, c.type, c.rows, c.cols, seed, c.specials);
  const std::vector<std::uint8_t> in_bytes = to_bytes(c.type, values);

  // The model.
  QuantizeOptions opt;
  opt.scale_layout = c.layout;
  opt.group_counts = c.groups;
  opt.tensor_amax = c.tensor_amax;
  const QuantizedActivations ref = quantize_activations(recipe, c.type, in_bytes, c.rows, c.cols, opt);

  // The kernel.
  QuantizeProblem prob;
  prob.recipe = recipe;
  prob.input_type = c.type;
  prob.rows = c.rows;
  prob.cols = c.cols;
  prob.scale_layout = c.layout;
  prob.group_counts = c.groups;
  prob.tensor_amax = c.tensor_amax;
  const QuantizePlan plan = plan_quantize(prob);
  Backend& be = *backend_;
  DeviceBuffer input = be.alloc_upload(std::span<const std::uint8_t>(in_bytes), "input");
  QuantizeBuffers out = alloc_quantize_buffers(be, plan, kSentinel);
  be.clear_launch_log();
  run_quantize(be, plan, input, out);
  be.synchronize();

  // Which variant ran: the test's own statement of the gate.
  const std::int64_t block = recipe.block_size;
  const std::string expected_variant = c.cols % block == 0 ? "quantize_vector" : "quantize_scalar";
  const bool expect_amax = recipe.is_nvfp4() && !c.tensor_amax;
  ASSERT_EQ(be.launch_log().size(), expect_amax ? 2u : 1u);
  EXPECT_EQ(be.launch_log().back().kernel, expected_variant);
  if (expect_amax) {
    EXPECT_EQ(be.launch_log().front().kernel, "amax");
  }

  expect_clean({&input, &out.elements, &out.scales, &out.amax, &out.s_dec});

  check::Options copt;
  copt.sentinel = kSentinel;
  std::vector<std::uint32_t> in_bits;
  if (c.type == WideType::kFp32) {
    in_bits = check::input_bits_of(std::span<const float>(values));
  } else {
    std::vector<std::uint16_t> b16(n);
    for (std::size_t i = 0; i < n; ++i) b16[i] = static_cast<std::uint16_t>(in_bytes[2 * i] | (in_bytes[2 * i + 1] << 8));
    in_bits = check::input_bits_of(std::span<const std::uint16_t>(b16));
  }

  // Elements (explained with the inputs' bits), scales with their padding, and for NVFP4 the
  // tensor amax and the global decode scale, bit for bit.
  check::Context ectx = test::element_context(ref, block);
  ectx.input_kind = c.type == WideType::kFp32 ? check::InputKind::kFp32 : check::InputKind::kBf16;
  ectx.input_bits = in_bits;
  (void)test::expect_block_quantized(be, recipe, ref, ectx, c.layout, c.groups, out, true, copt);
  if (c.every_scale_code) {  // the input does what it claims: block k's reference scale code is k
    for (std::size_t k = 0; k < 127; ++k) ASSERT_EQ(ref.scales[k], k) << "block " << k;
  }
  if (c.every_e8m0_code) {  // the input does what it claims: the reference's scale codes cover 0..last
    std::vector<bool> seen(256, false);
    for (const std::uint8_t code : ref.scales) seen[code] = true;
    const unsigned last = c.preset == "mxfp4_ocp" ? 252u : 253u;
    for (unsigned code = 0; code <= last; ++code) EXPECT_TRUE(seen[code]) << "no block with scale code " << code;
  }
}

INSTANTIATE_TEST_SUITE_P(cuda, QuantizeKernel, ::testing::ValuesIn(test::case_params(BackendKind::kCuda, cases())),
                         test::case_param_name<Case>);
INSTANTIATE_TEST_SUITE_P(emulated, QuantizeKernel,
                         ::testing::ValuesIn(test::case_params(BackendKind::kEmulated, cases())),
                         test::case_param_name<Case>);

// ---- the calibrated amax is uploaded once per buffer set and value -------------------------------

/// run_quantize puts a calibrated amax into the buffers only when their record (amax_holds) says
/// they hold another word (hold_calibrated_amax), and a reduced amax resets the record. One buffer
/// set walks through calibrated, repeated, reduced, calibrated again and another value; every step
/// must equal the reference. Then a word written behind the record's back is what the next run with
/// that calibrated amax scales by (so the upload was skipped), until the record is reset.
class QuantizeAmaxRecord : public test::CaseBackendTest<Case> {};

TEST_P(QuantizeAmaxRecord, UploadsOnlyWhatTheBuffersDoNotHold) {
  const std::uint64_t seed = test::case_seed(0x5eed0006u, "amax_record");
  SCOPED_TRACE(test::seed_note(seed));
  const Recipe recipe = Recipe::nvfp4_te();
  constexpr std::int64_t kRows = 4, kCols = 64;
  const std::vector<float> values = make_input(recipe, WideType::kBf16, kRows, kCols, seed, false);
  const std::vector<std::uint8_t> in_bytes = to_bytes(WideType::kBf16, values);
  Backend& be = *backend_;
  DeviceBuffer input = be.alloc_upload(std::span<const std::uint8_t>(in_bytes), "input");

  const auto plan_for = [&](std::optional<float> amax) {
    QuantizeProblem prob;
    prob.input_type = WideType::kBf16;
    prob.rows = kRows;
    prob.cols = kCols;
    prob.tensor_amax = amax;
    return plan_quantize(prob);
  };
  const auto reference = [&](std::optional<float> amax) {
    QuantizeOptions opt;
    opt.tensor_amax = amax;
    return quantize_activations(recipe, WideType::kBf16, in_bytes, kRows, kCols, opt);
  };
  const auto matches = [&](const QuantizeBuffers& out, const QuantizedActivations& ref) {
    return be.download<std::uint8_t>(out.elements) == ref.elements && be.download<std::uint8_t>(out.scales) == ref.scales;
  };
  QuantizeBuffers out = alloc_quantize_buffers(be, plan_for(12.0f));

  struct Step {
    const char* what;
    std::optional<float> amax;
  };
  const Step steps[] = {{"calibrated 12", 12.0f},
                        {"calibrated 12 again", 12.0f},
                        {"reduced on the device", std::nullopt},
                        {"calibrated 12 after the reduction", 12.0f},
                        {"calibrated 3", 3.0f}};
  for (const Step& step : steps) {
    SCOPED_TRACE(step.what);
    run_quantize(be, plan_for(step.amax), input, out);
    be.synchronize();
    const QuantizedActivations ref = reference(step.amax);
    EXPECT_TRUE(matches(out, ref)) << "elements or scales differ from the reference";
    const std::uint32_t word = be.download<std::uint32_t>(out.amax)[0];
    if (step.amax) {
      EXPECT_EQ(word, std::bit_cast<std::uint32_t>(*step.amax));
      EXPECT_EQ(out.amax_holds, std::optional<std::uint32_t>(word));
    } else {
      EXPECT_NE(word, std::bit_cast<std::uint32_t>(12.0f));  // the input's own amax, not the calibrated one
      EXPECT_EQ(out.amax_holds, std::nullopt);
    }
  }

  const float other = 0.5f;
  be.upload(out.amax, std::span<const float>(&other, 1));  // behind the record's back
  run_quantize(be, plan_for(3.0f), input, out);
  be.synchronize();
  EXPECT_TRUE(matches(out, reference(other))) << "the run uploaded 3 although the record said it was there";
  out.amax_holds.reset();
  run_quantize(be, plan_for(3.0f), input, out);
  be.synchronize();
  EXPECT_TRUE(matches(out, reference(3.0f))) << "a reset record must make the run upload again";
}

std::vector<Case> amax_record_cases() {
  Case c;
  c.name = "nvfp4_te_bf16_4x64";
  return {c};
}
const std::vector<Case> kAmaxRecordCases = amax_record_cases();
INSTANTIATE_TEST_SUITE_P(cuda, QuantizeAmaxRecord, ::testing::ValuesIn(test::case_params(BackendKind::kCuda, kAmaxRecordCases)),
                         test::case_param_name<Case>);
INSTANTIATE_TEST_SUITE_P(emulated, QuantizeAmaxRecord,
                         ::testing::ValuesIn(test::case_params(BackendKind::kEmulated, kAmaxRecordCases)),
                         test::case_param_name<Case>);

// ---- dependent launches see their predecessor's writes (GPU) -------------------------------------

/// The cuda backend launches each kernel as a programmatic dependent of the one ahead of it, and
/// each kernel waits for its predecessors before touching memory (cuda_kernel.cuh). Here the amax
/// kernel's largest element is the tensor's last one, which its last block (in its last wave)
/// publishes, and the quantize kernel that follows reads the amax first thing: a quantize that
/// started reading before the amax kernel finished would scale with an amax near 1 instead of
/// 1000. Every run must equal, byte for byte, a quantize given the exact amax as calibrated (one
/// launch, nothing to race). A build whose wrapper skips the wait fails it on the H200
/// (BENCHMARKS.md, run 41).
class QuantizeDependentLaunch : public test::BackendOnlyTest {};

TEST_P(QuantizeDependentLaunch, AmaxPublishedLastIsSeenByQuantize) {
  Backend& be = backend();
  constexpr std::int64_t kRows = 16384, kCols = 7168;
  const auto n = static_cast<std::size_t>(kRows * kCols);
  std::vector<std::uint16_t> in(n);
  for (std::size_t i = 0; i < n; ++i) {  // |x| <= 1: bf16 patterns up to 0x3F80, both signs
    in[i] = static_cast<std::uint16_t>(((i * 2654435761u) >> 7) % 0x3F80u) | static_cast<std::uint16_t>((i & 1u) << 15);
  }
  in[n - 1] = 0x447A;  // 1000
  const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(in.data()), n * 2);
  DeviceBuffer input = be.alloc_upload(bytes, "input");

  QuantizeProblem calibrated;
  calibrated.input_type = WideType::kBf16;
  calibrated.rows = kRows;
  calibrated.cols = kCols;
  calibrated.scale_layout = ScaleLayout::kSwizzled128x4;
  calibrated.tensor_amax = 1000.0f;
  const QuantizePlan want_plan = plan_quantize(calibrated);
  QuantizeBuffers want = alloc_quantize_buffers(be, want_plan);
  run_quantize(be, want_plan, input, want);
  const std::vector<std::uint8_t> want_elements = be.download<std::uint8_t>(want.elements);
  const std::vector<std::uint8_t> want_scales = be.download<std::uint8_t>(want.scales);

  QuantizeProblem reduced = calibrated;
  reduced.tensor_amax.reset();
  const QuantizePlan plan = plan_quantize(reduced);
  ASSERT_TRUE(plan.launches_amax);
  QuantizeBuffers out = alloc_quantize_buffers(be, plan);
  for (int run = 0; run < 8; ++run) {
    be.clear_launch_log();
    run_quantize(be, plan, input, out);
    ASSERT_EQ(be.launch_log().size(), 2u);  // amax, then quantize right behind it
    const std::vector<std::uint32_t> amax = be.download<std::uint32_t>(out.amax);
    EXPECT_EQ(amax[0], std::bit_cast<std::uint32_t>(1000.0f)) << "run " << run;
    EXPECT_TRUE(be.download<std::uint8_t>(out.scales) == want_scales) << "run " << run << ": scales differ";
    EXPECT_TRUE(be.download<std::uint8_t>(out.elements) == want_elements) << "run " << run << ": elements differ";
  }
}

// The dependent launch is the cuda backend's alone (the emulator runs launches one after another).
INSTANTIATE_TEST_SUITE_P(cuda, QuantizeDependentLaunch,
                         ::testing::Combine(::testing::Values(BackendKind::kCuda), ::testing::Values(test::NoCase{})),
                         test::backend_only_names());

// ---- the test can fail: a planted bug in the kernel's output is reported ------------------------

/// An nvfp4_te quantize of 4 x 64 fp32 inputs (drawn from `seed`) on the emulator, with the
/// reference's answer: what the planted bugs corrupt.
struct EmulatedRun {
  std::unique_ptr<Backend> be = emu::make_backend(BackendKind::kEmulated);
  QuantizeBuffers out;
  QuantizedActivations ref;
};
EmulatedRun emulated_nvfp4_run(std::uint64_t seed) {
  EmulatedRun r;
  const std::vector<float> values = make_input(Recipe::nvfp4_te(), WideType::kFp32, 4, 64, seed, false);
  QuantizeProblem prob;
  prob.rows = 4;
  prob.cols = 64;
  const QuantizePlan plan = plan_quantize(prob);
  const DeviceBuffer input = r.be->alloc_upload(std::span<const float>(values), "input");
  r.out = alloc_quantize_buffers(*r.be, plan);
  run_quantize(*r.be, plan, input, r.out);
  r.ref = quantize_activations(Recipe::nvfp4_te(), values, 4, 64);
  return r;
}

TEST(QuantizeKernelPlantedBug, emulated_SwappedNibbleIsReported) {
  const EmulatedRun run = emulated_nvfp4_run(7);
  std::vector<std::uint8_t> elements = run.be->download<std::uint8_t>(run.out.elements);
  const QuantizedActivations& ref = run.ref;
  ASSERT_EQ(elements, ref.elements);  // the unplanted output is exact
  // Plant: swap the nibbles of the first byte whose nibbles differ.
  std::size_t i = 0;
  while (i < elements.size() && (elements[i] >> 4) == (elements[i] & 0xF)) ++i;
  ASSERT_LT(i, elements.size());
  elements[i] = static_cast<std::uint8_t>((elements[i] << 4) | (elements[i] >> 4));
  const check::Report r = check::compare(check::OutputSpec::packed_e2m1("elements", 4, 64), ref.elements, elements);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.count(check::MismatchClass::kNibbleSwap), 2u) << r;  // both nibbles of the byte
}

// The comparison both block-quantizing tests run (block_quantize_checks.h) reports a corrupted
// byte in each of the four outputs, naming the output, and nothing on the run as it came.
TEST(QuantizeKernelPlantedBug, emulated_EachCorruptedOutputIsReported) {
  EmulatedRun run = emulated_nvfp4_run(11);
  Backend& be = *run.be;
  const Recipe recipe = Recipe::nvfp4_te();
  const check::Context ectx = test::element_context(run.ref, recipe.block_size);
  const auto compare = [&] {
    ::testing::TestPartResultArray failures;
    {
      const ::testing::ScopedFakeTestPartResultReporter intercept(
          ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
      (void)test::expect_block_quantized(be, recipe, run.ref, ectx, ScaleLayout::kLinear, {}, run.out, true, {});
    }
    std::vector<std::string> messages;
    for (int i = 0; i < failures.size(); ++i) messages.emplace_back(failures.GetTestPartResult(i).message());
    return messages;
  };
  EXPECT_TRUE(compare().empty());
  struct Plant {
    const char* output;
    DeviceBuffer QuantizeBuffers::*buffer;
  };
  for (const Plant p : {Plant{"elements", &QuantizeBuffers::elements}, Plant{"scales", &QuantizeBuffers::scales},
                        Plant{"s_dec", &QuantizeBuffers::s_dec}, Plant{"amax", &QuantizeBuffers::amax}}) {
    DeviceBuffer& b = run.out.*p.buffer;
    std::vector<std::uint8_t> bytes = be.download<std::uint8_t>(b);
    bytes[0] ^= 0x01;
    be.upload(b, std::span<const std::uint8_t>(bytes));
    const std::vector<std::string> messages = compare();
    ASSERT_EQ(messages.size(), 1u) << p.output;
    EXPECT_NE(messages[0].find(p.output), std::string::npos) << messages[0];
    bytes[0] ^= 0x01;
    be.upload(b, std::span<const std::uint8_t>(bytes));
  }
}

// ---- host-side validation (no backend) ------------------------------------------------------------

TEST(QuantizePlan, SupportsExactlyTheDeclaredPresets) {
  std::vector<std::string> supported;
  for (const auto name : Recipe::preset_names()) {
    try {
      (void)quantize_scheme_of(Recipe::by_name(name));
      supported.emplace_back(name);
    } catch (const std::invalid_argument&) {
    }
  }
  std::vector<std::string> declared;
  for (const auto name : quantize_supported_presets()) declared.emplace_back(name);
  EXPECT_EQ(supported, declared);
  EXPECT_EQ(declared, (std::vector<std::string>{"nvfp4_te", "mxfp4_nvidia", "mxfp4_ocp", "ort_qmoe"}));
}

TEST(QuantizePlan, RejectsWhatItCannotTake) {
  const auto expect_reject = [](const QuantizeProblem& p, const std::string& needle) {
    test::expect_rejected(plan_quantize, p, needle);
  };
  QuantizeProblem ok;
  ok.rows = 2;
  ok.cols = 32;
  EXPECT_NO_THROW((void)plan_quantize(ok));
  QuantizeProblem p = ok;
  p.rows = 0;
  expect_reject(p, "rows");
  p = ok;
  p.cols = 0;
  expect_reject(p, "cols");
  p = ok;
  p.input_type = WideType::kFp16;
  expect_reject(p, "input_type");
  p = ok;
  p.recipe = Recipe::nvfp4_trtllm();
  expect_reject(p, "order");
  p = ok;
  p.recipe = Recipe::mxfp8_nvidia();
  expect_reject(p, "e2m1");
  p = ok;
  p.group_counts = {1, 2};
  expect_reject(p, "group_counts");
  p = ok;
  p.group_counts = {3, -1};
  expect_reject(p, "group_counts[1]");
}

TEST(QuantizePlan, RejectsBuffersTooSmall) {
  auto be = emu::make_backend(BackendKind::kEmulated);
  QuantizeProblem prob;
  prob.rows = 2;
  prob.cols = 32;
  const QuantizePlan plan = plan_quantize(prob);
  DeviceBuffer small = be->alloc(plan.input_bytes - 4, "input");
  QuantizeBuffers out = alloc_quantize_buffers(*be, plan);
  EXPECT_THROW(run_quantize(*be, plan, small, out), std::invalid_argument);
  EXPECT_TRUE(be->launch_log().empty());  // nothing launched
}

TEST(QuantizePlan, GateAndGeometry) {
  QuantizeProblem p;
  p.rows = 129;
  p.cols = 48;
  p.scale_layout = ScaleLayout::kSwizzled128x4;
  QuantizePlan plan = plan_quantize(p);
  EXPECT_EQ(plan.quantize_launch.kernel, "quantize_vector");
  EXPECT_EQ(plan.scale_bytes, 256u * 4u);  // rows padded to 256, 3 scale columns padded to 4
  EXPECT_EQ(plan.element_bytes, 129u * 24u);
  p.recipe = Recipe::mxfp4_ocp();
  plan = plan_quantize(p);
  EXPECT_EQ(plan.quantize_launch.kernel, "quantize_scalar");  // 48 % 32 != 0
  EXPECT_FALSE(plan.launches_amax);
  p.group_counts = {1, 128};
  plan = plan_quantize(p);
  EXPECT_EQ(plan.tile_rows, (std::vector<std::uint32_t>{0, 1, 1, 128}));
  EXPECT_EQ(plan.scale_bytes, 256u * 4u);
}

}  // namespace
}  // namespace mxv::device

namespace mxv::device {
namespace {

/// The emulator's coalescing report of one vector-variant quantize of rows x cols fp32 inputs.
emu::CoalescingReport quantize_coalescing(const Recipe& recipe, std::int64_t rows, std::int64_t cols,
                                          std::uint64_t seed, ScaleLayout layout = ScaleLayout::kLinear) {
  emu::EmulatedBackend be;
  const std::vector<float> values = make_input(recipe, WideType::kFp32, rows, cols, seed, false);
  QuantizeProblem prob;
  prob.recipe = recipe;
  prob.rows = rows;
  prob.cols = cols;
  prob.scale_layout = layout;
  const QuantizePlan plan = plan_quantize(prob);
  EXPECT_EQ(plan.quantize_launch.kernel, "quantize_vector");
  EXPECT_EQ(plan.quantize_launch.grid.x, 1u);
  DeviceBuffer input = be.alloc_upload(std::span<const float>(values), "input");
  QuantizeBuffers out = alloc_quantize_buffers(be, plan);
  run_quantize(be, plan, input, out);
  return be.coalescing("quantize_vector");
}

// Coalescing of the vector variant on the emulator. One thread owns one block, so the lanes of a
// warp load adjacent blocks: a 16-byte load request of 32 lanes touches 32 sectors in 16 lines (lane
// stride 64 bytes for fp32 NVFP4) and uses half of each; the thread's next load uses the other half of the
// same sectors, which the GPU serves from L1 (DRAM reads each byte once: the quantize figures
// and their ncu counters in BENCHMARKS.md). So the figure pinned here is exactly 0.5 with 32 sectors per
// request: a mapping where lanes stop being adjacent blocks (more sectors per request, lower
// efficiency) or a kernel that reloads data fails it. The packed codes are one 8-byte store per
// thread, so a warp writes 256 contiguous bytes (8 whole sectors, 2 lines; two 4-byte stores wrote each
// sector half at a time, twice the sector writes) and the scale bytes of a warp are 32 contiguous
// bytes (one sector, fully used). K = 1024 fp32 and 4 rows give 256 blocks: one launch block of
// 256 threads, every warp full.
TEST(QuantizeCoalescing, emulated_VectorVariantLanesLoadAdjacentBlocks) {
  const emu::CoalescingReport r = quantize_coalescing(Recipe::nvfp4_te(), 4, 1024, 3);
  SCOPED_TRACE(r.to_string());
  // One load statement in the source, issued kVecs times per thread; one code store.
  EXPECT_EQ(test::count_sites(r, {emu::AccessKind::kLoad, 32, 32.0, 16.0, 0.5}), 1);
  EXPECT_EQ(test::count_sites(r, {emu::AccessKind::kStore, 32, 8.0, 2.0, 1.0}), 1);
  EXPECT_EQ(test::count_sites(r, {emu::AccessKind::kStore, 32, 1.0, 1.0, 1.0}), 1);
}

// With swizzled 128x4 scales the slot walk follows the scale buffer's memory order
// (fp4_block::SlotCursor), so a warp's 32 scale bytes are one whole sector, as in the linear
// layout. Walking the slots row by row put them 16 bytes apart, 2 rows to a sector: 4 sectors a
// request, a quarter of each used. A warp's lanes now hold 4 consecutive blocks of 8 rows each
// (rows r, r + 32, r + 64, r + 96, r + 1, ...), so the loads keep their figures (each lane's first
// vector is half of its sectors) and the codes of 4 lanes fill one sector (rows r and r + 1 share a
// line: 4 lines). 128 rows x K = 64 fp32
// give 512 slots: one launch block, two steps, every warp full.
TEST(QuantizeCoalescing, emulated_SwizzledScalesAreWrittenInMemoryOrder) {
  const emu::CoalescingReport r = quantize_coalescing(Recipe::nvfp4_te(), 128, 64, 7, ScaleLayout::kSwizzled128x4);
  SCOPED_TRACE(r.to_string());
  EXPECT_EQ(test::count_sites(r, {emu::AccessKind::kLoad, 32, 32.0, 16.0, 0.5}), 1);
  EXPECT_EQ(test::count_sites(r, {emu::AccessKind::kStore, 32, 8.0, 4.0, 1.0}), 1);
  EXPECT_EQ(test::count_sites(r, {emu::AccessKind::kStore, 32, 1.0, 1.0, 1.0}), 1);
}

// MX with fp32 input splits each 128-byte block between a lane pair (quantize_lanes_per_block):
// each lane loads 64 bytes (16-byte loads at a 64-byte lane stride, 32 sectors a request, half
// of each used, as for NVFP4 fp32 above) and stores its half of the codes in one 8-byte store (a
// warp's 256 contiguous bytes); only the pair's first lane stores the scale byte, so a warp's
// scale store has 16 lanes writing 16 contiguous bytes (one sector, half used). One lane per
// block would instead store the codes as one 16-byte vector per lane and the scales from all 32
// lanes.
// K = 1024 fp32 and 4 rows give 128 blocks: 256 lanes, one launch block, every warp full.
TEST(QuantizeCoalescing, emulated_MxFp32LanePairsSplitEachBlock) {
  const emu::CoalescingReport r = quantize_coalescing(Recipe::by_name("mxfp4_nvidia"), 4, 1024, 5);
  SCOPED_TRACE(r.to_string());
  EXPECT_EQ(test::count_sites(r, {emu::AccessKind::kLoad, 32, 32.0, 16.0, 0.5}), 1);
  EXPECT_EQ(test::count_sites(r, {emu::AccessKind::kStore, 32, 8.0, 2.0, 1.0}), 1);
  EXPECT_EQ(test::count_sites(r, {emu::AccessKind::kStore, 16, 1.0, 1.0, 0.5}), 1);
  EXPECT_EQ(r.sites.size(), 3u);  // nothing else: MX reads no tensor amax
}

}  // namespace
}  // namespace mxv::device
