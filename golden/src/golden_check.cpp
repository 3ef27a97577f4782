// `mxv golden check` (golden_tool.h): golden files against the kernels on each backend, or a
// candidate file (another implementation's outputs) against the reference. Every comparison goes
// through the check library, so a failure says which bytes differ and why (tie flip, scale off by
// k binades, NaN policy, never written, ...).
#include <algorithm>
#include <ostream>

// The device headers come in through backend_run.h's forward declarations only; the backend
// itself is needed for its name.
#include "mxv/device/backend.h"
#include "mxv/golden/backend_run.h"
#include "mxv/golden/golden_catalogue.h"
#include "mxv/golden/golden_compare.h"
#include "mxv/golden/golden_file.h"
#include "mxv/golden/golden_tool.h"
#include "mxv/golden/hdf5_file.h"
#include "mxv/reference/convert_command.h"

namespace mxv::golden {

namespace {

struct Failure {
  std::string title;
  std::string detail;
};

void add_report_detail(const CaseReports& cr, std::string& detail) {
  if (!cr.note.empty()) detail += "  note: " + cr.note + "\n";
  for (const check::Report& r : cr.reports) {
    if (!r.ok()) detail += r.text();
    if (!detail.empty() && detail.back() != '\n') detail += "\n";
  }
}

int check_candidate(const CheckOptions& o, std::ostream& out, std::ostream& err) {
  GoldenFile f;
  try {
    f = read_golden_file(o.candidate);
    if (f.provenance.content != "candidate") {
      throw GoldenFileError(o.candidate, "", "is a golden file, not a candidate (write one with `mxv golden template`)");
    }
    if (f.cases.empty()) throw GoldenFileError(o.candidate, "", "holds no case: there is nothing to check");
  } catch (const GoldenFileError& e) {
    err << "mxv golden check: error: " << e.what() << "\n";
    return 2;
  }
  check::Options opt;
  opt.sentinel = kCandidateFill;
  opt.max_listed = o.max_listed;
  std::size_t passed = 0, failed = 0;
  std::vector<Failure> failures;
  out << "mxv golden check --candidate " << o.candidate << ": " << f.cases.size() << " case"
      << (f.cases.size() == 1 ? "" : "s") << ", outputs held to the reference (" << f.provenance.reference_model.substr(0, 12)
      << "...)\n";
  std::size_t width = 0;
  for (const GoldenCase& c : f.cases) width = std::max(width, c.name.size());
  for (const GoldenCase& c : f.cases) {
    std::vector<std::vector<std::uint8_t>> actual;
    for (const Dataset& d : c.expected) actual.push_back(d.bytes);  // a candidate's outputs
    const std::unique_ptr<ReferenceRun> ref = run_reference(c.params, c.inputs);
    CaseReports cr = compare_case_outputs(c, ref->outputs, actual, opt);
    for (std::size_t i = 0; i < c.template_sha256.size() && i < ref->outputs.size(); ++i) {
      if (!c.template_sha256[i].empty() && c.template_sha256[i] != mxv::sha256_hex(ref->outputs[i].bytes)) {
        cr.note = "the reference's expectation of " + ref->outputs[i].spec.name +
                  " changed since the template was written (the candidate is held to this revision's reference)";
      }
    }
    out << "  " << c.name << std::string(width - c.name.size(), ' ') << "  ";
    if (cr.ok()) {
      ++passed;
      out << "PASS\n";
      continue;
    }
    ++failed;
    out << "FAIL  " << cr.class_summary() << "\n";
    Failure fl{c.name, ""};
    add_report_detail(cr, fl.detail);
    failures.push_back(std::move(fl));
  }
  for (const Failure& fl : failures) out << "\n" << fl.title << ":\n" << fl.detail;
  out << "\n" << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace

int run_check(const CheckOptions& o, std::ostream& out, std::ostream& err) {
  if (!o.candidate.empty()) {
    if (!o.files.empty()) {
      err << "mxv golden check: error: --candidate takes no other files\n";
      return 2;
    }
    return check_candidate(o, out, err);
  }
  BackendSelection sel;
  std::vector<GoldenFile> files;
  try {
    sel = select_backends(o.backend);
    std::vector<std::string> paths = o.files;
    if (paths.empty()) {
      for (const std::string_view fam : golden_families()) paths.push_back(committed_file(fam));
    }
    for (const std::string& p : paths) {
      files.push_back(read_golden_file(p));
      // A candidate's outputs come from the kernel under test: they are not expectations.
      if (files.back().provenance.content == "candidate") {
        throw GoldenFileError(p, "", "is a candidate file, not a golden file (check it with `mxv golden check --candidate " +
                                         p + "`)");
      }
      if (files.back().cases.empty()) throw GoldenFileError(p, "", "holds no case: there is nothing to check");
    }
  } catch (const std::exception& e) {
    err << "mxv golden check: error: " << e.what() << "\n";
    return 2;
  }
  for (const std::string& s : sel.skipped) out << "mxv golden check: backend " << s << " (skipped)\n";

  const check::Options opt = [&] {
    check::Options x = guarded_check_options();
    x.max_listed = o.max_listed;
    return x;
  }();
  std::vector<Failure> failures;
  for (const auto& backend : sel.backends) {
    std::size_t passed = 0, failed = 0, not_run = 0;
    for (const GoldenFile& f : files) {
      std::size_t fp = 0, ff = 0, fn = 0;
      std::vector<std::string> reasons;
      for (const GoldenCase& c : f.cases) {
        const std::string title = std::string(backend->name()) + " " + f.path + " " + c.name;
        BackendResult br;
        try {
          br = run_on_backend(*backend, c);
        } catch (const std::exception& e) {
          ++ff;
          failures.push_back({title, std::string("  the run threw: ") + e.what() + "\n"});
          continue;
        }
        if (!br.supported) {
          ++fn;
          if (std::find(reasons.begin(), reasons.end(), br.unsupported_reason) == reasons.end() && reasons.size() < 3) {
            reasons.push_back(br.unsupported_reason);
          }
          continue;
        }
        const CaseReports cr = compare_case_outputs(c, c.expected, br.outputs, opt);
        if (cr.ok() && br.findings.empty()) {
          ++fp;
          continue;
        }
        ++ff;
        Failure fl{title + " (" + br.variant + "): " + (cr.ok() ? "emulator findings" : cr.class_summary()), ""};
        add_report_detail(cr, fl.detail);
        for (const std::string& x : br.findings) fl.detail += "  finding: " + x + "\n";
        failures.push_back(std::move(fl));
      }
      out << std::string(backend->name()) << "  " << f.path << ": " << fp << " passed, " << ff << " failed, " << fn
          << " not run (no kernel implements them)\n";
      for (const std::string& r : reasons) out << "    e.g. " << r << "\n";
      passed += fp;
      failed += ff;
      not_run += fn;
    }
    out << std::string(backend->name()) << "  total: " << passed << " passed, " << failed << " failed, " << not_run
        << " not run\n";
  }
  for (const Failure& fl : failures) out << "\nFAIL " << fl.title << "\n" << fl.detail;
  return failures.empty() ? 0 : 1;
}

}  // namespace mxv::golden
