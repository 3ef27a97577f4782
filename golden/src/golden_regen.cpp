// `mxv golden regen [--check] [FILE...]` (golden_tool.h): regenerate golden files from the
// reference and say exactly what moved. Each file's family is its stem (golden/quantize.h5 holds
// the family "quantize"), so any path can be regenerated or checked, not only the committed set.
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

std::string family_of(const std::string& path) {
  const std::string stem = std::filesystem::path(path).stem().string();
  for (const std::string_view f : golden_families()) {
    if (f == stem) return stem;
  }
  throw GoldenFileError(path, "", "not a golden family file: its name must be one of codes.h5, quantize.h5, dequantize.h5, swiglu.h5");
}

struct FilePlan {
  std::string path;
  std::string family;
};

}  // namespace

int run_regen(const RegenOptions& o, std::ostream& out, std::ostream& err) {
  std::vector<FilePlan> plans;
  try {
    if (o.files.empty()) {
      for (const std::string_view f : golden_families()) plans.push_back({committed_file(f), std::string(f)});
    } else {
      for (const std::string& p : o.files) {
        if (std::filesystem::is_directory(p)) throw GoldenFileError(p, "", "is a directory, not a golden file");
        plans.push_back({p, family_of(p)});
      }
    }
    // Before anything is written: every file may be written (no device, pipe or folder; a link
    // leads to its target), and an existing one is an mxv golden file, never a user's file that
    // happens to carry a family's name.
    for (const FilePlan& plan : plans) {
      (void)io::output_target("FILE", plan.path);
      if (!std::filesystem::exists(plan.path)) continue;
      const std::string why = why_regen_may_not_replace(plan.path);
      if (!why.empty()) {
        throw GoldenFileError(plan.path, "", why + "; regen replaces only mxv golden files, so it was left alone (remove it "
                                               "to write a new one)");
      }
    }
  } catch (const std::exception& e) {
    err << "mxv golden regen: error: " << e.what() << "\n";
    return 2;
  }

  bool any_change = false;
  for (const FilePlan& plan : plans) {
    const std::vector<GoldenCase> fresh = generate_family(plan.family, kGoldenSeed);
    std::map<std::string, const GoldenCase*> old_by_name;
    GoldenFile old;
    std::string unreadable;
    const bool exists = std::filesystem::exists(plan.path);
    if (exists) {
      try {
        old = read_golden_file(plan.path);
        for (const GoldenCase& c : old.cases) old_by_name[c.name] = &c;
      } catch (const GoldenFileError& e) {
        unreadable = e.what();
      }
    }
    std::size_t added = 0, removed = 0, changed = 0, same = 0;
    std::vector<std::string> lines;
    for (const GoldenCase& c : fresh) {
      const auto it = old_by_name.find(c.name);
      if (it == old_by_name.end()) {
        ++added;
        lines.push_back("  added   " + c.name);
        continue;
      }
      const std::vector<std::string> diffs = case_differences(*it->second, c);
      if (diffs.empty()) {
        ++same;
      } else {
        ++changed;
        std::string line = "  changed " + c.name + ":";
        for (const std::string& d : diffs) line += " " + d + ";";
        line.pop_back();
        lines.push_back(line);
      }
      old_by_name.erase(it);
    }
    for (const auto& [name, c] : old_by_name) {
      ++removed;
      lines.push_back("  removed " + name);
    }
    const bool file_changes = added + removed + changed > 0 || !unreadable.empty() || !exists;
    any_change = any_change || file_changes;
    out << plan.path << ": " << fresh.size() << " cases: " << same << " unchanged, " << changed << " changed, " << added
        << " added, " << removed << " removed";
    if (!exists) out << " (no file yet)";
    if (!unreadable.empty()) out << " (the existing file is unreadable: " << unreadable << ")";
    if (!file_changes) out << "; left as it is";
    out << "\n";
    // Added cases of a new file are the whole file: listing them says nothing.
    if (exists && unreadable.empty()) {
      for (const std::string& l : lines) out << l << "\n";
    }
    if (file_changes && !o.check) {
      try {
        Provenance prov = Provenance::current("mxv golden regen", o.command_line, kGoldenSeed);
        prov.family = plan.family;
        write_golden_file(plan.path, prov, fresh);
        out << "  written\n";
      } catch (const std::exception& e) {
        err << "mxv golden regen: error: " << e.what() << "\n";
        return 2;
      }
    }
  }
  if (o.check && any_change) {
    out << "mxv golden regen --check: the reference no longer reproduces the files above; if the change is "
           "intended, run `mxv golden regen` and commit the files\n";
    return 1;
  }
  return 0;
}

}  // namespace mxv::golden
