// Case comparison for the golden verbs (golden_compare.h).
#include "mxv/golden/golden_compare.h"

#include <algorithm>
#include <cstring>

namespace mxv::golden {

std::size_t bytes_differing(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  if (a.size() != b.size()) return std::max(a.size(), b.size());
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) n += a[i] != b[i] ? 1u : 0u;
  return n;
}

namespace {

bool same_float(const std::optional<float>& a, const std::optional<float>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || std::memcmp(&*a, &*b, sizeof(float)) == 0;
}

void compare_datasets(const std::string& group, const std::vector<Dataset>& a, const std::vector<Dataset>& b,
                      std::vector<std::string>& out) {
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i >= a.size() || i >= b.size()) {
      out.push_back(group + "/" + (i < a.size() ? a[i].spec.name : b[i].spec.name) + " only on one side");
      continue;
    }
    const std::string name = group + "/" + a[i].spec.name;
    if (a[i].spec.name != b[i].spec.name || a[i].spec.shape != b[i].spec.shape || a[i].spec.kind != b[i].spec.kind) {
      out.push_back(name + " name, shape or kind differs");
      continue;
    }
    const std::size_t n = bytes_differing(a[i].bytes, b[i].bytes);
    if (n != 0) out.push_back(name + " " + std::to_string(n) + " of " + std::to_string(a[i].bytes.size()) + " bytes");
  }
}

}  // namespace

std::vector<std::string> case_differences(const GoldenCase& a, const GoldenCase& b) {
  std::vector<std::string> out;
  const CaseParams& p = a.params;
  const CaseParams& q = b.params;
  auto param = [&](bool same, const char* name) {
    if (!same) out.push_back(std::string("parameter ") + name);
  };
  param(p.op == q.op, "op");
  param(p.format == q.format, "format");
  param(p.mode.rounding == q.mode.rounding && p.mode.saturation == q.mode.saturation && p.mode.dialect == q.mode.dialect,
        "conversion mode");
  param(p.recipe == q.recipe, "recipe");
  param(p.dtype == q.dtype, "dtype");
  param(p.experts == q.experts && p.rows == q.rows && p.cols == q.cols, "shape");
  param(p.groups == q.groups, "groups");
  param(p.scale_layout == q.scale_layout, "scale_layout");
  param(p.packing == q.packing, "packing");
  param(p.gate_up == q.gate_up, "gate_up_layout");
  param(same_float(p.tensor_amax, q.tensor_amax), "tensor_amax");
  if (a.why != b.why) out.emplace_back("why");
  if (a.oracle != b.oracle) out.emplace_back("oracle");
  compare_datasets("inputs", a.inputs, b.inputs, out);
  compare_datasets("expected", a.expected, b.expected, out);
  return out;
}

bool CaseReports::ok() const {
  return std::all_of(reports.begin(), reports.end(), [](const check::Report& r) { return r.ok(); });
}

std::string CaseReports::class_summary() const {
  std::array<std::size_t, check::kMismatchClassCount> total{};
  for (const check::Report& r : reports) {
    for (std::size_t k = 0; k < total.size(); ++k) total[k] += r.counts[k];
  }
  std::string s;
  for (std::size_t k = 0; k < total.size(); ++k) {
    if (total[k] == 0) continue;
    s += (s.empty() ? "" : ", ") + std::string(check::to_string(static_cast<check::MismatchClass>(k))) + " " +
         std::to_string(total[k]);
  }
  return s;
}

CaseReports compare_case_outputs(const GoldenCase& c, std::span<const Dataset> expected,
                                 const std::vector<std::vector<std::uint8_t>>& actual, const check::Options& options) {
  CaseReports out;
  const std::unique_ptr<ReferenceRun> ref = run_reference(c.params, c.inputs);
  bool reproduces = ref->outputs.size() == expected.size();
  for (std::size_t i = 0; reproduces && i < expected.size(); ++i) reproduces = ref->outputs[i].bytes == expected[i].bytes;
  if (!reproduces) {
    out.note = "the reference at this revision does not reproduce the stored expectation (run `mxv golden regen "
               "--check`); mismatches are shown without the model's context";
  }
  for (std::size_t i = 0; i < expected.size() && i < actual.size(); ++i) {
    const check::Context ctx = reproduces ? ref->contexts[i] : check::Context{};
    out.reports.push_back(check::compare(ref->check_specs[i], expected[i].bytes, actual[i], ctx, options));
  }
  return out;
}

}  // namespace mxv::golden
