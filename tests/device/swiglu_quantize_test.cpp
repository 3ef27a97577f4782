// The SwiGLU kernels on every available backend (docs/semantics.md section 6): the fused activation
// + quantization kernel against the reference (reference/swiglu.h activation, then
// reference/quantize.h on the fp32 or bf16-rounded result), the unfused activation kernel against
// the reference's bf16 output, and the pair's parity: with a bf16 intermediate, fused == unfused
// (activation -> bf16 -> quantize kernel) byte for byte. Layouts halves / interleaved(1) /
// interleaved(8) in every combination, interleaved(2, 4, 16, 24) in a few; silu and
// swiglu_clamped, fp32 and bf16 inputs, rows of 1, I of 16/48/80/400, grouped rows {1, 127, 128,
// 129}, every bf16 gate pattern (the bf16 kernels' gate-factor table, refilled only when the
// activation changes), a large shape on the GPU.
// Every comparison's failure message is the check library's report; guards, sentinels, emulator
// findings and the variant are checked.
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
#include <string>
#include <vector>

#include "mxv/device/quantize.h"
#include "mxv/device/swiglu_quantize.h"
#include "mxv/emulation/emulated_backend.h"
#include "mxv/fuzz/values.h"
#include "block_quantize_checks.h"
#include "case_backend_test.h"
#include "coalescing_sites.h"
#include "expect_rejected.h"
#include "mxv/check/check.h"
#include "mxv/check/gtest.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/swiglu.h"

namespace mxv::device {
namespace {

constexpr std::uint8_t kSentinel = 0xCD;

/// The test's gate/up inputs: the fuzz library's SwiGLU values (fuzz/values.h: the clamp limit and
/// its neighbours, exp's overflow and underflow edges, aimed activations), NaN / Inf when asked.
std::vector<float> make_gate_up(const Recipe& r, WideType t, std::size_t rows, std::size_t inter, std::uint64_t seed,
                                bool specials) {
  fuzz::ValueMix mix;
  mix.specials = specials;
  return fuzz::swiglu_inputs(r, t, static_cast<std::int64_t>(rows), static_cast<std::int64_t>(inter), mix, seed);
}

struct Case {
  std::string name;
  std::string preset = "nvfp4_te";
  WideType type = WideType::kFp32;
  Activation act = Activation::kSilu;
  GateUpLayout layout = GateUpLayout::halves();
  Intermediate inter_precision = Intermediate::kFp32;
  std::int64_t rows = 1;
  std::int64_t inter = 16;
  ScaleLayout scale_layout = ScaleLayout::kSwizzled128x4;
  std::vector<std::int64_t> groups;
  bool specials = false;
  bool gpu_only = false;
  /// bf16, halves: gate k of the tensor (row-major) holds bf16 pattern k mod 2^16, so rows * I =
  /// 65536 covers every gate, in and outside the fused kernel's gate-factor table.
  bool every_gate = false;
  /// The clamped activation's limit (the preset's 7 unless a case says otherwise).
  float limit = 7.0f;
  /// halves: every up beyond the limit (7.125 .. 16.875, alternating sign), so every output's up
  /// factor is the clamped one, and every gate inside the bf16 kernel's gate table (|g| in
  /// [1/24, 4], never 0), so every run of 16 takes the table path. A clamp to a nearby bound (the
  /// limit's bf16 rounding) moves each output by under 0.1%, which a block's E2M1 codes show only
  /// where one crosses a rounding boundary: thousands of such outputs make that certain.
  bool ups_beyond_limit = false;
};

/// Overwrites the gates of a bf16 halves input with every bf16 pattern in turn (Case::every_gate).
void put_every_gate_pattern(std::vector<std::uint8_t>& bytes, std::size_t rows, std::size_t inter) {
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < inter; ++j) {
      const std::size_t k = r * inter + j;
      const std::size_t at = 2 * (r * 2 * inter + j);
      bytes[at] = static_cast<std::uint8_t>(k & 0xFFu);
      bytes[at + 1] = static_cast<std::uint8_t>((k >> 8) & 0xFFu);
    }
  }
}

