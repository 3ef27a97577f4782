// Comparing golden cases: what differs between two versions of a case (regen, diff), and the
// check library's classified report of one output against the reference's expectation (check,
// check --candidate, diff).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "mxv/golden/golden_case.h"
#include "mxv/check/check.h"

namespace mxv::golden {

/// Bytes that differ between two buffers; a size difference counts every byte of the longer one.
std::size_t bytes_differing(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b);

/// One entry per difference between `a` and `b`: a parameter ("parameter recipe"), metadata
/// ("why", "oracle"), or a dataset ("expected/scales 3 of 175 bytes"). Empty when equal.
std::vector<std::string> case_differences(const GoldenCase& a, const GoldenCase& b);

/// Check reports of `actual` outputs (output_specs order, each with `guard` bytes before and after)
/// against `expected`, explained with the reference model's context when the reference reproduces
/// `expected` on the case's inputs (otherwise compared without context; `note` says so).
struct CaseReports {
  std::vector<check::Report> reports;
  std::string note;
  bool ok() const;
  /// "tie-flip 3, sign-of-zero 1" over all outputs; "" when ok.
  std::string class_summary() const;
};
CaseReports compare_case_outputs(const GoldenCase& c, std::span<const Dataset> expected,
                                 const std::vector<std::vector<std::uint8_t>>& actual, const check::Options& options);

}  // namespace mxv::golden
