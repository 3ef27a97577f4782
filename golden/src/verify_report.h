// The printed parts of an `mxv verify` run (verify.h): the per-case table, the summary per
// kernel x backend, what was not run here and why, the legend of abbreviations, and the JSON
// report. Internal to golden/; verify_session.cpp calls these.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "mxv/golden/verify.h"

namespace mxv::golden::report {

/// Something the run did not do, and why ("cuda backend", "no GPU on this machine").
struct NotRun {
  std::string what;
  std::string why;
};

/// "12.3 s".
std::string seconds_text(double seconds);

/// One line per case: kernel, preset, dtype, shape, backend, variant, bytes, result.
void print_case_table(std::ostream& out, const std::vector<const CaseResult*>& rows);
/// Cases, passed, failed, mismatches by class and time per kernel x backend, and per backend
/// the "total <backend>: N passed, M failed, B bytes compared, T s" line.
void print_summary(std::ostream& out, const std::vector<CaseResult>& results, const std::vector<std::string>& backends);
void print_not_run(std::ostream& out, const std::vector<NotRun>& not_run);
void print_legend(std::ostream& out);
/// What the catalogue leaves out for the selected kernels: presets and formats no kernel
/// supports, and the unfused SwiGLU pair.
std::vector<NotRun> not_in_catalogue(const std::vector<VerifyKernel>& kernels);
/// The JSON report: options, totals (overall and per backend), what was not run, every case.
void write_json(std::ostream& os, const VerifyOptions& o, const std::vector<CaseResult>& results,
                const std::vector<std::string>& backends, const std::vector<NotRun>& not_run);

}  // namespace mxv::golden::report
