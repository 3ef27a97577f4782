// A launch plan (docs/design.md section 3.5, "Backends"): which variant of a kernel family runs,
// with which geometry. A host launcher computes it without launching anything; the same value
// drives the GPU launch and the emulator launch, so the emulator checks exactly what the GPU runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mxv/device/kernel_ctx.h"

namespace mxv::device {

// CUDA launch limits (CUDA C Programming Guide, "Compute Capabilities", table of technical
// specifications, identical for sm_90 .. sm_120): launchers check their plans against these so
// that a shape the hardware cannot take is a clear error, never a failed or truncated launch.
inline constexpr unsigned kMaxGridX = 2147483647u;
inline constexpr unsigned kMaxGridYZ = 65535u;
inline constexpr unsigned kMaxThreadsPerBlock = 1024u;
inline constexpr std::size_t kMaxStaticPlusDynamicSmem = 48u * 1024u;  // without opt-in

/// One kernel launch as the host launcher decided it: which variant, which geometry.
struct LaunchPlan {
  /// The variant's name, to_string of the family's variant enum (kernel_family.h), e.g.
  /// "dequantize_tiled": backends map it back to the variant, logs and tests read it.
  std::string kernel;
  Dim3 grid{};
  Dim3 block{};
  std::size_t dynamic_smem_bytes = 0;
  /// For a kernel whose blocks stride over grid.x and each pay a setup first (a staged table): the
  /// CUDA backend launches at most the blocks the device holds at once, one wave (grid.x capped by
  /// the occupancy calculator; y and z must be 1). Other backends run the grid as planned. The
  /// results are the same either way: every block strides over the whole range.
  bool one_wave = false;

  std::uint64_t threads() const {
    return std::uint64_t{grid.x} * grid.y * grid.z * block.x * block.y * block.z;
  }
  /// "dequantize_tiled grid=(8,2,1) block=(8,32,1) smem=0" (" one_wave" after it when set)
  std::string describe() const;
};

/// Throws std::invalid_argument naming the plan and the limit when the geometry cannot launch
/// (an empty grid or block, a grid dimension over its limit, more than 1024 threads per block).
void validate_launch_plan(const LaunchPlan& plan);

/// The plan of `kernel` over `items` work items along x, `per_block` of them per block of
/// `block_threads` threads (grid.x = ceil(items / per_block)); nullopt when that grid would be
/// longer than kMaxGridX, so the launcher names the argument that made it so.
std::optional<LaunchPlan> linear_launch_plan(std::string_view kernel, std::uint64_t items, std::uint64_t per_block,
                                             unsigned block_threads);

}  // namespace mxv::device