std::vector<Case> cases() {
  std::vector<Case> out;
  const GateUpLayout layouts[] = {GateUpLayout::halves(), GateUpLayout::interleaved(1), GateUpLayout::interleaved(8)};
  const char* layout_names[] = {"halves", "il1", "il8"};
  for (int li = 0; li < 3; ++li) {
    for (const WideType t : {WideType::kFp32, WideType::kBf16}) {
      for (const Activation a : {Activation::kSilu, Activation::kSwigluClamped}) {
        for (const Intermediate im : {Intermediate::kFp32, Intermediate::kBf16}) {
          auto add = [&](std::string what, std::int64_t rows, std::int64_t inter, ScaleLayout sl,
                         std::vector<std::int64_t> groups = {}, bool specials = false, bool gpu_only = false,
                         std::string preset = "nvfp4_te") {
            Case c;
            c.name = preset + "_" + layout_names[li] + (t == WideType::kFp32 ? "_f32" : "_bf16") +
                     (a == Activation::kSilu ? "_silu" : "_clamped") + (im == Intermediate::kFp32 ? "_i32" : "_ibf16") +
                     "_" + what;
            c.preset = preset;
            c.type = t;
            c.act = a;
            c.layout = layouts[li];
            c.inter_precision = im;
            c.rows = rows;
            c.inter = inter;
            c.scale_layout = sl;
            c.groups = std::move(groups);
            c.specials = specials;
            c.gpu_only = gpu_only;
            out.push_back(std::move(c));
          };
          const auto swz = ScaleLayout::kSwizzled128x4;
          add("row1_i16", 1, 16, swz);                 // one row, one block
          add("rows3_i48", 3, 48, ScaleLayout::kLinear);  // I = 64 - 16
          add("rows5_i80_specials", 5, 80, swz, {}, true);  // I = 64 + 16, NaN / Inf inputs
          add("rows2_i400", 2, 400, swz);              // 25 blocks: scale columns padded 25 -> 28
          // Scale columns a multiple of 4 (I % 64 == 0, as in production shapes): no padding
          // column, so a warp's lanes hold whole groups of 4 slots of one row; 130 rows leave 126
          // padding rows in the second 128-row tile.
          add("rows130_i128_specials", 130, 128, swz, {}, true);
          add("rows3_i64", 3, 64, ScaleLayout::kLinear);
          add("mx_rows3_i64", 3, 64, swz, {}, false, false, "mxfp4_nvidia");  // MX: 4 lanes per block
          add("large_2048x2048", 2048, 2048, swz, {}, false, true);  // GPU only
          if (li == 0 && t == WideType::kBf16 && a == Activation::kSilu && im == Intermediate::kBf16) {
            // GPU only: 2^20 scale slots, more than an H200 holds resident at 4 per thread, so the
            // one-wave launch (LaunchPlan::one_wave) runs with its grid cut down.
            add("large_8192x2048", 8192, 2048, swz, {}, false, true);
          }
        }
      }
    }
  }
  // The other interleaved(g) the kernels accept, each with its own load path: g = 2 and 4 (a
  // divisor of 8), 16 (a multiple of 16: a block's runs stay in one group) and 24 (8 mod 16: a
  // block's second run of 8 starts the next group).
  for (const std::uint32_t g : {2u, 4u, 16u, 24u}) {
    for (const WideType t : {WideType::kFp32, WideType::kBf16}) {
      const auto add = [&](std::string what, std::int64_t rows, std::int64_t inter, bool specials, std::string preset) {
        Case c;
        c.name = preset + "_il" + std::to_string(g) + (t == WideType::kFp32 ? "_f32" : "_bf16") + "_silu_ibf16_" + what;
        c.preset = preset;
        c.type = t;
        c.layout = GateUpLayout::interleaved(g);
        c.inter_precision = Intermediate::kBf16;
        c.rows = rows;
        c.inter = inter;
        c.specials = specials;
        out.push_back(std::move(c));
      };
      add("rows3_i48", 3, 48, false, "nvfp4_te");
      add("rows5_i96_specials", 5, 96, true, "nvfp4_te");
      add("mx_rows3_i96", 3, 96, false, "mxfp4_nvidia");
    }
  }
  // With bf16 input the clamped kernel clamps up on packed pairs when the limit is a bf16 number
  // (7 is) and in fp32 when it is not (7.1): the latter here, the limit's neighbours and the
  // specials among the inputs.
  for (const std::uint32_t g : {0u, 8u}) {
    Case c;
    c.name = std::string(g == 0 ? "halves" : "il8") + "_bf16_clamped_limit7p1_" + (g == 0 ? "ibf16" : "i32") +
             "_rows5_i80_specials";
    c.type = WideType::kBf16;
    c.act = Activation::kSwigluClamped;
    c.layout = g == 0 ? GateUpLayout::halves() : GateUpLayout::interleaved(8);
    c.inter_precision = g == 0 ? Intermediate::kBf16 : Intermediate::kFp32;
    c.rows = 5;
    c.inter = 80;
    c.specials = true;
    c.limit = 7.1f;
    out.push_back(c);
  }
  {
    Case c;
    c.name = "halves_bf16_clamped_limit7p1_i32_ups_beyond_limit_rows64_i256";
    c.type = WideType::kBf16;
    c.act = Activation::kSwigluClamped;
    c.rows = 64;
    c.inter = 256;
    c.limit = 7.1f;
    c.ups_beyond_limit = true;
    out.push_back(c);
  }
  // Every bf16 gate pattern once (the gate-factor table's inside, both edges and every special).
  for (const Activation a : {Activation::kSilu, Activation::kSwigluClamped}) {
    for (const Intermediate im : {Intermediate::kFp32, Intermediate::kBf16}) {
      Case c;
      c.name = std::string("every_gate_halves_bf16") + (a == Activation::kSilu ? "_silu" : "_clamped") +
               (im == Intermediate::kFp32 ? "_i32" : "_ibf16");
      c.type = WideType::kBf16;
      c.act = a;
      c.inter_precision = im;
      c.rows = 128;
      c.inter = 512;
      c.every_gate = true;
      out.push_back(c);
    }
  }
  // Grouped rows around one 128-row tile (one layout per input type: the row mapping is shared, the
  // loads differ), with 2 scale columns (padded to 4) and with 4.
  for (const std::int64_t inter : {32, 64}) {
    for (const WideType t : {WideType::kBf16, WideType::kFp32}) {
      for (const Intermediate im : {Intermediate::kFp32, Intermediate::kBf16}) {
        Case c;
        c.name = std::string("grouped_1_127_128_129_il8_") + (t == WideType::kBf16 ? "bf16" : "f32") +
                 (im == Intermediate::kFp32 ? "_i32" : "_ibf16") + (inter == 64 ? "_inter64" : "");
        c.type = t;
        c.layout = GateUpLayout::interleaved(8);
        c.inter_precision = im;
        c.rows = 385;
        c.inter = inter;
        c.groups = {1, 127, 128, 129};
        out.push_back(c);
      }
    }
  }
  return out;
}

