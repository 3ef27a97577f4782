// Host launcher of the weight-dequantize kernels: argument validation, the tiled-kernel gate and
// the launch plans (geometry of kernels/dequantize_scalar.h and kernels/dequantize_tiled.h; the
// tiled kernel's block shape selects its geometry, see that header).
#include "mxv/device/dequantize.h"

#include <array>
#include <cstdint>
#include <sstream>
#include <optional>
#include <stdexcept>

#include "mxv/reference/vocabulary.h"

namespace mxv::device {

namespace {

// Messages are streamed, not built with operator+: GCC 12 at -O3 reports a false -Wrestrict on
// some `"literal" + std::to_string(x)` chains (GCC bug 105329).
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

bool aligned(const DeviceBuffer* b, std::uintptr_t bytes) {
  return b != nullptr && reinterpret_cast<std::uintptr_t>(b->data()) % bytes == 0;
}

[[noreturn]] void reject(const std::string& argument, const std::string& rule) {
  throw std::invalid_argument(cat("dequantize: ", argument, ": ", rule));
}

void require_bytes(const DeviceBuffer* b, const std::string& role, std::uint64_t bytes) {
  if (b == nullptr) reject(role, "buffer must not be null");
  if (b->bytes() < bytes) {
    reject(role, cat("buffer '", b->name(), "' has ", b->bytes(), " bytes, the shape needs ", bytes));
  }
}

DequantScale scale_kind(const Recipe& r) {
  if (r.is_nvfp4()) return DequantScale::kUE4M3;
  if (r.e8m0_decode == E8m0Decode::kOrtQmoe) return DequantScale::kE8M0OrtQmoe;
  if (r.flush_e8m0_zero) return DequantScale::kE8M0Flushed;
  return DequantScale::kE8M0;
}

std::uint32_t log2_block(const Recipe& r) {
  if (r.block_size == 16) return 4;
  if (r.block_size == 32) return 5;
  reject("recipe", cat("'", r.name, "' has block size ", r.block_size, "; the kernels take 16 (NVFP4) or 32 (MX)"));
}

}  // namespace

// Every E2M1 preset of Recipe::preset_names() whose dequantization is elem * scale (MX, any E8M0
// decode the kernels know) or (elem * sf) * s_dec with UE4M3 scales (NVFP4). (The MX library
// presets, Recipe::library_preset_names(), dequantize as elem * scale too and are accepted.) The ModelOpt and torchao NVFP4 presets
// dequantize as elem * (sf * s_dec) with float8_e4m3fn scales (DequantOrder, ScaleDecode in
// recipe.h): the kernels do not implement that order, so plan_dequantize rejects them.
std::span<const std::string_view> dequantize_supported_presets() {
  static constexpr std::array<std::string_view, 6> kSupported = {
      "nvfp4_te", "nvfp4_trtllm", "nvfp4_cutlass_ref", "mxfp4_nvidia", "mxfp4_ocp", "ort_qmoe"};
  return kSupported;
}

TiledGate dequantize_tiled_gate(const DequantizeArgs& a) {
  if (a.n % 2 != 0) return {false, cat("N = ", a.n, " is odd")};
  if (a.k % kDequantTileK != 0) return {false, cat("K = ", a.k, " is not a multiple of 64")};
  const std::int64_t grid_y = (a.n + kDequantTileN - 1) / kDequantTileN;
  if (grid_y > kMaxGridYZ) return {false, cat("ceil(N/64) = ", grid_y, " exceeds gridDim.y <= 65535")};
  if (a.experts > kMaxGridYZ) return {false, cat("E = ", a.experts, " exceeds gridDim.z <= 65535")};
  if (a.k / kDequantTileK > kMaxGridX) return {false, "K/64 exceeds gridDim.x <= 2^31-1"};
  if (a.out != nullptr && reinterpret_cast<std::uintptr_t>(a.out->data()) % 16 != 0) {
    return {false, "out is not 16-byte aligned"};
  }
  if (a.packed != nullptr && reinterpret_cast<std::uintptr_t>(a.packed->data()) % 4 != 0) {
    return {false, "packed is not 4-byte aligned"};
  }
  return {true, "N even, K % 64 == 0, grid within limits, buffers aligned"};
}

DequantizeLaunch plan_dequantize(const DequantizeArgs& a) {
  const Recipe& r = a.recipe;
  r.validate();
  if (r.element != ElementFormat::kFp4E2M1) {
    reject("recipe", cat("'", r.name, "' does not have E2M1 elements; the kernels dequantize FP4 weights"));
  }
  if (r.is_nvfp4() && (r.dequant_order != DequantOrder::kElemScaleThenGlobal || r.scale_decode != ScaleDecode::kUnsigned)) {
    reject("recipe", cat("'", r.name, "' dequantizes as ", to_string(r.dequant_order), " with ", to_string(r.scale_decode),
                         " scales; the kernels compute (elem * sf) * s_dec from UE4M3 scales"));
  }
  if (r.e2m1_negative_zero_decodes_positive) {
    reject("recipe", cat("'", r.name, "' decodes E2M1 0x8 as +0; the kernels decode it as -0"));
  }
  if (a.experts < 1 || a.n < 1 || a.k < 1) reject("shape", "experts, n and k must all be >= 1");
  if (a.experts > UINT32_MAX || a.n > UINT32_MAX || a.k > UINT32_MAX) reject("shape", "every dimension must be < 2^32");
  if (a.packing == WeightPacking::kKPacked && a.k % 2 != 0) {
    reject("k", cat("K = ", a.k, " must be even for K-packed weights (two codes per byte along K)"));
  }
  if (a.packing == WeightPacking::kNPacked && a.n % 2 != 0) {
    reject("n", cat("N = ", a.n, " must be even for N-packed weights (two codes per byte along N)"));
  }
  const std::uint32_t shift = log2_block(r);
  const auto e = static_cast<std::uint64_t>(a.experts), n = static_cast<std::uint64_t>(a.n),
             k = static_cast<std::uint64_t>(a.k);
  const std::uint64_t block = std::uint64_t{1} << shift;
  const std::uint64_t scale_cols = (k + block - 1) / block;
  const std::uint64_t total = e * n * k;
  if (total / e / n != k || total > (std::uint64_t{1} << 40)) reject("shape", "E*N*K must be <= 2^40 elements");
  require_bytes(a.packed, "packed", total / 2);
  require_bytes(a.scales, "scales", e * n * scale_cols);
  require_bytes(a.out, "out", total * bytes_of(a.out_type));
  bool per_expert = false;
  if (r.is_nvfp4()) {
    if (a.s_dec == nullptr) reject("s_dec", "NVFP4 needs the per-tensor decode scale (1 float, or one per expert)");
    if (a.s_dec->bytes() == 4 * e) {
      per_expert = true;
    } else if (a.s_dec->bytes() != 4) {
      reject("s_dec", cat("buffer '", a.s_dec->name(), "' must hold 1 float or E = ", e, " floats"));
    }
  }

  DequantizeLaunch l;
  DequantizeParams& p = l.params;
  p.packing = a.packing;
  p.scale = scale_kind(r);
  p.out_type = a.out_type;
  p.experts = static_cast<std::uint32_t>(e);
  p.n = static_cast<std::uint32_t>(n);
  p.k = static_cast<std::uint32_t>(k);
  p.block_shift = shift;
  p.scale_cols = static_cast<std::uint32_t>(scale_cols);
  p.s_dec_per_expert = per_expert && e > 1;
  p.packed = a.packed->as<std::uint8_t>();
  p.scales = a.scales->as<std::uint8_t>();
  p.s_dec = r.is_nvfp4() ? a.s_dec->as<float>() : GlobalPtr<float>{};
  p.out = a.out->as<std::uint8_t>();

  l.gate = dequantize_tiled_gate(a);
  const bool tiled = a.variant == DequantizeVariant::kTiled ||
                     (a.variant == DequantizeVariant::kAuto && l.gate.ok);
  if (a.variant == DequantizeVariant::kTiled && !l.gate.ok) {
    reject("variant", cat("the tiled kernel cannot take this shape: ", l.gate.reason));
  }
  if (tiled) {
    // Geometry (kernels/dequantize_tiled.h): K-packed weights take the "units" blocks (256 threads,
    // each with 4 independent 16-byte stores and all their loads issued first); N-packed weights
    // the "transpose" blocks (8 x 32, 256 rows staged with 16-byte loads and transposed in
    // registers) when N % 32 == 0, else the "rows64" blocks (8 x 64, byte staging).
    l.plan.kernel = to_string(DequantizeVariant::kTiled);
    const auto row_tiles = static_cast<unsigned>((n + kDequantTileN - 1) / kDequantTileN);
    if (a.packing == WeightPacking::kKPacked) {
      const std::uint64_t span = std::uint64_t{kDequantTileK} * dequant_units(a.out_type);
      l.plan.grid = {static_cast<unsigned>((k + span - 1) / span), row_tiles, static_cast<unsigned>(e)};
      l.plan.block = {kDequantUnitThreads, 1, 1};
    } else if (n % 32 == 0 && aligned(a.packed, 16) && aligned(a.scales, 4)) {
      // 16-byte loads of whole packed k rows need N/2 % 16 == 0; the scale words need the 4 (or
      // 2) scale bytes of a row's 64-k tile aligned, which K % 64 == 0 gives on an aligned buffer.
      l.plan.grid = {static_cast<unsigned>(k / kDequantTileK), static_cast<unsigned>((n + kTransposeTileN - 1) / kTransposeTileN),
                     static_cast<unsigned>(e)};
      l.plan.block = {kDequantGroups, kTransposeGroups, 1};
    } else {
      l.plan.grid = {static_cast<unsigned>(k / kDequantTileK), row_tiles, static_cast<unsigned>(e)};
      l.plan.block = {kDequantGroups, kDequantTileN, 1};
    }
  } else {
    const std::optional<LaunchPlan> plan = linear_launch_plan(to_string(DequantizeVariant::kScalar), total,
                                                              kDequantScalarBlockThreads, kDequantScalarBlockThreads);
    if (!plan) reject("shape", "E*N*K needs more than 2^31-1 blocks of 256 threads");
    l.plan = *plan;
  }
  validate_launch_plan(l.plan);
  return l;
}

LaunchPlan dequantize(Backend& backend, const DequantizeArgs& args) {
  return launch_planned(backend, plan_dequantize(args));
}

}  // namespace mxv::device
