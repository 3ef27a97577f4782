// The output and scratch buffers of a block-quantizing launch: the quantize kernel and the fused
// SwiGLU + quantize kernel write the same elements, scales, amax and s_dec through the same slot
// walk (kernels/fp4_block.h, docs/design.md sections 5.3 and 5.4), so their buffers, their
// allocation, their size checks and their binding to the launch parameters are one code.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "mxv/device/backend.h"

namespace mxv::device {

/// The activation a filled gate-factor table belongs to (kernels/swiglu_gate_table.h): clamped or
/// silu, and alpha and limit as bit patterns.
struct GateTableFill {
  bool clamped = false;
  std::uint32_t alpha_bits = 0;
  std::uint32_t limit_bits = 0;
  friend bool operator==(const GateTableFill&, const GateTableFill&) = default;
};

/// `amax` and `s_dec` hold one fp32 each (NVFP4 only: with an MX recipe they are left untouched).
struct BlockQuantizeBuffers {
  DeviceBuffer elements;
  DeviceBuffer scales;
  DeviceBuffer amax;       ///< the tensor amax (reduced by the amax kernel or uploaded by the run)
  DeviceBuffer s_dec;      ///< the global decode scale the kernel writes
  DeviceBuffer tile_rows;  ///< the plan's per-tile row table, uploaded when the plan has one
  DeviceBuffer gate_table;  ///< fused SwiGLU with bf16 input: the gate-factor table the run fills
  /// The activation `gate_table` holds factors of, once a run has filled it: a later run with the
  /// same activation skips the fill (run_swiglu_gate_table). Whoever writes `gate_table` other
  /// than through a run, or swaps it for another buffer, resets this.
  std::optional<GateTableFill> gate_table_holds;
  /// The calibrated tensor amax (fp32 bits) that `amax` holds since a run uploaded it: a later run
  /// with the same calibrated amax skips the upload, which waits for the stream to drain
  /// (hold_calibrated_amax). A run that reduces the amax on the device resets it; so does whoever
  /// writes `amax` other than through a run, or swaps it for another buffer.
  std::optional<std::uint32_t> amax_holds;
};

/// What a plan needs of its buffers: output sizes and the row table (empty: none).
struct BlockQuantizeLayout {
  std::uint64_t element_bytes = 0;
  std::uint64_t scale_bytes = 0;
  std::span<const std::uint32_t> tile_rows;
  std::uint64_t gate_table_bytes = 0;  ///< 0: the plan needs no gate-factor table
};

/// Allocates the outputs, named "<who>.elements", ..., filled with `sentinel`, and uploads the
/// row table.
BlockQuantizeBuffers alloc_block_quantize_buffers(Backend& backend, std::string_view who, const BlockQuantizeLayout& layout,
                                                  std::uint8_t sentinel);

/// Throws std::invalid_argument ("<who>: buffer '<what>' holds N bytes, the plan needs M") when
/// `b` is smaller than `bytes`.
void require_buffer_bytes(std::string_view who, const DeviceBuffer& b, std::uint64_t bytes, const char* what);

/// require_buffer_bytes for every buffer of `out`.
void require_block_quantize_buffers(std::string_view who, const BlockQuantizeLayout& layout,
                                    const BlockQuantizeBuffers& out);

/// Puts the calibrated tensor amax `bits` into `out.amax` for a run: one upload, unless
/// `out.amax_holds` says the buffer holds those bits already (repeated runs with one calibrated
/// amax then launch without waiting for the stream).
void hold_calibrated_amax(Backend& backend, BlockQuantizeBuffers& out, std::uint32_t bits);

/// The layout of a QuantizePlan or SwigluQuantizePlan.
template <class Plan>
BlockQuantizeLayout block_quantize_layout(const Plan& plan) {
  BlockQuantizeLayout layout{plan.element_bytes, plan.scale_bytes, plan.tile_rows};
  if constexpr (requires { plan.gate_table_bytes; }) layout.gate_table_bytes = plan.gate_table_bytes;
  return layout;
}

/// Points a launch's outputs (QuantizeParams, SwigluQuantizeParams) at `out`.
template <class Params>
void bind_block_quantize_buffers(Params& p, const BlockQuantizeLayout& layout, const BlockQuantizeBuffers& out) {
  p.elements = out.elements.as<std::uint8_t>();
  p.scales = out.scales.as<std::uint8_t>();
  p.tile_rows = layout.tile_rows.empty() ? GlobalPtr<std::uint32_t>{} : out.tile_rows.as<std::uint32_t>();
  p.amax_bits = out.amax.as<std::uint32_t>();
  p.s_dec_out = out.s_dec.as<float>();
  if constexpr (requires { p.gate_table; }) p.gate_table = out.gate_table.as<float>();
}

}  // namespace mxv::device