class SwigluQuantizeKernel : public test::CaseBackendTest<Case> {};

TEST_P(SwigluQuantizeKernel, FusedMatchesReferenceAndUnfusedPair) {
  const Case& c = GetParam().c;
  const std::uint64_t seed = test::case_seed(0x5eed5u, c.name);
  SCOPED_TRACE(test::seed_note(seed));
  Recipe recipe = Recipe::by_name(c.preset);
  recipe.activation = c.act;
  recipe.intermediate = c.inter_precision;
  recipe.limit = c.limit;
  const auto rows = static_cast<std::size_t>(c.rows);
  const auto inter = static_cast<std::size_t>(c.inter);
  std::vector<float> gu = make_gate_up(recipe, c.type, rows, inter, seed, c.specials);
  if (c.ups_beyond_limit) {
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t j = 0; j < inter; ++j) {
        gu[r * 2 * inter + j] = (static_cast<float>((r * inter + j) % 97) - 48.5f) / 12.0f;
        gu[r * 2 * inter + inter + j] = (j % 2 == 0 ? 1.0f : -1.0f) * (7.125f + 0.25f * static_cast<float>(j % 40));
      }
    }
  }
  std::vector<std::uint8_t> gu_bytes = narrow_from_fp32(c.type, gu);
  if (c.every_gate) put_every_gate_pattern(gu_bytes, rows, inter);

  // The model: activation (fp32), then quantization of it or of its bf16 rounding.
  std::vector<std::uint16_t> gu_bf16;
  GateUpView view;
  std::vector<float> gu_wide;
  if (c.type == WideType::kBf16) {
    gu_bf16.resize(gu_bytes.size() / 2);
    for (std::size_t i = 0; i < gu_bf16.size(); ++i) {
      gu_bf16[i] = static_cast<std::uint16_t>(gu_bytes[2 * i] | (gu_bytes[2 * i + 1] << 8));
    }
    view = GateUpView::from_bf16(gu_bf16, rows, inter);
  } else {
    view = GateUpView::from_fp32(gu, rows, inter);
  }
  const SwigluActivation act = SwigluActivation::from_recipe(recipe);
  const std::vector<float> activated = swiglu(view, c.layout, act);
  const std::vector<std::uint16_t> activated_bf16 = swiglu_to_bf16(view, c.layout, act);
  float amax = 0.0f;  // a realistic calibrated amax: the activation's own (NaN skipped)
  for (const float v : activated) {
    if (!std::isnan(v)) amax = std::fmax(amax, std::fabs(v));
  }
  QuantizeOptions qo;
  qo.scale_layout = c.scale_layout;
  qo.group_counts = c.groups;
  if (recipe.is_nvfp4()) qo.tensor_amax = amax;
  const std::vector<std::uint8_t> bf16_bytes = narrow_from_fp32(WideType::kBf16, activated);
  const QuantizedActivations ref =
      c.inter_precision == Intermediate::kBf16
          ? quantize_activations(recipe, WideType::kBf16, bf16_bytes, c.rows, c.inter, qo)
          : quantize_activations(recipe, activated, c.rows, c.inter, qo);

  // The fused kernel.
  SwigluQuantizeProblem prob;
  prob.recipe = recipe;
  prob.input_type = c.type;
  prob.rows = c.rows;
  prob.inter = c.inter;
  prob.layout = c.layout;
  prob.scale_layout = c.scale_layout;
  prob.group_counts = c.groups;
  if (recipe.is_nvfp4()) prob.tensor_amax = amax;
  const SwigluQuantizePlan plan = plan_swiglu_quantize(prob);
  Backend& be = *backend_;
  DeviceBuffer input = be.alloc_upload(std::span<const std::uint8_t>(gu_bytes), "gate_up");
  SwigluQuantizeBuffers fused = alloc_swiglu_quantize_buffers(be, plan, kSentinel);
  be.clear_launch_log();
  run_swiglu_quantize(be, plan, input, fused);
  be.synchronize();
  // bf16 input: the gate-factor table is filled first (kernels/swiglu_gate_table.h).
  ASSERT_EQ(be.launch_log().size(), c.type == WideType::kBf16 ? 2u : 1u);
  if (c.type == WideType::kBf16) {
    EXPECT_EQ(be.launch_log().front().kernel, "swiglu_gate_table");
  }
  EXPECT_EQ(be.launch_log().back().kernel, "swiglu_quantize_fused");
  expect_clean({&input, &fused.elements, &fused.scales, &fused.s_dec});
  if (c.type == WideType::kBf16) expect_clean({&fused.gate_table});

  check::Options copt;
  copt.sentinel = kSentinel;
  const check::Context ectx = test::element_context(ref, recipe.block_size);
  // The fused run's amax buffer holds the given amax, not a result: only s_dec is compared.
  const test::QuantizedBytes f =
      test::expect_block_quantized(be, recipe, ref, ectx, c.scale_layout, c.groups, fused, false, copt);

  // The unfused pair: activation kernel -> bf16, against the reference's bf16 activation ...
  const SwigluBf16Plan aplan = plan_swiglu_bf16(prob);
  DeviceBuffer mid = be.alloc(aplan.output_bytes, "activated_bf16", kSentinel);
  be.clear_launch_log();
  run_swiglu_bf16(be, aplan, input, mid);
  const QuantizePlan qplan = plan_quantize(unfused_quantize_problem(prob));
  QuantizeBuffers unfused = alloc_quantize_buffers(be, qplan, kSentinel);
  run_quantize(be, qplan, mid, unfused);
  be.synchronize();
  ASSERT_EQ(be.launch_log().size(), 2u);
  EXPECT_EQ(be.launch_log()[0].kernel, "swiglu_bf16");
  EXPECT_EQ(be.launch_log()[1].kernel, "quantize_vector");  // I is a multiple of the block
  expect_clean({&mid, &unfused.elements, &unfused.scales});
  const std::vector<std::uint16_t> mid_host = be.download<std::uint16_t>(mid);
  MXV_EXPECT_BYTE_EXACT(check::OutputSpec::tensor("activated_bf16", check::CodeKind::kBf16, rows, inter),
                        check::bytes_of(activated_bf16), check::bytes_of(mid_host), {}, copt);

  // ... and, with a bf16 intermediate, fused == unfused byte for byte.
  if (c.inter_precision == Intermediate::kBf16) {
    const std::vector<std::uint8_t> u_elems = be.download<std::uint8_t>(unfused.elements);
    const std::vector<std::uint8_t> u_scales = be.download<std::uint8_t>(unfused.scales);
    const auto espec = check::OutputSpec::packed_e2m1("elements", rows, inter);
    const auto sspec = test::scale_spec(c.scale_layout, c.groups, c.rows, static_cast<std::size_t>(ref.scale_cols), recipe);
    MXV_EXPECT_BYTE_EXACT(espec, u_elems, f.elements, ectx, copt);
    MXV_EXPECT_BYTE_EXACT(sspec, u_scales, f.scales, test::scale_context(ref), copt);
  }
}

