// The whole `mxv verify` run (verify.h): resolve the backends (auto: every available one, saying
// which was skipped and why; a named unavailable backend is a usage error, exit 2), run the
// catalogue on each, print the verification table, per-backend totals and the first failing
// case's full report, and optionally a JSON file. DESIGN.md "Tests and CI" (ci/verify).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "mxv/device/backend.h"
#include "mxv/emulation/emulated_backend.h"
#include "mxv/golden/backend_run.h"
#include "mxv/golden/verify.h"

namespace mxv::golden {

namespace {

std::string json_escape(std::string_view s) {
  std::string o;
  for (const char ch : s) {
    switch (ch) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(ch)));
          o += buf;
        } else {
          o += ch;
        }
    }
  }
  return o;
}


std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

void print_table(std::ostream& out, const std::vector<CaseResult>& results) {
  std::vector<std::array<std::string, 8>> rows;
  rows.push_back({"kernel", "preset", "dtype", "shape", "backend", "variant", "bytes compared", "result"});
  for (const CaseResult& r : results) {
    rows.push_back({std::string(to_string(r.vcase.kernel)), r.vcase.preset, r.vcase.dtype_label(), r.vcase.shape(), r.backend,
                    r.variant.empty() ? "-" : r.variant, std::to_string(r.bytes_compared),
                    r.pass ? "PASS" : "FAIL " + r.summary});
  }
  std::array<std::size_t, 8> w{};
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < 7; ++i) w[i] = std::max(w[i], row[i].size());
  }
  for (std::size_t ri = 0; ri < rows.size(); ++ri) {
    std::string line;
    for (std::size_t i = 0; i < 8; ++i) {
      line += i == 6 ? std::string(w[i] - rows[ri][i].size(), ' ') + rows[ri][i] : (i == 7 ? rows[ri][i] : pad(rows[ri][i], w[i]));
      if (i != 7) line += " | ";
    }
    out << line << "\n";
    if (ri == 0) {
      std::string rule;
      for (std::size_t i = 0; i < 7; ++i) rule += std::string(w[i], '-') + "-+-";
      out << rule << std::string(6, '-') << "\n";
    }
  }
}

void write_json(const std::string& path, const VerifyOptions& o, const std::vector<CaseResult>& results,
                const std::vector<std::string>& skipped) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("--json: cannot open '" + path + "' for writing");
  f << "{\n  \"seed\": " << o.seed << ",\n  \"quick\": " << (o.quick ? "true" : "false") << ",\n  \"skipped_backends\": [";
  for (std::size_t i = 0; i < skipped.size(); ++i) f << (i ? ", " : "") << "\"" << json_escape(skipped[i]) << "\"";
  f << "],\n  \"cases\": [\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const CaseResult& r = results[i];
    f << "    {\"kernel\": \"" << to_string(r.vcase.kernel) << "\", \"preset\": \"" << json_escape(r.vcase.preset)
      << "\", \"dtype\": \"" << json_escape(r.vcase.dtype_label()) << "\", \"shape\": \"" << json_escape(r.vcase.shape())
      << "\", \"why\": \"" << json_escape(r.vcase.why) << "\", \"backend\": \"" << r.backend << "\", \"variant\": \""
      << json_escape(r.variant) << "\", \"seed\": " << r.seed << ", \"bytes_compared\": " << r.bytes_compared
      << ", \"seconds\": " << r.seconds << ", \"result\": \"" << (r.pass ? "PASS" : "FAIL") << "\", \"summary\": \""
      << json_escape(r.summary) << "\", \"classes\": {";
    bool first = true;
    for (std::size_t k = 0; k < check::kMismatchClassCount; ++k) {
      if (r.class_counts[k] == 0) continue;
      f << (first ? "" : ", ") << "\"" << check::to_string(static_cast<check::MismatchClass>(k)) << "\": " << r.class_counts[k];
      first = false;
    }
    f << "}}" << (i + 1 < results.size() ? "," : "") << "\n";
  }
  f << "  ]\n}\n";
  if (!f) throw std::runtime_error("--json: writing '" + path + "' failed");
}

}  // namespace

