// `mxv golden regen|check|template|describe|diff`: options only; each verb's logic is in golden/
// (golden_tool.h), the file schema in docs/golden-files.md. Exit codes (golden_tool.h): 0
// success, 1 a verification result (changes found, a case failed, files differ), 2 bad usage or
// a bad file.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "mxv/cli/verbs.h"
#include "mxv/cli/vocabulary.h"
#include "mxv/golden/golden_tool.h"

namespace mxv::cli {

namespace {

/// "mxv golden regen --check": the command as typed, without the program's own path.
std::string command_line(int argc, char** argv) {
  std::string s = "mxv";
  for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

}  // namespace

void add_golden_verb(CLI::App& app, int argc, char** argv, int& exit_code) {
  CLI::App* golden = app.add_subcommand(
      "golden", "HDF5 golden files: committed expectations with provenance (schema: docs/golden-files.md)");
  golden->require_subcommand(1);
  const std::string cmdline = command_line(argc, argv);

  const auto [r, regen] = add_verb<golden::RegenOptions>(
      *golden, "regen", "Rewrite golden files from the reference; print per case the bytes changed, cases added and removed");
  regen->command_line = cmdline;
  r->add_flag("--check", regen->check, "change nothing; exit 1 when regeneration would change anything");
  r->add_option("FILE", regen->files,
                "files to regenerate (default: the committed set golden/*.h5); the name's stem is the family: codes, "
                "quantize, dequantize, swiglu");
  r->callback([regen, &exit_code] { exit_code = golden::run_regen(*regen, std::cout, std::cerr); });

  const auto [c, check] = add_verb<golden::CheckOptions>(
      *golden, "check",
      "Run the kernels on golden inputs and compare with the expected outputs (classified report), or check a "
      "candidate file another implementation filled in");
  c->add_option("--backend", check->backend, "auto | cuda | emulated (auto: every available backend)")
      ->capture_default_str();
  c->add_option("--candidate", check->candidate,
                "a file written by `mxv golden template` whose outputs another implementation filled in");
  c->add_option("--max-listed", check->max_listed, "mismatches listed per failing output")->capture_default_str();
  c->add_option("FILE", check->files, "golden files (default: the committed set golden/*.h5)");
  c->callback([check, &exit_code] { exit_code = golden::run_check(*check, std::cout, std::cerr); });

  const auto [t, tmpl] = add_verb<golden::TemplateOptions>(
      *golden, "template", "Write a candidate file: the cases' inputs and empty outputs of the right shape and dtype");
  tmpl->command_line = cmdline;
  t->add_option("--case", tmpl->cases, "case names or shell patterns (quantize.nvfp4_te.*)")->required();
  t->add_option("-o,--output", tmpl->output, "the candidate file to write")->required();
  t->callback([tmpl, &exit_code] { exit_code = golden::run_template(*tmpl, std::cout, std::cerr); });

  const auto [d, describe_file] =
      add_verb<std::string>(*golden, "describe", "List a file's provenance and cases (recipes, shapes, datasets)");
  d->add_option("FILE", *describe_file, "a golden or candidate file")->required();
  d->callback([describe_file, &exit_code] { exit_code = golden::run_describe(*describe_file, std::cout, std::cerr); });

  const auto [df, diff_files] = add_verb<std::vector<std::string>>(
      *golden, "diff", "Compare two golden files per case and dataset, with the classified report where outputs differ");
  // One positional named FILES: CLI11 2.4 (Ubuntu 24.04, the GPU runner) rejects a name with a space.
  df->add_option("FILES", *diff_files, "the two files, A then B")->required()->expected(2)->type_name("A B");
  df->callback([diff_files, &exit_code] {
    exit_code = golden::run_diff(diff_files->at(0), diff_files->at(1), std::cout, std::cerr);
  });
}

}  // namespace mxv::cli
