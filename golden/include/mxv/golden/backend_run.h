// Running kernels on a backend for checking (docs/design.md section 3.5, "Backends"): which
// backends a --backend option selects, the guarded download that lets the check library see
// out-of-bounds writes, and one golden case run through the production kernels' host launchers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mxv/golden/golden_case.h"
#include "mxv/check/check.h"

namespace mxv::device {
class Backend;
class DeviceBuffer;
}  // namespace mxv::device

namespace mxv::golden {

/// The backends "auto" (every available one, cuda first), "cuda" or "emulated" name. `skipped`
/// says, for auto, which backend was left out and why. Throws std::invalid_argument for another
/// name or a named backend that is unavailable (with the reason): a usage error.
struct BackendSelection {
  std::vector<std::unique_ptr<device::Backend>> backends;
  std::vector<std::string> skipped;  ///< "cuda: built without CUDA (MXV_ENABLE_CUDA=OFF)"
};
BackendSelection select_backends(std::string_view spec);

/// The byte outputs are filled with before a run (a slot still holding it was never written).
inline constexpr std::uint8_t kOutputSentinel = 0xCD;

/// Downloads `buf` with its guard bytes, mapped so that an intact guard reads
/// guarded_check_options().guard_fill (the backend's guard pattern depends on the position; the
/// mapping is a bijection per position, so a damaged byte never reads as intact).
std::vector<std::uint8_t> download_guarded(device::Backend& backend, const device::DeviceBuffer& buf);
/// check::Options matching download_guarded: guard sizes and fill, and the output sentinel.
check::Options guarded_check_options();

/// A golden case's outputs as a backend's kernels produced them.
struct BackendResult {
  bool supported = false;
  std::string unsupported_reason;  ///< the launcher's own words when it rejects the case
  std::vector<std::vector<std::uint8_t>> outputs;  ///< output_specs order, guard bytes included
  std::string variant;                             ///< the launch log's kernels, "+"-joined
  std::vector<std::string> findings;               ///< emulator findings and damaged input guards
};

/// Uploads the case's inputs, runs the matching kernel (convert, quantize, dequantize,
/// swiglu_quantize) through its host launcher, and downloads every output with its guards. A case
/// the kernels do not implement (another dialect or preset, a format without a kernel) comes back
/// with supported = false and the reason. Exceptions other than that rejection propagate.
BackendResult run_on_backend(device::Backend& backend, const GoldenCase& c);

}  // namespace mxv::golden
