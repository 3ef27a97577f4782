// Host launcher of the quantize kernels (kernels/quantize.h) and of the tensor-amax reduction
// (kernels/amax.h): activations [M, K] fp32/bf16 -> packed E2M1 + block scales (linear or
// swizzled 128x4, zeroed padding) + the NVFP4 tensor amax and global decode scale; grouped (MoE)
// rows. docs/design.md section 5.3, "quantize"; docs/semantics.md sections 4-5; the output layout
// is the reference's (reference/quantize.h), so the two compare byte for byte.
//
// Supported recipes: exactly the presets in quantize_supported_presets() (nvfp4_te,
// mxfp4_nvidia, mxfp4_ocp, ort_qmoe), plus variations of their fields that do not change quantization
// (decode quirks, SwiGLU fields) and either NaN-in-amax policy. Anything else is rejected with
// std::invalid_argument naming the field.
//
//   QuantizeProblem prob;                 // BlockQuantizeProblem: recipe, input type, rows, groups,
//   prob.rows = m;                        //   tensor amax; then the columns and the scale layout
//   prob.cols = k;
//   QuantizePlan plan = plan_quantize(prob);
//   QuantizeBuffers out = alloc_quantize_buffers(backend, plan);
//   run_quantize(backend, plan, input, out);   // input: m*k fp32 values on `backend`
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "mxv/device/backend.h"
#include "mxv/device/block_quantize_buffers.h"
#include "mxv/device/block_quantize_problem.h"
#include "mxv/device/kernels/amax.h"
#include "mxv/device/kernels/quantize.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/recipe.h"
#include "mxv/reference/scale_layout.h"

namespace mxv::device {

/// Names of the presets the quantize kernels implement; the tests check exactly these.
std::span<const std::string_view> quantize_supported_presets();

/// The kernel scheme of `recipe`; throws std::invalid_argument naming the recipe and the field
/// the kernels do not implement.
qrules::Scheme quantize_scheme_of(const Recipe& recipe);

/// One quantize call.
struct QuantizeProblem : BlockQuantizeProblem {
  std::int64_t cols = 0;  ///< K >= 1
  ScaleLayout scale_layout = ScaleLayout::kLinear;
};

/// Everything decided on the host: the variant, the launches, the buffer sizes.
struct QuantizePlan {
  QuantizeProblem problem;
  QuantizeParams params;           ///< without buffer pointers (run_quantize fills them)
  AmaxParams amax_params;          ///< likewise
  bool launches_amax = false;      ///< NVFP4 without a calibrated amax
  LaunchPlan amax_launch;          ///< "amax"
  LaunchPlan quantize_launch;      ///< "quantize_vector" | "quantize_scalar"
  std::uint64_t input_bytes = 0;
  std::uint64_t element_bytes = 0;  ///< M * ceil(K/2)
  std::uint64_t scale_bytes = 0;    ///< scale slots, padding included
  std::vector<std::uint32_t> tile_rows;  ///< grouped + swizzled: the per-tile row table
};

/// Validates `problem` and decides the launches; launches nothing.
QuantizePlan plan_quantize(const QuantizeProblem& problem);

// ---- shared with the swiglu_quantize launcher (swiglu_quantize.cpp) ----------------------------
// Both kernels write the same scale buffer (docs/semantics.md section 5) through the same slot walk
// (kernels/fp4_block.h), so its geometry, the grouped-row checks and the grid sizing are one code.

/// Throws std::invalid_argument ("<who>: group_counts[g] must be >= 0, got c" / "... sum to s but
/// rows is r") unless `group_counts` is empty or holds non-negative counts summing to `rows`.
void validate_group_counts(std::string_view who, std::span<const std::int64_t> group_counts, std::int64_t rows);

/// The scale buffer of `rows` (compact) rows with `kb` real scale columns: linear (kb columns,
/// one row per row), or swizzled 128x4 (columns padded to 4, rows to 128 per group, with the
/// per-tile row table: two words per 128-row tile, the tile's first compact row and its real
/// row count). `group_counts` must have passed validate_group_counts.
struct ScaleSlotGeometry {
  std::uint64_t kb_slots = 0;    ///< scale columns in the buffer
  std::uint64_t scale_rows = 0;  ///< rows of the scale buffer
  std::vector<std::uint32_t> tile_rows;  ///< grouped + swizzled only
};
ScaleSlotGeometry scale_slot_geometry(std::uint64_t rows, std::uint64_t kb, bool swizzled,
                                      std::span<const std::int64_t> group_counts);

/// Blocks of `block_threads` for a grid-stride kernel over `threads` threads: at least 1, at most
/// 2^20 (more only adds scheduling overhead; far inside the 2^31-1 grid limit).
unsigned grid_stride_blocks(std::uint64_t threads, unsigned block_threads);

/// Whether a one-thread-per-slot kernel (quantize vector, fused SwiGLU) may index with 32 bits:
/// every input and output byte offset (plus the last 16-byte load), and every slot index plus two
/// grid strides of `threads` (a thread's look-ahead past its last slot), stay below 2^32.
bool fits_narrow_index(std::uint64_t input_bytes, std::uint64_t output_bytes, std::uint64_t slots,
                       std::uint64_t threads);

/// Output and scratch buffers of one run.
using QuantizeBuffers = BlockQuantizeBuffers;

/// Allocates the outputs (filled with `sentinel`) and uploads the plan's row table.
QuantizeBuffers alloc_quantize_buffers(Backend& backend, const QuantizePlan& plan, std::uint8_t sentinel = 0xCD);

/// Runs the plan: resets the amax word and launches the amax kernel (NVFP4 without a calibrated
/// amax), or puts the calibrated amax into it unless `out` already holds it (hold_calibrated_amax),
/// then launches the quantize kernel. Throws std::invalid_argument when a buffer is too small.
void run_quantize(Backend& backend, const QuantizePlan& plan, const DeviceBuffer& input, QuantizeBuffers& out);

}  // namespace mxv::device
