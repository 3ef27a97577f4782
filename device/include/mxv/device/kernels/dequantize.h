// The weight-dequantize family (kernel_family.h): the scalar kernel (dequantize_scalar.h) and
// the tiled kernel (dequantize_tiled.h), one instantiation per launch geometry.
#pragma once

#include <cstdint>
#include <string_view>

#include "mxv/device/kernel_family.h"
#include "mxv/device/kernels/dequantize_scalar.h"
#include "mxv/device/kernels/dequantize_tiled.h"

namespace mxv::device {

/// The launcher's choice (DequantizeArgs::variant) and, but for kAuto, the variant a plan names.
enum class DequantizeVariant : std::uint8_t {
  kAuto,    ///< tiled when the gate allows it, scalar otherwise
  kScalar,  ///< always scalar (any valid shape)
  kTiled,   ///< tiled; std::invalid_argument (with the gate's reason) when the gate rejects the shape
};
constexpr std::string_view to_string(DequantizeVariant v) {
  switch (v) {
    case DequantizeVariant::kAuto: return "auto";
    case DequantizeVariant::kScalar: return "dequantize_scalar";
    case DequantizeVariant::kTiled: return "dequantize_tiled";
  }
  return "?";
}

/// Threads per block of a tiled geometry: (256, 1, 1) units, (8, 32) transpose, (8, 64) rows64.
constexpr unsigned dequant_geometry_threads(DequantGeometry g) {
  switch (g) {
    case DequantGeometry::kUnits: return kDequantUnitThreads;
    case DequantGeometry::kTranspose: return kTransposeThreads;
    case DequantGeometry::kRows64: return kDequantTileN * kDequantGroups;
  }
  return 0;
}

/// The dequantize kernels as both backends run them. The scalar kernel declares no launch bound.
struct DequantizeScalarKernel : KernelOf<DequantizeParams, 0> {
  template <class Ctx>
  static MXV_HD MXV_FORCEINLINE void run(Ctx& ctx, const DequantizeParams& p) { dequantize_scalar_body(ctx, p); }
};
// One kernel per geometry, each bounded by its own block size. A minimum of 6 resident blocks
// (40 registers) measured no faster on the H200 than the allocation ptxas picks by itself
// (BENCHMARKS.md, "Tiled dequantize: register bound and early s_dec load").
template <DequantGeometry kGeometry>
struct DequantizeTiledKernel : KernelOf<DequantizeParams, dequant_geometry_threads(kGeometry)> {
  template <class Ctx>
  static MXV_HD MXV_FORCEINLINE void run(Ctx& ctx, const DequantizeParams& p) {
    dequantize_tiled_geometry_body<kGeometry>(ctx, p);
  }
};

/// The dequantize family: scalar, or tiled in the geometry the plan's block shape selects.
struct DequantizeFamily : FamilyOf<DequantizeParams, DequantizeVariant::kScalar, DequantizeVariant::kTiled> {
  template <class Visitor>
  static void visit(DequantizeVariant v, const LaunchPlan& plan, const DequantizeParams&, Visitor&& visitor) {
    if (v != DequantizeVariant::kTiled) {
      visitor.template operator()<DequantizeScalarKernel>();
      return;
    }
    switch (dequant_geometry(plan.block)) {
      case DequantGeometry::kUnits: visitor.template operator()<DequantizeTiledKernel<DequantGeometry::kUnits>>(); return;
      case DequantGeometry::kTranspose: visitor.template operator()<DequantizeTiledKernel<DequantGeometry::kTranspose>>(); return;
      case DequantGeometry::kRows64: visitor.template operator()<DequantizeTiledKernel<DequantGeometry::kRows64>>(); return;
    }
  }
};

}  // namespace mxv::device
