// Host launchers of the SwiGLU kernels: validation, the gate (I % 16, supported layouts), launch
// geometry and the grouped row table; the fused kernel and the unfused pair share one validation
// so both take exactly the same problems (docs/design.md section 5.4).
#include "mxv/device/swiglu_quantize.h"

#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace mxv::device {

namespace {

constexpr std::string_view kWho = "swiglu_quantize";

[[noreturn]] void fail(const std::string& why) { throw std::invalid_argument(std::string(kWho) + ": " + why); }

unsigned blocks_for(std::uint64_t threads) { return grid_stride_blocks(threads, kSwigluBlockThreads); }

/// Validates everything both kernels need and fills the shared input description.
SwigluInput validated_input(const SwigluQuantizeProblem& p, qrules::Scheme* scheme_out) {
  const qrules::Scheme scheme = quantize_scheme_of(p.recipe);  // throws for unsupported recipes
  if (scheme_out != nullptr) *scheme_out = scheme;
  const Recipe& r = p.recipe;
  // Activation::kNone is read as silu, as the reference's SwigluActivation::from_recipe does.
  if (r.exp != ExpKind::kPortable) fail("recipe exp must be portable (the ex2.approx table is not modelled here)");
  if (!std::isfinite(r.alpha) || !std::isfinite(r.limit) || !(r.limit > 0.0f)) {
    fail("recipe alpha and limit must be finite and limit > 0");
  }
  if (p.input_type != WideType::kFp32 && p.input_type != WideType::kBf16) {
    fail("input_type must be fp32 or bf16, got " + std::string(to_string(p.input_type)));
  }
  if (p.rows < 1) fail("rows must be >= 1, got " + std::to_string(p.rows));
  if (p.rows > std::numeric_limits<std::uint32_t>::max()) fail("rows must be < 2^32");
  const std::uint64_t block = qrules::block_size(scheme);
  if (p.inter < 1 || static_cast<std::uint64_t>(p.inter) % block != 0) {
    fail("inter (I) must be a positive multiple of the block size " + std::to_string(block) + ", got " +
         std::to_string(p.inter));
  }
  if (p.rows * p.inter > (std::int64_t{1} << 45)) fail("rows * inter must be <= 2^45");
  std::uint32_t group = 0;
  if (p.layout.kind == GateUpLayout::Kind::kInterleaved) {
    const std::size_t g = p.layout.group;
    if (g == 0 || static_cast<std::uint64_t>(p.inter) % g != 0) fail("interleaved(g) needs g >= 1 dividing I");
    if (!(8 % g == 0 || g % 8 == 0)) {
      fail("interleaved(" + std::to_string(g) + ") is not supported: g must divide 8 or be a multiple of 8");
    }
    group = static_cast<std::uint32_t>(g);
  }
  validate_group_counts(kWho, p.group_counts, p.rows);
  if (r.is_nvfp4() && !p.tensor_amax) {
    fail("NVFP4 needs tensor_amax (the activated output's amax): one pass cannot compute it before scaling");
  }
  SwigluInput in;
  in.input_bf16 = p.input_type == WideType::kBf16;
  in.placement.group = group;
  in.activation = r.activation == Activation::kSwigluClamped ? Activation::kSwigluClamped : Activation::kSilu;
  in.alpha = r.alpha;
  in.limit = r.limit;
  in.rows = static_cast<std::uint64_t>(p.rows);
  in.inter = static_cast<std::uint64_t>(p.inter);
  return in;
}

}  // namespace

std::span<const std::string_view> swiglu_quantize_supported_presets() { return quantize_supported_presets(); }

