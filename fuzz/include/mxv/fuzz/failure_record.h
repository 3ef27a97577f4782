// A failing fuzz case written to a file (docs/fuzzing.md "Saved failures"): the recorded kernel
// calls of the shrunk counterexample (properties.h failing_calls) as golden cases in the golden-file
// format (docs/golden-files.md), so `mxv golden check FILE` replays them on every backend and the
// file can be committed as a regression case. Calls without explicit inputs (convert, which draws its
// inputs from its seed) cannot be stored that way; the failure is then written as a text record.
#pragma once

#include <string>
#include <vector>

#include "mxv/golden/golden_case.h"
#include "mxv/golden/verify.h"

namespace mxv::fuzz {

/// The golden case of one recorded call: its parameters, its inputs, the reference's outputs.
/// Throws std::invalid_argument for a call without explicit inputs.
golden::GoldenCase golden_case_of(const golden::VerifyCase& call, std::string name);

/// What a saved failure says besides its calls.
struct FailureRecord {
  std::string property;
  std::string backend;
  std::uint64_t seed = 0;
  int cases = 0;
  std::string replay;
  std::string counterexample;
  std::string report;
};

/// Writes `path`: a golden file of `calls` (one case each, named fuzz-<property>-<i>, the replay
/// command in its provenance) when every call has explicit inputs, else the text record. Returns
/// "golden" or "text"; written all or nothing (a golden file through H5Writer, the text through
/// io::OutputBatch); throws (std::invalid_argument, std::runtime_error) naming the file when it
/// cannot be written.
std::string save_failure(const std::string& path, const FailureRecord& record, const std::vector<golden::VerifyCase>& calls);

}  // namespace mxv::fuzz
