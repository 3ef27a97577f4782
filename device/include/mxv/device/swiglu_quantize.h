// Host launchers of the SwiGLU kernels (kernels/swiglu_quantize.h): the fused activation +
// quantization epilogue, and the unfused pair (activation -> bf16, then the quantize kernel) that
// the fused kernel with a bf16 intermediate must equal bit for bit. docs/semantics.md section 6;
// docs/design.md section 5.4, "swiglu_quantize".
//
//   SwigluQuantizeProblem prob{{r, WideType::kBf16, m, {}, amax}, i, GateUpLayout::interleaved(8),
//                              ScaleLayout::kSwizzled128x4};
//   SwigluQuantizePlan plan = plan_swiglu_quantize(prob);
//   SwigluQuantizeBuffers out = alloc_swiglu_quantize_buffers(backend, plan);
//   run_swiglu_quantize(backend, plan, gate_up, out);
//
// What the kernels take (anything else is std::invalid_argument naming the rule): a recipe the
// quantize kernels support (quantize.h) with activation silu (or none, read as silu) or
// swiglu_clamped and the portable exp; fp32 or bf16 input; I a multiple of 16 (whole NVFP4 blocks
// and 16-byte vectors) and, for MX recipes, of 32; layouts halves and interleaved(g) with g
// dividing 8 or a multiple of 8; NVFP4 needs the tensor amax of the activated output (one pass
// cannot know it; calibrated, as production epilogues use).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "mxv/device/backend.h"
#include "mxv/device/block_quantize_problem.h"
#include "mxv/device/kernels/swiglu_quantize.h"
#include "mxv/device/quantize.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/recipe.h"
#include "mxv/reference/scale_layout.h"
#include "mxv/reference/swiglu.h"

namespace mxv::device {

/// One SwiGLU (+ quantize) call. The recipe carries the activation, alpha, limit, exp and the
/// intermediate precision (fp32: quantize the fp32 activation; bf16: round it to bf16 first).
struct SwigluQuantizeProblem : BlockQuantizeProblem {
  std::int64_t inter = 0;  ///< I: the input has 2I columns, the activated output I
  GateUpLayout layout = GateUpLayout::halves();
  ScaleLayout scale_layout = ScaleLayout::kSwizzled128x4;
};

/// The fused launch.
struct SwigluQuantizePlan {
  SwigluQuantizeProblem problem;
  SwigluQuantizeParams params;  ///< without buffer pointers
  LaunchPlan launch;            ///< "swiglu_quantize_fused"
  /// bf16 input: the gate-factor table fill that runs first ("swiglu_gate_table";
  /// kernels/swiglu_gate_table.h), its parameters without the buffer, and the table's size.
  std::optional<LaunchPlan> table_launch;
  SwigluGateTableParams table_params;
  std::uint64_t gate_table_bytes = 0;
  std::uint64_t input_bytes = 0;
  std::uint64_t element_bytes = 0;  ///< rows * I/2
  std::uint64_t scale_bytes = 0;
  std::vector<std::uint32_t> tile_rows;
};

/// The presets plan_swiglu_quantize accepts: the quantize kernel's (quantize_supported_presets()),
/// since the fused kernel quantizes with the same rules.
std::span<const std::string_view> swiglu_quantize_supported_presets();

/// Validates and plans the fused kernel; launches nothing.
SwigluQuantizePlan plan_swiglu_quantize(const SwigluQuantizeProblem& problem);

/// Output and scratch buffers of one fused run (amax: the calibrated tensor amax, uploaded by the
/// first run that uses it: hold_calibrated_amax).
using SwigluQuantizeBuffers = BlockQuantizeBuffers;

SwigluQuantizeBuffers alloc_swiglu_quantize_buffers(Backend& backend, const SwigluQuantizePlan& plan,
                                                    std::uint8_t sentinel = 0xCD);
/// Runs the fused kernel, after the gate-factor table fill when the plan has a table that `out`
/// does not already hold. Throws std::invalid_argument when a buffer is too small.
void run_swiglu_quantize(Backend& backend, const SwigluQuantizePlan& plan, const DeviceBuffer& gate_up,
                         SwigluQuantizeBuffers& out);
/// The gate-factor table fill alone (run_swiglu_quantize's first launch), for callers that launch
/// the fused kernel themselves (the benchmark). Launches nothing when the plan has no table or
/// when `out.gate_table_holds` says the table already holds the plan's activation (the factors
/// depend on the activation, alpha and limit alone, so repeated runs on the same buffers fill it
/// once); records the activation after a fill.
void run_swiglu_gate_table(Backend& backend, const SwigluQuantizePlan& plan, SwigluQuantizeBuffers& out);

// ---- the unfused pair -------------------------------------------------------------------------

/// The activation kernel alone: gate/up -> bf16 [rows, I].
struct SwigluBf16Plan {
  SwigluParams params;  ///< without buffer pointers
  LaunchPlan launch;    ///< "swiglu_bf16"
  std::uint64_t input_bytes = 0;
  std::uint64_t output_bytes = 0;  ///< rows * I * 2
};

/// Plans the activation kernel for `problem` (its quantization fields are validated too, since
/// the pair's second half quantizes the result).
SwigluBf16Plan plan_swiglu_bf16(const SwigluQuantizeProblem& problem);
void run_swiglu_bf16(Backend& backend, const SwigluBf16Plan& plan, const DeviceBuffer& gate_up, const DeviceBuffer& out);

/// The second half: the quantize problem over the bf16 activation (same recipe, layout, groups,
/// tensor amax).
QuantizeProblem unfused_quantize_problem(const SwigluQuantizeProblem& problem);

}  // namespace mxv::device
