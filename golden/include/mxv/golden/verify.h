// `mxv verify`: the curated case catalogue's verification matrix and its runner (docs/design.md
// section 6.4, "mxv verify"; docs/verification.md section 7, "CI scripts": ci/verify runs
// `mxv verify` on every available backend and prints the verification table).
//
// A case is one kernel call: kernel x a preset the kernel supports x an input (or output) dtype x a
// shape from the edge list of docs/verification.md section 5 (rows of 1, odd N, K of 16/48/80/400, both sides of every gate,
// grouped rows 1/127/128/129 per expert, a tiled shape). The runner draws bug-hunting inputs from a
// seeded generator, runs the kernel on a backend with sentinel-filled, guarded outputs, computes the
// reference model's bytes, and compares them byte for byte through the check library (guard bytes
// included); emulator findings and damaged input guards fail the case; the variant that ran is
// recorded from the backend's launch log and, where the catalogue states the gate's answer, checked.
//
// Files: verify_cases.cpp (catalogue + input generator), verify_run.cpp (one case on one backend),
// verify_session.cpp (the whole run: usage, backends, progress, verdict), verify_report.cpp (case
// table, summary per kernel x backend, what was not run, legend, JSON).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mxv/check/check.h"
#include "mxv/fuzz/values.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/recipe.h"

namespace mxv::device {
class Backend;
}

namespace mxv::golden {

/// The kernel families `mxv verify` covers.
enum class VerifyKernel : std::uint8_t { kConvert, kDequantize, kQuantize, kSwigluQuantize };
inline constexpr std::array<VerifyKernel, 4> kAllVerifyKernels = {VerifyKernel::kConvert, VerifyKernel::kDequantize,
                                                                   VerifyKernel::kQuantize, VerifyKernel::kSwigluQuantize};
/// "convert", "dequantize", "quantize", "swiglu-quantize" (the verb names).
std::string_view to_string(VerifyKernel k);
/// The kernel called `name`; throws std::invalid_argument listing the valid names.
VerifyKernel verify_kernel_by_name(std::string_view name);

/// The presets a kernel declares it supports (device::quantize_supported_presets(),
/// dequantize_supported_presets(), swiglu_quantize_supported_presets(); the device tests hold each
/// launcher to its list); convert takes no recipe: the code formats it converts to ("e4m3",
/// "e2m1", "e8m0_rz", "e8m0_rp").
std::vector<std::string> supported_presets(VerifyKernel k);

/// A case's inputs given explicitly (the property tests and `mxv fuzz` generate them, fuzz/). A
/// case without them draws its inputs from its seed (fuzz::bug_hunting_values, fuzz::weight_inputs).
struct CaseInputs {
  std::vector<float> values;   ///< quantize: [rows, cols]; swiglu_quantize: gate/up [rows, 2 * cols]
  fuzz::WeightInputs weights;  ///< dequantize
  /// NVFP4 quantize: a calibrated tensor amax used as given (no amax kernel); unset = computed.
  std::optional<float> tensor_amax;
};

/// One call of one kernel. Field meanings per kernel:
///   convert:         cols = element count; decode = codes -> dtype (else dtype -> codes)
///   dequantize:      experts x [rows = N, cols = K] weights, n_packed selects [E, K, N/2]; dtype = output
///   quantize:        [rows, cols] activations of dtype; groups, swizzled scales
///   swiglu_quantize: [rows, 2 * cols] gate/up of dtype (cols = I); layout, activation, intermediate
struct VerifyCase {
  VerifyKernel kernel = VerifyKernel::kQuantize;
  std::string preset;  ///< recipe preset (convert: the code format)
  WideType dtype = WideType::kFp32;
  std::int64_t experts = 1, rows = 1, cols = 1;
  std::vector<std::int64_t> groups;  ///< grouped (MoE) rows per expert; empty = one group
  bool swizzled = false;             ///< 128x4 swizzled scales (quantize, swiglu_quantize)
  bool n_packed = false;             ///< dequantize: N-packed weights
  bool decode = false;               ///< convert: codes -> wide
  bool specials = false;             ///< NaN / Inf among the inputs
  std::string gate_up_layout = "halves";  ///< swiglu: "halves" | "interleaved:G"
  Activation activation = Activation::kSilu;
  Intermediate intermediate = Intermediate::kFp32;
  std::string expect_variant;  ///< the gate's answer where the catalogue states it ("" = not stated)
  std::string why;             ///< the edge case this shape covers
  /// Explicit inputs (shared, so cases copy cheaply); null = drawn from the case's seed. Not part
  /// of id(): the case is the call, the inputs are data.
  std::shared_ptr<const CaseInputs> inputs;