INSTANTIATE_TEST_SUITE_P(cuda, SwigluQuantizeKernel,
                         ::testing::ValuesIn(test::case_params(BackendKind::kCuda, cases())),
                         test::case_param_name<Case>);
INSTANTIATE_TEST_SUITE_P(emulated, SwigluQuantizeKernel,
                         ::testing::ValuesIn(test::case_params(BackendKind::kEmulated, cases())),
                         test::case_param_name<Case>);

// ---- the gate-factor table of bf16 inputs --------------------------------------------------------

struct GateTableCase {
  std::string name;
  Activation act = Activation::kSilu;
  float alpha = 1.702f;
  float limit = 7.0f;
  bool gpu_only = false;
};

class SwigluGateTable : public test::CaseBackendTest<GateTableCase> {};

/// The entries of `table` that differ from the reference's gate factor of their bf16 gate (the
/// reference's activation with an up factor of exactly 1: silu with u = 1, clamped with u = 0,
/// whose u' + 1 is 1), each reported as a failure up to 5.
std::size_t wrong_gate_factors(const std::vector<float>& table, const GateTableCase& c) {
  std::size_t wrong = 0;
  for (std::uint32_t slot = 0; slot < kGateTableEntries; ++slot) {
    const float g = std::bit_cast<float>(gate_table_bits(slot) << 16);
    const float want = c.act == Activation::kSilu ? swiglu_silu(g, 1.0f) : mxv::swiglu_clamped(g, 0.0f, c.alpha, c.limit);
    if (std::bit_cast<std::uint32_t>(table[slot]) != std::bit_cast<std::uint32_t>(want) && ++wrong <= 5) {
      ADD_FAILURE() << "slot " << slot << " (bf16 0x" << std::hex << gate_table_bits(slot) << "): table 0x"
                    << std::bit_cast<std::uint32_t>(table[slot]) << ", reference 0x" << std::bit_cast<std::uint32_t>(want);
    }
  }
  return wrong;
}

