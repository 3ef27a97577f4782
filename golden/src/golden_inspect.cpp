// `mxv golden describe`, `diff` and `template` (golden_tool.h): reading files for people, and
// writing the candidate files other implementations fill in.
#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <ostream>

#include "mxv/golden/golden_catalogue.h"
#include "mxv/golden/golden_compare.h"
#include "mxv/golden/golden_file.h"
#include "mxv/golden/golden_tool.h"
#include "mxv/golden/hdf5_file.h"
#include "mxv/io/output_files.h"

namespace mxv::golden {

namespace {

std::string shape_text(const std::vector<std::uint64_t>& s) {
  std::string t = "[";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

std::string datasets_text(const std::vector<Dataset>& ds) {
  std::string t;
  for (const Dataset& d : ds) {
    t += (t.empty() ? "" : ", ") + d.spec.name + " " + std::string(check::to_string(d.spec.kind)) + " " + shape_text(d.spec.shape);
    if (d.spec.layout != check::Layout::kRowMajor) t += " " + std::string(check::to_string(d.spec.layout));
  }
  return t;
}

void print_provenance(const GoldenFile& f, std::ostream& out) {
  const Provenance& p = f.provenance;
  out << f.path << "\n"
      << "  schema        " << kSchemaName << " version " << kSchemaVersion << ", content " << p.content
      << (p.family.empty() ? "" : ", family " + p.family) << "\n"
      << "  written by    " << p.generator << " (mxv " << p.mxv_version << ", git " << p.git_revision << ")\n"
      << "  command       " << p.command_line << "\n"
      << "  reference     " << p.reference_model << "\n"
      << "  created       " << p.created << ", seed " << p.seed << "\n";
}

}  // namespace

int run_describe(const std::string& file, std::ostream& out, std::ostream& err) {
  GoldenFile f;
  try {
    f = read_golden_file(file);
  } catch (const GoldenFileError& e) {
    err << "mxv golden describe: error: " << e.what() << "\n";
    return 2;
  }
  print_provenance(f, out);
  const bool candidate = f.provenance.content == "candidate";
  out << "  " << f.cases.size() << " case" << (f.cases.size() == 1 ? "" : "s") << " (all datasets present, of the right "
      << "dtype and shape" << (candidate ? "; inputs" : "; every dataset") << " matching its SHA-256)\n";
  for (const GoldenCase& c : f.cases) {
    out << "\n  " << c.name << "\n"
        << "    " << c.params.summary() << "\n";
    if (c.params.op != Op::kEncode && c.params.op != Op::kDecode) out << "    recipe   " << to_string(c.params.recipe) << "\n";
    out << "    inputs   " << datasets_text(c.inputs) << "\n"
        << "    " << (candidate ? "outputs  " : "expected ") << datasets_text(c.expected) << "\n"
        << "    oracle   " << c.oracle << "\n";
    if (!c.why.empty()) out << "    why      " << c.why << "\n";
  }
  return 0;
}

int run_diff(const std::string& a_path, const std::string& b_path, std::ostream& out, std::ostream& err) {
  GoldenFile a, b;
  try {
    a = read_golden_file(a_path);
    b = read_golden_file(b_path);
  } catch (const GoldenFileError& e) {
    err << "mxv golden diff: error: " << e.what() << "\n";
    return 2;
  }
  std::map<std::string, const GoldenCase*> in_b;
  for (const GoldenCase& c : b.cases) in_b[c.name] = &c;
  std::size_t differ = 0, same = 0, only_a = 0;
  for (const GoldenCase& ca : a.cases) {
    const auto it = in_b.find(ca.name);
    if (it == in_b.end()) {
      ++only_a;
      out << "only in " << a_path << ": " << ca.name << "\n";
      continue;
    }
    const GoldenCase& cb = *it->second;
    in_b.erase(it);
    const std::vector<std::string> d = case_differences(ca, cb);
    if (d.empty()) {
      ++same;
      continue;
    }
    ++differ;
    out << "differs: " << ca.name << "\n";
    for (const std::string& x : d) out << "  " << x << "\n";
    // Outputs of the same computation that differ: explain them, A's bytes as the expectation.
    if (ca.params.summary() == cb.params.summary() && ca.expected.size() == cb.expected.size()) {
      std::vector<std::vector<std::uint8_t>> actual;
      for (const Dataset& x : cb.expected) actual.push_back(x.bytes);
      bool shapes_match = true;
      for (std::size_t i = 0; i < ca.expected.size(); ++i) shapes_match = shapes_match && ca.expected[i].bytes.size() == actual[i].size();
      if (shapes_match) {
        check::Options opt;
        opt.max_listed = 8;
        const CaseReports cr = compare_case_outputs(ca, ca.expected, actual, opt);
        for (const check::Report& r : cr.reports) {
          if (!r.ok()) out << r.text();
        }
      }
    }
  }
  for (const auto& [name, c] : in_b) out << "only in " << b_path << ": " << name << "\n";
  const std::size_t only_b = in_b.size();
  out << same << " equal, " << differ << " differ, " << only_a << " only in A, " << only_b << " only in B\n";
  return differ + only_a + only_b == 0 ? 0 : 1;
}

int run_template(const TemplateOptions& o, std::ostream& out, std::ostream& err) {
  if (o.cases.empty() || o.output.empty()) {
    err << "mxv golden template: error: give --case NAME... and -o FILE\n";
    return 2;
  }
  try {
    (void)io::output_target("-o", o.output);  // before the work: never a folder, a device or a pipe
  } catch (const std::invalid_argument& e) {
    err << "mxv golden template: error: " << e.what() << "\n";
    return 2;
  }
  std::vector<GoldenCase> all;
  for (const std::string_view fam : golden_families()) {
    std::vector<GoldenCase> cs = generate_family(fam, kGoldenSeed);
    all.insert(all.end(), std::make_move_iterator(cs.begin()), std::make_move_iterator(cs.end()));
  }
  std::vector<GoldenCase> picked;
  for (const std::string& pattern : o.cases) {
    std::size_t n = 0;
    for (const GoldenCase& c : all) {
      if (fnmatch(pattern.c_str(), c.name.c_str(), 0) != 0) continue;
      ++n;
      const bool dup = std::any_of(picked.begin(), picked.end(), [&](const GoldenCase& p) { return p.name == c.name; });
      if (!dup) picked.push_back(c);
    }
    if (n == 0) {
      err << "mxv golden template: error: no case matches '" << pattern
          << "' (`mxv golden describe golden/<family>.h5` lists the cases)\n";
      return 2;
    }
  }
  std::sort(picked.begin(), picked.end(), [](const GoldenCase& a, const GoldenCase& b) { return a.name < b.name; });
  try {
    Provenance prov = Provenance::current("mxv golden template", o.command_line, kGoldenSeed);
    prov.content = "candidate";
    write_golden_file(o.output, prov, picked);
  } catch (const std::exception& e) {
    err << "mxv golden template: error: " << e.what() << "\n";
    return 2;
  }
  out << o.output << ": " << picked.size() << " case" << (picked.size() == 1 ? "" : "s")
      << "; fill each case's outputs/ datasets (shape and dtype as written) and run `mxv golden check --candidate "
      << o.output << "`\n";
  return 0;
}

}  // namespace mxv::golden
