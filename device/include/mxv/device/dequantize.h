// Host launcher of the weight-dequantize kernels (docs/design.md section 5.2, "dequantize"):
// validates the arguments, applies the gate that picks the tiled kernel (kernels/dequantize_tiled.h)
// or falls back to the scalar one (kernels/dequantize_scalar.h), builds the LaunchPlan and hands it
// to a Backend. Supported recipes: every preset with E2M1 elements (nvfp4_*, mxfp4_*, ort_qmoe);
// the dequantize arithmetic does not depend on the NVFP4 operation order.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mxv/device/backend.h"
#include "mxv/device/kernels/dequantize.h"
#include "mxv/reference/recipe.h"

namespace mxv::device {

/// One dequantize call: weights of `experts` x [n, k] -> out [experts, n, k] of `out_type`.
struct DequantizeArgs {
  Recipe recipe = Recipe::nvfp4_te();
  WeightPacking packing = WeightPacking::kKPacked;
  WideType out_type = WideType::kFp32;
  std::int64_t experts = 1, n = 0, k = 0;
  const DeviceBuffer* packed = nullptr;  ///< E*N*K/2 bytes
  const DeviceBuffer* scales = nullptr;  ///< E*N*ceil(K/block) bytes
  const DeviceBuffer* s_dec = nullptr;   ///< NVFP4: 1 float (all experts) or E floats; MX: unused
  const DeviceBuffer* out = nullptr;     ///< E*N*K elements of out_type
  DequantizeVariant variant = DequantizeVariant::kAuto;
};

/// Whether the tiled kernel can take a shape, and if not, the first condition it breaks:
/// N even; K a multiple of 64; grid (K/64, ceil(N/64), E) within CUDA's limits (y, z <= 65535);
/// out 16-byte aligned and packed 4-byte aligned.
struct TiledGate {
  bool ok = false;
  std::string reason;
};
TiledGate dequantize_tiled_gate(const DequantizeArgs& args);

struct DequantizeLaunch {
  DequantizeParams params;
  LaunchPlan plan;  ///< plan.kernel: "dequantize_scalar" or "dequantize_tiled"
  TiledGate gate;   ///< why the tiled kernel was or was not chosen
};

/// The presets plan_dequantize accepts: every preset with E2M1 elements. Tests and `mxv verify`
/// check the kernels against exactly these.
std::span<const std::string_view> dequantize_supported_presets();

/// Validates (std::invalid_argument naming the argument and the rule) and plans, without launching.
DequantizeLaunch plan_dequantize(const DequantizeArgs& args);

/// Validates, plans, launches on `backend`; returns the plan it launched.
LaunchPlan dequantize(Backend& backend, const DequantizeArgs& args);

}  // namespace mxv::device