/// The smallest fused problem with bf16 input under case `c`'s activation (its plan has a table).
SwigluQuantizePlan gate_table_plan(const GateTableCase& c) {
  SwigluQuantizeProblem prob;
  prob.recipe = Recipe::nvfp4_te();
  prob.recipe.activation = c.act;
  prob.recipe.alpha = c.alpha;
  prob.recipe.limit = c.limit;
  prob.input_type = WideType::kBf16;
  prob.rows = 1;
  prob.inter = 16;
  prob.tensor_amax = 1.0f;
  return plan_swiglu_quantize(prob);
}

// The comparison catches a table one ulp off in one entry (a planted bug).
TEST(SwigluGateTablePlantedBug, OneEntryOneUlpOffIsReported) {
  const GateTableCase c{"silu"};
  std::vector<float> table(kGateTableEntries);
  for (std::uint32_t slot = 0; slot < kGateTableEntries; ++slot) {
    table[slot] = swiglu_silu(std::bit_cast<float>(gate_table_bits(slot) << 16), 1.0f);
  }
  EXPECT_EQ(wrong_gate_factors(table, c), 0u);
  table[3000] = std::bit_cast<float>(std::bit_cast<std::uint32_t>(table[3000]) + 1u);
  std::size_t wrong = 0;
  EXPECT_NONFATAL_FAILURE(wrong = wrong_gate_factors(table, c), "slot 3000");
  EXPECT_EQ(wrong, 1u);
}

// Every entry the run fills equals the reference's gate factor of its bf16 gate, bit for bit
// (wrong_gate_factors). The quantized outputs alone would hide most wrong entries: a planted
// one-ulp error, and even a doubled factor of a small gate, passed the every-gate cases above.
TEST_P(SwigluGateTable, EveryEntryIsTheReferenceGateFactor) {
  const GateTableCase& c = GetParam().c;
  const SwigluQuantizePlan plan = gate_table_plan(c);
  ASSERT_TRUE(plan.table_launch.has_value());
  Backend& be = *backend_;
  const std::vector<std::uint8_t> zeros(static_cast<std::size_t>(plan.input_bytes), 0);
  DeviceBuffer input = be.alloc_upload(std::span<const std::uint8_t>(zeros), "gate_up");
  SwigluQuantizeBuffers out = alloc_swiglu_quantize_buffers(be, plan, kSentinel);
  run_swiglu_quantize(be, plan, input, out);
  be.synchronize();
  expect_clean({&input, &out.gate_table});
  const std::vector<float> table = be.download<float>(out.gate_table);
  ASSERT_EQ(table.size(), std::size_t{kGateTableEntries});
  for (std::uint32_t slot = 0; slot < kGateTableEntries; ++slot) {
    ASSERT_EQ(gate_table_slot(gate_table_bits(slot)), slot) << "slot order is not a bijection at " << slot;
  }
  EXPECT_EQ(wrong_gate_factors(table, c), 0u) << "wrong table entries";
  // The slot function's edges: the table's first and last gates are inside, their neighbours not.
  EXPECT_LT(gate_table_slot(kGateTableExpLo << 7), kGateTableEntries);
  EXPECT_GE(gate_table_slot((kGateTableExpLo << 7) - 1u), kGateTableEntries);
  EXPECT_LT(gate_table_slot(((kGateTableExpLo + kGateTableBinades) << 7) - 1u), kGateTableEntries);
  EXPECT_GE(gate_table_slot((kGateTableExpLo + kGateTableBinades) << 7), kGateTableEntries);
  EXPECT_GE(gate_table_slot(0x8000u), kGateTableEntries);  // -0
}

