// The printed parts of `mxv verify` (verify_report.h). Tables are plain text padded to the
// widest cell; the JSON goes through the project's one writer (mxv::io::JsonWriter).
#include "verify_report.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <iomanip>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "mxv/io/json_writer.h"
#include "mxv/reference/recipe.h"

namespace mxv::golden::report {
namespace {

std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

// Prints `rows` (the first is the header) as columns; `right` marks right-aligned columns.
void print_columns(std::ostream& out, const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right) {
  std::vector<std::size_t> w(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], row[i].size());
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (std::size_t i = 0; i < rows[r].size(); ++i) {
      const std::string& cell = rows[r][i];
      const bool last = i + 1 == rows[r].size();
      if (right[i]) {
        line += std::string(w[i] - cell.size(), ' ') + cell;
      } else {
        line += last ? cell : pad(cell, w[i]);
      }
      if (!last) line += "  ";
    }
    out << line << "\n";
    if (r == 0) {
      std::string rule;
      for (std::size_t i = 0; i < w.size(); ++i) rule += std::string(w[i], '-') + (i + 1 == w.size() ? "" : "  ");
      out << rule << "\n";
    }
  }
}

std::string classes_text(const std::array<std::size_t, check::kMismatchClassCount>& counts) {
  std::string s;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    if (counts[k] == 0) continue;
    if (!s.empty()) s += ", ";
    s += std::to_string(counts[k]) + " " + std::string(check::to_string(static_cast<check::MismatchClass>(k)));
  }
  return s.empty() ? "-" : s;
}

}  // namespace

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

void print_case_table(std::ostream& out, const std::vector<const CaseResult*>& rows) {
  std::vector<std::vector<std::string>> cells;
  cells.push_back({"kernel", "preset", "dtype", "shape", "backend", "variant", "bytes", "result"});
  for (const CaseResult* r : rows) {
    cells.push_back({std::string(to_string(r->vcase.kernel)), r->vcase.preset, r->vcase.dtype_label(), r->vcase.shape(),
                     r->backend, r->variant.empty() ? "-" : r->variant, std::to_string(r->bytes_compared),
                     r->pass ? "PASS" : "FAIL " + r->summary});
  }
  print_columns(out, cells, {false, false, false, false, false, false, true, false});
}

void print_summary(std::ostream& out, const std::vector<CaseResult>& results, const std::vector<std::string>& backends) {
  struct Cell {
    std::size_t cases = 0, failed = 0, bytes = 0;
    double seconds = 0;
    std::array<std::size_t, check::kMismatchClassCount> classes{};
  };
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"kernel", "backend", "cases", "passed", "failed", "mismatches by class", "time"});
  for (const std::string& b : backends) {
    for (const VerifyKernel k : kAllVerifyKernels) {
      Cell c;
      for (const CaseResult& r : results) {
        if (r.backend != b || r.vcase.kernel != k) continue;
        c.cases += 1;
        c.failed += r.pass ? 0u : 1u;
        c.seconds += r.seconds;
        for (std::size_t i = 0; i < c.classes.size(); ++i) c.classes[i] += r.class_counts[i];
      }
      if (c.cases == 0) continue;
      rows.push_back({std::string(to_string(k)), b, std::to_string(c.cases), std::to_string(c.cases - c.failed),
                      std::to_string(c.failed), classes_text(c.classes), seconds_text(c.seconds)});
    }
  }
  out << "Summary per kernel and backend:\n";
  print_columns(out, rows, {false, false, true, true, true, false, true});
  out << "\n";
  for (const std::string& b : backends) {
    Cell c;
    for (const CaseResult& r : results) {
      if (r.backend != b) continue;
      c.cases += 1;
      c.failed += r.pass ? 0u : 1u;
      c.bytes += r.bytes_compared;
      c.seconds += r.seconds;
    }
    out << "total " << b << ": " << (c.cases - c.failed) << " passed, " << c.failed << " failed, " << c.bytes
        << " bytes compared, " << seconds_text(c.seconds) << "\n";
  }
}

void print_not_run(std::ostream& out, const std::vector<NotRun>& not_run) {
  if (not_run.empty()) return;
  out << "\nNot run here:\n";
  for (const NotRun& n : not_run) out << "  " << n.what << ": " << n.why << "\n";
}

