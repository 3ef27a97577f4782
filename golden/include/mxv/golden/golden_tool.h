// The `mxv golden` verbs (docs/golden-files.md, "The tool"). tools/ parses the options and calls
// these; each returns the process exit code:
//   0  success (nothing changed / every case passed / files equal)
//   1  a verification result: regen --check found changes, a case failed, diff found differences
//   2  bad usage or a bad file (missing, a directory, not HDF5, truncated, damaged, not ours, wrong
//      schema version, a dataset missing or of the wrong dtype / shape): one line on `err` naming the
//      file, the case and the problem; nothing is written
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace mxv::golden {

struct RegenOptions {
  bool check = false;               ///< change nothing; exit 1 when regeneration would change anything
  std::vector<std::string> files;   ///< empty: the committed set; a file's stem names its family
  std::string command_line;         ///< recorded in the files' provenance
};
/// Regenerates golden files from the reference and prints, per file, the cases added, removed and
/// changed (per dataset: bytes that differ). A file whose cases are all unchanged is left as it is
/// (its provenance keeps the revision that last changed it).
int run_regen(const RegenOptions& options, std::ostream& out, std::ostream& err);

struct CheckOptions {
  std::string backend = "auto";    ///< auto | cuda | emulated
  std::vector<std::string> files;  ///< empty: the committed set
  std::string candidate;           ///< non-empty: check this candidate file instead of running kernels
  std::size_t max_listed = 8;      ///< mismatches listed per failing output
};
/// Runs the kernels on every case's inputs and compares with the expected outputs through the
/// check library, or (candidate) compares what another implementation wrote with the reference.
int run_check(const CheckOptions& options, std::ostream& out, std::ostream& err);

struct TemplateOptions {
  std::vector<std::string> cases;  ///< case names or shell patterns ("quantize.nvfp4_te.*")
  std::string output;              ///< the candidate file to write
  std::string command_line;
};
/// Writes a candidate file: the named cases' inputs and output datasets of the right shape and
/// dtype, filled with kCandidateFill.
int run_template(const TemplateOptions& options, std::ostream& out, std::ostream& err);

/// Lists a file's provenance and cases (op, recipe, shapes, datasets).
int run_describe(const std::string& file, std::ostream& out, std::ostream& err);

/// Compares two golden files case by case and dataset by dataset, with the check library's
/// classified report where outputs differ.
int run_diff(const std::string& a, const std::string& b, std::ostream& out, std::ostream& err);

}  // namespace mxv::golden