const std::vector<GateTableCase> kGateTableCases = {
    {"silu", Activation::kSilu},
    {"clamped_default", Activation::kSwigluClamped},
    {"clamped_alpha1p5_limit0p75", Activation::kSwigluClamped, 1.5f, 0.75f},  // the clamp inside the table
};
INSTANTIATE_TEST_SUITE_P(cuda, SwigluGateTable, ::testing::ValuesIn(test::case_params(BackendKind::kCuda, kGateTableCases)),
                         test::case_param_name<GateTableCase>);
INSTANTIATE_TEST_SUITE_P(emulated, SwigluGateTable,
                         ::testing::ValuesIn(test::case_params(BackendKind::kEmulated, kGateTableCases)),
                         test::case_param_name<GateTableCase>);

// A table is filled once per activation (run_swiglu_gate_table): another run on the same buffers
// launches the fused kernel alone and leaves the table as it was, and a run whose activation,
// alpha or limit differs refills it. Every step checks the whole table against the reference, so a
// fill keyed on less than the whole activation (the previous factors kept) fails here.
class SwigluGateTableReuse : public test::CaseBackendTest<GateTableCase> {};

TEST_P(SwigluGateTableReuse, RefillsOnlyForAnotherActivation) {
  struct Step {
    GateTableCase c;
    bool fills;
  };
  const std::vector<Step> steps = {
      {{"silu", Activation::kSilu}, true},
      {{"silu", Activation::kSilu}, false},
      {{"clamped_default", Activation::kSwigluClamped}, true},  // the activation changes
      {{"clamped_default", Activation::kSwigluClamped}, false},
      {{"clamped_alpha1p5", Activation::kSwigluClamped, 1.5f, 7.0f}, true},             // alpha alone
      {{"clamped_alpha1p5_limit0p75", Activation::kSwigluClamped, 1.5f, 0.75f}, true},  // limit alone
      {{"silu", Activation::kSilu}, true},
  };
  Backend& be = *backend_;
  const SwigluQuantizePlan first = gate_table_plan(steps.front().c);
  const std::vector<std::uint8_t> zeros(static_cast<std::size_t>(first.input_bytes), 0);
  DeviceBuffer input = be.alloc_upload(std::span<const std::uint8_t>(zeros), "gate_up");
  SwigluQuantizeBuffers out = alloc_swiglu_quantize_buffers(be, first, kSentinel);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& step = steps[i];
    SCOPED_TRACE("step " + std::to_string(i) + ": " + step.c.name);
    be.clear_launch_log();
    run_swiglu_quantize(be, gate_table_plan(step.c), input, out);
    be.synchronize();
    ASSERT_EQ(be.launch_log().size(), step.fills ? 2u : 1u);
    EXPECT_EQ(be.launch_log().front().kernel, step.fills ? "swiglu_gate_table" : "swiglu_quantize_fused");
    expect_clean({&input, &out.gate_table});
    EXPECT_EQ(wrong_gate_factors(be.download<float>(out.gate_table), step.c), 0u) << "wrong table entries";
  }
}

const std::vector<GateTableCase> kGateTableReuseCases = {{"activation_sequence"}};
INSTANTIATE_TEST_SUITE_P(cuda, SwigluGateTableReuse,
                         ::testing::ValuesIn(test::case_params(BackendKind::kCuda, kGateTableReuseCases)),
                         test::case_param_name<GateTableCase>);
INSTANTIATE_TEST_SUITE_P(emulated, SwigluGateTableReuse,
                         ::testing::ValuesIn(test::case_params(BackendKind::kEmulated, kGateTableReuseCases)),
                         test::case_param_name<GateTableCase>);

// ---- host-side validation -------------------------------------------------------------------------

// The fused launcher accepts exactly the presets it declares (mxv verify checks the kernel against
// that list): the quantize kernel's four.
TEST(SwigluQuantizePlan, AcceptsExactlyTheDeclaredPresets) {
  std::vector<std::string> accepted;
  for (const auto name : Recipe::preset_names()) {
    SwigluQuantizeProblem p;
    p.recipe = Recipe::by_name(name);
    p.rows = 2;
    p.inter = 64;  // whole NVFP4 and MX blocks
    p.tensor_amax = 1.0f;
    try {
      (void)plan_swiglu_quantize(p);
      accepted.emplace_back(name);
    } catch (const std::invalid_argument&) {
    }
  }
  const auto list = swiglu_quantize_supported_presets();
  const std::vector<std::string> declared(list.begin(), list.end());
  EXPECT_EQ(accepted, declared);
  EXPECT_EQ(declared, (std::vector<std::string>{"nvfp4_te", "mxfp4_nvidia", "mxfp4_ocp", "ort_qmoe"}));
}