void print_legend(std::ostream& out) {
  out << "\nLegend:\n"
         "  M, N, K, I, E  rows, output features, reduction length, SwiGLU intermediate size, experts\n"
         "  lin / swz      linear / swizzled 128x4 block-scale layout (docs/semantics.md section 5)\n"
         "  k-packed / n-packed  weight nibbles packed along K / along N\n"
         "  groups=a/b/c   grouped (MoE) rows per expert\n"
         "  halves / interleaved:G  SwiGLU gate/up column layout; silu / clamped: the activation\n"
         "  ibf16          the activated value rounded to bf16 before quantizing\n"
         "  nan/inf        NaN and infinities among the inputs\n"
         "  e8m0-rz / e8m0-rp  E8M0 conversion rounding toward zero / toward +infinity\n"
         "  x->code, code->x, fp4->x  encode to codes, decode from codes, dequantize to x\n"
         "  mismatch classes: docs/verification.md section 4 (the check library's classes)\n";
}

std::vector<NotRun> not_in_catalogue(const std::vector<VerifyKernel>& kernels) {
  std::vector<NotRun> out;
  const std::vector<VerifyCase> catalogue = verify_catalogue(false);
  auto covered = [&](VerifyKernel k) {
    std::set<std::string> s;
    for (const VerifyCase& c : catalogue) {
      if (c.kernel == k) s.insert(c.preset);
    }
    return s;
  };
  for (const VerifyKernel k : kernels) {
    const std::set<std::string> have = covered(k);
    std::vector<std::string> missing;
    if (k == VerifyKernel::kConvert) {
      for (const char* f : {"e2m1", "e4m3", "ue4m3", "e8m0-rz", "e8m0-rp"}) {
        if (have.count(f) == 0) missing.emplace_back(f);
      }
    } else {
      for (const std::string_view p : Recipe::preset_names()) {
        if (k == VerifyKernel::kSwigluQuantize && !Recipe::by_name(p).is_nvfp4()) continue;  // NVFP4 by definition
        if (have.count(std::string(p)) == 0) missing.emplace_back(p);
      }
    }
    if (!missing.empty()) {
      std::string list;
      for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
      out.push_back({std::string(to_string(k)) + " " + list,
                     "not in the catalogue: no device kernel supports " +
                         std::string(missing.size() == 1 ? "it" : "them") + " (the reference model does)"});
    }
    if (k == VerifyKernel::kSwigluQuantize) {
      out.push_back({"swiglu-quantize --unfused",
                     "not in the catalogue: the unfused pair is a reference model only (no device kernel)"});
    }
  }
  return out;
}

void write_json(std::ostream& os, const VerifyOptions& o, const std::vector<CaseResult>& results,
                const std::vector<std::string>& backends, const std::vector<NotRun>& not_run) {
  io::JsonWriter j(os, 2);
  j.begin_object();
  j.key("seed").value(o.seed).key("quick").value(o.quick).key("kernel").value(o.kernel).key("backend").value(o.backend);
  std::size_t pass = 0, fail = 0;
  for (const CaseResult& r : results) (r.pass ? pass : fail) += 1;
  j.key("totals").begin_object().key("cases").value(results.size()).key("passed").value(pass).key("failed").value(fail);
  j.key("by_backend").begin_object();
  for (const std::string& b : backends) {
    std::size_t bp = 0, bf = 0, bytes = 0;
    double seconds = 0;
    for (const CaseResult& r : results) {
      if (r.backend != b) continue;
      (r.pass ? bp : bf) += 1;
      bytes += r.bytes_compared;
      seconds += r.seconds;
    }
    j.key(b).begin_object().key("passed").value(bp).key("failed").value(bf).key("bytes_compared").value(bytes)
        .key("seconds").value(seconds).end_object();
  }
  j.end_object().end_object();
  j.key("not_run").begin_array();
  for (const NotRun& n : not_run) j.begin_object().key("what").value(n.what).key("why").value(n.why).end_object();
  j.end_array();
  j.key("cases").begin_array();
  for (const CaseResult& r : results) {
    j.begin_object().key("kernel").value(to_string(r.vcase.kernel)).key("preset").value(r.vcase.preset)
        .key("dtype").value(r.vcase.dtype_label()).key("shape").value(r.vcase.shape()).key("why").value(r.vcase.why)
        .key("backend").value(r.backend).key("variant").value(r.variant).key("seed").value(r.seed)
        .key("bytes_compared").value(r.bytes_compared).key("seconds").value(r.seconds)
        .key("result").value(r.pass ? "PASS" : "FAIL").key("summary").value(r.summary).key("classes").begin_object();
    for (std::size_t k = 0; k < check::kMismatchClassCount; ++k) {
      if (r.class_counts[k] != 0) j.key(check::to_string(static_cast<check::MismatchClass>(k))).value(r.class_counts[k]);
    }
    j.end_object().end_object();
  }
  j.end_array();
  j.end_object();
}

}  // namespace mxv::golden::report