SwigluQuantizePlan plan_swiglu_quantize(const SwigluQuantizeProblem& problem) {
  SwigluQuantizePlan plan;
  plan.problem = problem;
  SwigluQuantizeParams& q = plan.params;
  q.in = validated_input(problem, &q.scheme);
  const bool swizzled = problem.scale_layout == ScaleLayout::kSwizzled128x4;
  const std::uint64_t block = qrules::block_size(q.scheme);
  q.layout = swizzled ? ScaleLayout::kSwizzled128x4 : ScaleLayout::kLinear;
  q.round_to_bf16 = problem.recipe.intermediate == Intermediate::kBf16;
  q.nan_propagates = problem.recipe.nan_in_amax == NanInAmax::kPropagate;
  q.kb = q.in.inter / block;
  ScaleSlotGeometry slots = scale_slot_geometry(q.in.rows, q.kb, swizzled, problem.group_counts);
  q.kb_slots = slots.kb_slots;
  q.scale_rows = slots.scale_rows;
  plan.tile_rows = std::move(slots.tile_rows);
  q.items = q.scale_rows * q.kb_slots;
  plan.launch.kernel = to_string(SwigluQuantizeVariant::kFused);
  plan.launch.block = {kSwigluBlockThreads, 1, 1};
  // About 4 slots per thread (bf16 input: one thread per slot) or per lane pair (fp32 input, a
  // pair per slot; kernels/swiglu_quantize.h): the one-time index division is amortised. With
  // bf16 input every block first copies the 32 KiB gate-factor table, so the CUDA backend runs one
  // wave of resident blocks (LaunchPlan::one_wave) that stride over all slots.
  const std::uint64_t per_thread = 4u;
  const std::uint64_t lanes_per_slot = q.in.input_bf16 ? 1u : 2u;
  plan.launch.grid = {blocks_for((q.items * lanes_per_slot + per_thread - 1) / per_thread), 1, 1};
  plan.launch.one_wave = q.in.input_bf16;
  validate_launch_plan(plan.launch);
  plan.input_bytes = q.in.rows * 2u * q.in.inter * (q.in.input_bf16 ? 2u : 4u);
  plan.element_bytes = q.in.rows * q.in.inter / 2u;
  const std::uint64_t threads = std::uint64_t{plan.launch.grid.x} * kSwigluBlockThreads;
  q.narrow_index = fits_narrow_index(plan.input_bytes, plan.element_bytes, q.items, threads);
  plan.scale_bytes = q.items;
  if (q.in.input_bf16) {
    // The gate factors of bf16 gates come from a table the run fills first (one thread a slot).
    plan.table_params.clamped = q.in.activation == Activation::kSwigluClamped;
    plan.table_params.alpha = q.in.alpha;
    plan.table_params.limit = q.in.limit;
    plan.gate_table_bytes = std::uint64_t{kGateTableEntries} * sizeof(float);
    LaunchPlan table;
    table.kernel = to_string(SwigluGateTableVariant::kFill);
    table.block = {kGateTableBlockThreads, 1, 1};
    table.grid = {blocks_for(kGateTableEntries), 1, 1};
    validate_launch_plan(table);
    plan.table_launch = table;
  }
  return plan;
}

SwigluQuantizeBuffers alloc_swiglu_quantize_buffers(Backend& backend, const SwigluQuantizePlan& plan,
                                                    std::uint8_t sentinel) {
  return alloc_block_quantize_buffers(backend, kWho, block_quantize_layout(plan), sentinel);
}

namespace {
void need(const DeviceBuffer& b, std::uint64_t bytes, const char* what) { require_buffer_bytes(kWho, b, bytes, what); }
}  // namespace

void run_swiglu_quantize(Backend& backend, const SwigluQuantizePlan& plan, const DeviceBuffer& gate_up,
                         SwigluQuantizeBuffers& out) {
  const BlockQuantizeLayout layout = block_quantize_layout(plan);
  need(gate_up, plan.input_bytes, "gate_up");
  require_block_quantize_buffers(kWho, layout, out);
  SwigluQuantizeParams q = plan.params;
  q.in.gate_up = gate_up.as<std::uint8_t>();
  bind_block_quantize_buffers(q, layout, out);
  if (plan.problem.tensor_amax) hold_calibrated_amax(backend, out, std::bit_cast<std::uint32_t>(*plan.problem.tensor_amax));
  run_swiglu_gate_table(backend, plan, out);
  backend.launch(plan.launch, q);
}

void run_swiglu_gate_table(Backend& backend, const SwigluQuantizePlan& plan, SwigluQuantizeBuffers& out) {
  if (!plan.table_launch) return;
  require_buffer_bytes(kWho, out.gate_table, plan.gate_table_bytes, "gate_table");
  SwigluGateTableParams t = plan.table_params;
  const GateTableFill fill{t.clamped, std::bit_cast<std::uint32_t>(t.alpha), std::bit_cast<std::uint32_t>(t.limit)};
  if (out.gate_table_holds == fill) return;  // a table depends on the activation alone
  t.table = out.gate_table.as<float>();
  backend.launch(*plan.table_launch, t);
  out.gate_table_holds = fill;
}

SwigluBf16Plan plan_swiglu_bf16(const SwigluQuantizeProblem& problem) {
  SwigluBf16Plan plan;
  plan.params.in = validated_input(problem, nullptr);
  plan.params.vectors = plan.params.in.rows * plan.params.in.inter / 8u;
  plan.launch.kernel = to_string(SwigluVariant::kBf16);
  plan.launch.block = {kSwigluBlockThreads, 1, 1};
  plan.launch.grid = {blocks_for(plan.params.vectors), 1, 1};
  validate_launch_plan(plan.launch);
  plan.input_bytes = plan.params.in.rows * 2u * plan.params.in.inter * (plan.params.in.input_bf16 ? 2u : 4u);
  plan.output_bytes = plan.params.in.rows * plan.params.in.inter * 2u;
  return plan;
}

void run_swiglu_bf16(Backend& backend, const SwigluBf16Plan& plan, const DeviceBuffer& gate_up, const DeviceBuffer& out) {
  need(gate_up, plan.input_bytes, "gate_up");
  need(out, plan.output_bytes, "out");
  SwigluParams s = plan.params;
  s.in.gate_up = gate_up.as<std::uint8_t>();
  s.out = out.as<std::uint16_t>();
  backend.launch(plan.launch, s);
}

QuantizeProblem unfused_quantize_problem(const SwigluQuantizeProblem& problem) {
  QuantizeProblem q{problem, problem.inter, problem.scale_layout};  // the common fields, sliced
  q.input_type = WideType::kBf16;  // the activation kernel's output
  return q;
}

}  // namespace mxv::device