TEST(SwigluQuantizePlan, RejectsWhatItCannotTake) {
  const auto expect_reject = [](const SwigluQuantizeProblem& p, const std::string& needle) {
    test::expect_rejected(plan_swiglu_quantize, p, needle);
  };
  SwigluQuantizeProblem ok;
  ok.rows = 2;
  ok.inter = 32;
  ok.tensor_amax = 4.0f;
  EXPECT_NO_THROW((void)plan_swiglu_quantize(ok));
  SwigluQuantizeProblem p = ok;
  p.inter = 24;  // not a multiple of 16
  expect_reject(p, "inter");
  p = ok;
  p.tensor_amax.reset();
  expect_reject(p, "tensor_amax");
  p = ok;
  p.layout = GateUpLayout::interleaved(16);
  EXPECT_NO_THROW((void)plan_swiglu_quantize(p));  // a multiple of 8
  p.inter = 48;
  p.layout = GateUpLayout::interleaved(3);
  expect_reject(p, "interleaved(3)");
  p = ok;
  p.rows = 0;
  expect_reject(p, "rows");
  p = ok;
  p.recipe = Recipe::nvfp4_modelopt();
  expect_reject(p, "not supported");
  p = ok;
  p.recipe.exp = ExpKind::kEx2Approx;
  expect_reject(p, "exp");
  p = ok;
  p.input_type = WideType::kFp16;
  expect_reject(p, "input_type");
  p = ok;
  p.group_counts = {1, 2};
  expect_reject(p, "group_counts");
}

// The test can fail: the fused output compared with a deliberately different recipe's model
// (the fp32 intermediate against a bf16-intermediate model) is reported, on data where the two
// roundings differ. Guards against a comparison that always passes.
TEST(SwigluQuantizePlantedBug, emulated_IntermediateMismatchIsReported) {
  auto be = emu::make_backend(BackendKind::kEmulated);
  const std::size_t rows = 64, inter = 64;  // 4096 activations: some bf16 roundings cross a code
  // Moderate values with full fp32 mantissas (the fuzz library's recipe-free mix, huge elements
  // tamed), so that rounding the activation to bf16 changes some codes.
  std::vector<float> gu = fuzz::bug_hunting_values(rows * 2 * inter, 0, 11, false);
  for (float& x : gu) x = std::fabs(x) < 64.0f ? x : 1.5f;
  const GateUpView view = GateUpView::from_fp32(gu, rows, inter);
  const std::vector<float> act = swiglu(view, GateUpLayout::halves(), SwigluActivation::silu());
  float amax = 0.0f;  // the activation's own amax: a calibration that neither saturates nor flushes
  for (const float x : act) amax = std::fmax(amax, std::fabs(x));
  SwigluQuantizeProblem prob;
  prob.rows = static_cast<std::int64_t>(rows);
  prob.inter = static_cast<std::int64_t>(inter);
  prob.tensor_amax = amax;
  const SwigluQuantizePlan plan = plan_swiglu_quantize(prob);
  DeviceBuffer input = be->alloc_upload(std::span<const float>(gu), "gate_up");
  SwigluQuantizeBuffers out = alloc_swiglu_quantize_buffers(*be, plan);
  run_swiglu_quantize(*be, plan, input, out);
  const std::vector<std::uint8_t> got = be->download<std::uint8_t>(out.elements);
  QuantizeOptions qo;
  qo.scale_layout = ScaleLayout::kSwizzled128x4;
  qo.tensor_amax = amax;
  const auto right = quantize_activations(Recipe::nvfp4_te(), act, static_cast<std::int64_t>(rows), static_cast<std::int64_t>(inter), qo);
  EXPECT_EQ(got, right.elements);
  const auto wrong = quantize_activations(Recipe::nvfp4_te(), WideType::kBf16, narrow_from_fp32(WideType::kBf16, act),
                                          static_cast<std::int64_t>(rows), static_cast<std::int64_t>(inter), qo);
  ASSERT_NE(wrong.elements, right.elements) << "pick data where fp32 and bf16 intermediates differ";
  const check::Report r = check::compare(check::OutputSpec::packed_e2m1("elements", rows, inter), wrong.elements, got);
  EXPECT_FALSE(r.ok()) << r;
}

}  // namespace
}  // namespace mxv::device