VerifyRun run_verify(const VerifyOptions& o, std::ostream& out, std::ostream& err) {
  VerifyRun run;
  // ---- usage: kernel and backend names, availability ----
  std::vector<VerifyKernel> kernels;
  std::vector<std::unique_ptr<device::Backend>> backends;
  std::vector<std::string> skipped;
  try {
    if (o.kernel == "all") {
      kernels.assign(kAllVerifyKernels.begin(), kAllVerifyKernels.end());
    } else {
      kernels.push_back(verify_kernel_by_name(o.kernel));
    }
    BackendSelection sel = select_backends(o.backend);
    backends = std::move(sel.backends);
    for (const std::string& s : sel.skipped) {
      skipped.push_back(s);
      const std::size_t colon = s.find(": ");
      out << "mxv verify: backend " << s.substr(0, colon) << " skipped: " << s.substr(colon + 2) << "\n";
    }
  } catch (const std::exception& e) {
    err << "mxv verify: error: " << e.what() << "\n";
    run.exit_code = 2;
    return run;
  }

  std::vector<VerifyCase> cases;
  for (const VerifyCase& c : verify_catalogue(o.quick)) {
    if (std::find(kernels.begin(), kernels.end(), c.kernel) != kernels.end()) cases.push_back(c);
  }
  out << "mxv verify: seed " << o.seed << " (--seed " << o.seed << " replays this run), " << cases.size() << " case"
      << (cases.size() == 1 ? "" : "s") << (o.quick ? " (--quick)" : "") << " on";
  for (const auto& b : backends) out << " " << b->name();
  out << "\n" << std::flush;

  // ---- run ----
  const std::size_t total = cases.size() * backends.size();
  for (const auto& b : backends) {
    for (const VerifyCase& c : cases) {
      if (o.progress) {
        err << "\r\033[K[" << run.results.size() + 1 << "/" << total << "] " << b->name() << " " << to_string(c.kernel) << " "
            << c.preset << " " << c.dtype_label() << " " << c.shape() << std::flush;
      }
      run.results.push_back(run_case(*b, c, o.seed, o.tamper));
    }
  }
  if (o.progress) err << "\r\033[K" << std::flush;

  // ---- table, totals, first failure ----
  print_table(out, run.results);
  out << "\n";
  const CaseResult* first_failure = nullptr;
  for (const auto& b : backends) {
    std::size_t pass = 0, fail = 0, bytes = 0;
    double seconds = 0;
    for (const CaseResult& r : run.results) {
      if (r.backend != b->name()) continue;
      (r.pass ? pass : fail) += 1;
      bytes += r.bytes_compared;
      seconds += r.seconds;
      if (!r.pass && first_failure == nullptr) first_failure = &r;
    }
    out << "total " << b->name() << ": " << pass << " passed, " << fail << " failed, " << bytes << " bytes compared, "
        << std::fixed << std::setprecision(1) << seconds << " s\n";
    out.unsetf(std::ios::floatfield);
  }
  for (const std::string& s : skipped) out << "skipped " << s << "\n";
  if (first_failure != nullptr) {
    const CaseResult& r = *first_failure;
    out << "\nfirst failure: " << to_string(r.vcase.kernel) << " " << r.vcase.preset << " " << r.vcase.dtype_label() << " "
        << r.vcase.shape() << " on " << r.backend << " (" << r.vcase.why << "; case seed " << r.seed << ", run seed "
        << o.seed << ", variant " << (r.variant.empty() ? "-" : r.variant) << ")\n"
        << r.full_report;
  }
  run.exit_code = first_failure != nullptr ? 1 : 0;
  out << (run.exit_code == 0 ? "mxv verify: all cases PASS\n" : "mxv verify: FAIL\n");
  if (!o.json_path.empty()) {
    try {
      write_json(o.json_path, o, run.results, skipped);
    } catch (const std::exception& e) {
      err << "mxv verify: error: " << e.what() << "\n";
      run.exit_code = 2;
    }
  }
  return run;
}

}  // namespace mxv::golden
