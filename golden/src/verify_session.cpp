// run_verify (verify.h): the whole `mxv verify` run. Usage is checked first (kernel, backend,
// --require-backend, the --json path), so a mistake costs milliseconds; then the catalogue runs
// backend by backend, kernel by kernel, with progress on the error stream: a live line on a
// terminal, one line per finished kernel otherwise. Then the failing cases (or every case with
// --cases), the summary per kernel x backend, what was not run and why, the legend, and the
// verdict. Exit codes: 0 every case passed, 1 a case failed, 2 a usage error (docs/cli.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "mxv/device/backend.h"
#include "mxv/golden/backend_run.h"
#include "mxv/golden/verify.h"
#include "mxv/io/output_files.h"
#include "verify_report.h"

namespace mxv::golden {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The availability reason in a user's words: a machine without a GPU is not a driver fault.
std::string plain_reason(const std::string& r) {
  if (r.find("InsufficientDriver") != std::string::npos || r.find("NoDevice") != std::string::npos ||
      r.find("0 devices") != std::string::npos) {
    return "no GPU on this machine (" + r + ")";
  }
  return r;
}

}  // namespace

VerifyRun run_verify(const VerifyOptions& o, std::ostream& out_stream, std::ostream& err) {
  VerifyRun run;
  // With --json - the JSON alone goes to the output stream; the human report to the error stream.
  const bool json_to_stdout = o.json_path == "-";
  std::ostream& out = json_to_stdout ? err : out_stream;

  // ---- usage: kernel and backend names, availability, the --json path ----
  std::vector<VerifyKernel> kernels;
  std::vector<std::unique_ptr<device::Backend>> backends;
  std::vector<report::NotRun> not_run;
  io::OutputBatch json_file;
  try {
    if (o.kernel == "all") {
      kernels.assign(kAllVerifyKernels.begin(), kAllVerifyKernels.end());
    } else {
      kernels.push_back(verify_kernel_by_name(o.kernel));
    }
    if (!o.require_backend.empty() && o.require_backend != "cuda" && o.require_backend != "emulated") {
      throw std::invalid_argument("--require-backend '" + o.require_backend + "' is not one of: cuda, emulated");
    }
    if (!o.require_backend.empty() && o.backend != "auto" && o.backend != o.require_backend) {
      throw std::invalid_argument("--require-backend " + o.require_backend + " contradicts --backend " + o.backend);
    }
    BackendSelection selection = select_backends(o.backend);
    backends = std::move(selection.backends);
    for (const std::string& skip : selection.skipped) {  // "cuda: <reason>"
      const std::size_t colon = skip.find(": ");
      const std::string name = skip.substr(0, colon);
      const std::string why = plain_reason(skip.substr(colon + 2));
      if (name == o.require_backend) {
        throw std::invalid_argument("--require-backend " + name + ": the " + name + " backend is unavailable: " + why);
      }
      not_run.push_back({name + " backend", why});
    }
    if (!o.json_path.empty() && !json_to_stdout) json_file.output("--json", o.json_path);
  } catch (const std::exception& e) {
    err << "mxv verify: " << e.what() << "\n";
    run.exit_code = 2;
    return run;
  }
  for (report::NotRun& n : report::not_in_catalogue(kernels)) not_run.push_back(std::move(n));

  std::vector<VerifyCase> cases;
  for (const VerifyKernel k : kernels) {  // grouped by kernel, so progress can close a kernel at a time
    for (const VerifyCase& c : verify_catalogue(o.quick)) {
      if (c.kernel == k) cases.push_back(c);
    }
  }
  std::vector<std::string> backend_names;
  for (const auto& b : backends) backend_names.emplace_back(b->name());
  out << "mxv verify: seed " << o.seed << " (--seed " << o.seed << " replays this run), " << cases.size() << " case"
      << (cases.size() == 1 ? "" : "s") << (o.quick ? " (--quick)" : "") << " on";
  for (const std::string& b : backend_names) out << " " << b;
  out << "\n";
  for (const report::NotRun& n : not_run) {
    if (n.what.ends_with(" backend")) out << "mxv verify: " << n.what << " skipped: " << n.why << "\n";
  }
  out << std::flush;

  // ---- run, with progress ----
  const Clock::time_point t0 = Clock::now();
  const std::size_t total = cases.size() * backends.size();
  for (const auto& b : backends) {
    for (std::size_t i = 0; i < cases.size();) {
      const VerifyKernel k = cases[i].kernel;
      const Clock::time_point kernel_t0 = Clock::now();
      std::size_t n = 0, failed = 0;
      for (; i < cases.size() && cases[i].kernel == k; ++i, ++n) {
        const VerifyCase& c = cases[i];
        if (o.progress) {
          err << "\r\033[K[" << run.results.size() + 1 << "/" << total << "] " << report::seconds_text(since(t0)) << "  "
              << b->name() << " " << to_string(c.kernel) << " " << c.preset << " " << c.dtype_label() << " " << c.shape()
              << std::flush;
        }
        run.results.push_back(run_case(*b, c, o.seed, o.tamper));
        failed += run.results.back().pass ? 0u : 1u;
      }
      if (!o.progress) {
        err << "mxv verify: " << b->name() << " " << to_string(k) << ": " << n << " cases, " << failed << " failed, "
            << report::seconds_text(since(kernel_t0)) << " (" << run.results.size() << "/" << total << " done, "
            << report::seconds_text(since(t0)) << " elapsed)\n"
            << std::flush;
      }
    }
  }
  if (o.progress) err << "\r\033[K" << std::flush;

  // ---- cases, summary, not run, legend, verdict ----
  std::vector<const CaseResult*> shown;
  const CaseResult* first_failure = nullptr;
  for (const CaseResult& r : run.results) {
    if (!r.pass && first_failure == nullptr) first_failure = &r;
    if (o.all_cases || !r.pass) shown.push_back(&r);
  }
  if (!shown.empty()) {
    out << (o.all_cases ? "Cases:\n" : "Failing cases:\n");
    report::print_case_table(out, shown);
    out << "\n";
  }
  report::print_summary(out, run.results, backend_names);
  report::print_not_run(out, not_run);
  report::print_legend(out);
  if (first_failure != nullptr) {
    const CaseResult& r = *first_failure;
    out << "\nfirst failure: " << to_string(r.vcase.kernel) << " " << r.vcase.preset << " " << r.vcase.dtype_label() << " "
        << r.vcase.shape() << " on " << r.backend << " (" << r.vcase.why << "; case seed " << r.seed << ", run seed "
        << o.seed << ", variant " << (r.variant.empty() ? "-" : r.variant) << ")\n"
        << r.full_report;
  }
  run.exit_code = first_failure != nullptr ? 1 : 0;
  std::size_t failed = 0;
  for (const CaseResult& r : run.results) failed += r.pass ? 0u : 1u;
  out << "\nmxv verify: " << (run.exit_code == 0 ? "PASS" : "FAIL") << ", " << run.results.size() - failed << " of "
      << run.results.size() << " cases passed on";
  for (const std::string& b : backend_names) out << " " << b;
  if (backends.size() == 1 && backend_names.front() == "emulated") out << " only (the GPU was not tested)";
  out << "; " << report::seconds_text(since(t0)) << "\n";

  // ---- JSON ----
  if (!o.json_path.empty()) {
    try {
      std::ostringstream json;
      report::write_json(json, o, run.results, backend_names, not_run);
      if (json_to_stdout) {
        out_stream << json.str() << std::flush;
      } else {
        const std::string text = json.str();
        json_file.set("--json", std::vector<std::uint8_t>(text.begin(), text.end()));
        json_file.commit();
      }
    } catch (const std::exception& e) {
      err << "mxv verify: " << e.what() << "\n";
      run.exit_code = 2;
    }
  }
  return run;
}

}  // namespace mxv::golden