namespace mxv::device {
namespace {

/// The emulator's coalescing report of one fused launch on rows x 2I inputs of `type` (values in
/// [-4, 4), inside the gate table, so every slot takes the table path with bf16 input).
emu::CoalescingReport fused_coalescing(WideType type, GateUpLayout layout, std::int64_t rows, std::int64_t inter) {
  emu::EmulatedBackend be;
  std::vector<float> gu(static_cast<std::size_t>(rows * 2 * inter));
  for (std::size_t i = 0; i < gu.size(); ++i) gu[i] = static_cast<float>(static_cast<int>(i * 37u % 64u) - 32) / 8.0f + 0.0625f;
  SwigluQuantizeProblem prob;
  prob.input_type = type;
  prob.rows = rows;
  prob.inter = inter;
  prob.layout = layout;
  prob.tensor_amax = 4.0f;
  const SwigluQuantizePlan plan = plan_swiglu_quantize(prob);
  const std::vector<std::uint8_t> bytes = narrow_from_fp32(type, gu);
  DeviceBuffer input = be.alloc_upload(std::span<const std::uint8_t>(bytes), "gate_up");
  SwigluQuantizeBuffers out = alloc_swiglu_quantize_buffers(be, plan);
  run_swiglu_quantize(be, plan, input, out);
  return be.coalescing("swiglu_quantize_fused");
}

// The fused kernel's input loads on the emulator, per gate/up placement: one thread per slot with
// bf16 input, a lane pair with fp32 (the file comment of kernels/swiglu_quantize.h), slots in the
// scale buffer's memory order, so a warp holds 4 consecutive slots of 8 rows. Every load request
// touches 32 sectors and uses half of each (the lane's next load uses the other half, from L1), in
// both placements. They differ in lines: a slot's interleaved(8) inputs are one contiguous run
// (64 bytes bf16, 128 bytes fp32 per lane pair), so a request meets 16 lines of 128 bytes; with
// halves a slot's gates are half that run and the 4 slots of a row share their gate line (and
// their up line), 8 lines a request. On the H200 interleaved(8) runs about 1.5 points of copy
// under halves with either input type while its sm_90 slot loop has a few instructions fewer
// (BENCHMARKS.md, "interleaved(8) against halves"). The codes: 4 lanes of a row write its 32
// (bf16) or 16 (fp32 pairs) bytes of codes, one line per row; the scale bytes of a warp are one
// sector (a pair's second lane stores none). 128 rows x I = 256 give 2,048 slots, 4 per thread or
// lane pair: 2 launch blocks with bf16 input, 4 with fp32, whose 512 threads or pairs step through
// whole 512-byte scale atoms.
void expect_fused_coalescing(WideType type, GateUpLayout layout, int load_sites, double load_lines,
                             test::SiteShape codes, std::uint64_t scale_lanes) {
  const emu::CoalescingReport r = fused_coalescing(type, layout, 128, 256);
  SCOPED_TRACE(r.to_string());
  EXPECT_EQ(test::count_sites(r, {emu::AccessKind::kLoad, 32, 32.0, load_lines, 0.5}), load_sites);
  EXPECT_EQ(test::count_sites(r, codes), 1);
  EXPECT_EQ(test::count_sites(r, {emu::AccessKind::kStore, scale_lanes, 1.0, 1.0, static_cast<double>(scale_lanes) / 32.0}), 1);
  // and the tensor amax, read by every lane, and s_dec, written once: nothing else
  EXPECT_EQ(test::count_sites(r, {emu::AccessKind::kLoad, 32, 1.0, 1.0, 4.0}), 1);
  EXPECT_EQ(test::count_sites(r, {emu::AccessKind::kStore, 1, 1.0, 1.0, 0.125}), 1);
  EXPECT_EQ(r.sites.size(), static_cast<std::size_t>(load_sites) + 4u);
}

TEST(SwigluQuantizeCoalescing, emulated_Bf16LoadsMeetTwiceTheLinesInterleaved) {
  const test::SiteShape codes{emu::AccessKind::kStore, 32, 8.0, 8.0, 1.0};  // 8 bytes a lane
  expect_fused_coalescing(WideType::kBf16, GateUpLayout::halves(), 4, 8.0, codes, 32);  // gates, ups, gates, ups
  expect_fused_coalescing(WideType::kBf16, GateUpLayout::interleaved(8), 1, 16.0, codes, 32);  // one load in a loop
}

TEST(SwigluQuantizeCoalescing, emulated_Fp32LanePairsMeetTwiceTheLinesInterleaved) {
  const test::SiteShape codes{emu::AccessKind::kStore, 32, 4.0, 4.0, 1.0};  // 4 bytes a lane
  expect_fused_coalescing(WideType::kFp32, GateUpLayout::halves(), 1, 8.0, codes, 16);
  expect_fused_coalescing(WideType::kFp32, GateUpLayout::interleaved(8), 1, 16.0, codes, 16);
}

}  // namespace
}  // namespace mxv::device