  /// "M=385 K=64 groups=1/127/128/129 swz" and the like (the table's shape column).
  std::string shape() const;
  /// "fp32", "bf16->e2m1"... (the table's dtype column).
  std::string dtype_label() const;
  /// A stable identifier (kernel/preset/dtype/shape/options): hashed with the run seed into the
  /// case's seed, so a case draws the same inputs whatever else the run contains.
  std::string id() const;
};

/// The variant a launcher's gate must pick, in the catalogue's own words (so a gate that drifts
/// is caught, not recorded): dequantize is tiled iff N is even and K a multiple of 64 (the grid and
/// alignment conditions always hold for the small, guarded shapes of the catalogue and the fuzz
/// cases); quantize is vector iff K is whole blocks of the recipe's block size.
std::string expected_dequantize_variant(std::int64_t n, std::int64_t k);
std::string expected_quantize_variant(std::int64_t k, std::int64_t block_size);

/// The curated catalogue: for every kernel, every supported preset x dtypes x shapes. `quick`: a
/// small subset (every kernel and every supported preset, one dtype, small shapes; seconds on the
/// emulator) for tests and smoke runs.
std::vector<VerifyCase> verify_catalogue(bool quick);

/// The case's own seed: a hash of the run seed and VerifyCase::id().
std::uint64_t case_seed(std::uint64_t run_seed, const VerifyCase& c);


/// Test hook: sees every compared output after download (guard bytes included, already mapped so
/// that intact guards read as Options::guard_fill) and may change it, to plant a bug.
using OutputTamper = std::function<void(const VerifyCase&, std::string_view output, std::vector<std::uint8_t>& actual)>;

/// The outcome of one case on one backend.
struct CaseResult {
  VerifyCase vcase;
  std::string backend;
  std::uint64_t seed = 0;
  std::string variant;  ///< the launch log's kernels, "+"-joined ("amax+quantize_vector")
  std::size_t bytes_compared = 0;
  bool pass = false;
  std::string summary;      ///< "PASS" or the first problem's one-line summary
  std::string full_report;  ///< every failing report's text, findings, guard damage
  std::array<std::size_t, check::kMismatchClassCount> class_counts{};  ///< over all outputs
  double seconds = 0;
};

/// Runs one case on `backend`: inputs from case_seed, outputs sentinel-filled, the reference's bytes
/// compared through the check library. Never throws for a kernel-side problem: an exception from
/// the launcher or the backend becomes a failing result naming it.
CaseResult run_case(device::Backend& backend, const VerifyCase& c, std::uint64_t run_seed,
                    const OutputTamper& tamper = {});

inline constexpr std::uint64_t kDefaultVerifySeed = 20250501;

struct VerifyOptions {
  std::string backend = "auto";  ///< auto | cuda | emulated
  std::string kernel = "all";    ///< convert | dequantize | quantize | swiglu-quantize | all
  bool quick = false;
  std::string require_backend;  ///< "cuda" / "emulated": a usage error (exit 2) when it is unavailable
  bool all_cases = false;       ///< print every case, not only the failing ones
  std::string json_path;  ///< write a JSON report here when non-empty ("-": the output stream, the text to `err`)
  std::uint64_t seed = kDefaultVerifySeed;
  bool progress = false;  ///< progress lines on the error stream (the CLI sets it for a terminal)
  OutputTamper tamper;    ///< test hook (planted bugs)
};

struct VerifyRun {
  int exit_code = 0;  ///< 0 all pass, 1 a case failed, 2 usage error (bad option, unavailable backend)
  std::vector<CaseResult> results;
};

/// The whole verb: checks usage (exit 2 before any case runs), resolves backends (printing which
/// were skipped and why), runs the catalogue on each, prints the failing cases, the summary per
/// kernel x backend, what was not run, a legend and the first failure's full report to `out`;
/// errors and progress go to `err`.
VerifyRun run_verify(const VerifyOptions& options, std::ostream& out, std::ostream& err);

}  // namespace mxv::golden
