// `mxv golden regen|check|template|describe|diff`: options only; each verb's logic is in golden/
// (golden_tool.h), the file schema in docs/golden-files.md. Exit codes (golden_tool.h): 0
// success, 1 a verification result (changes found, a case failed, files differ), 2 bad usage or
// a bad file. Options go through the shared vocabulary (vocabulary.h) like every verb's: the same
// type names in --help, integers parsed by mxv::io so "-1" and "0x10" are refused.
#include <CLI/CLI.hpp>
#include <cstddef>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mxv/cli/verbs.h"
#include "mxv/cli/vocabulary.h"
#include "mxv/golden/golden_tool.h"
#include "mxv/io/option_value.h"

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
  add_text(*r, "FILE", regen->files,
           "files to regenerate (default: the committed set golden/*.h5); the name's stem is the family: codes, "
           "quantize, dequantize, swiglu",
           kFile);
  r->callback([regen, &exit_code] { exit_code = golden::run_regen(*regen, std::cout, std::cerr); });

  const auto [c, check] = add_verb<golden::CheckOptions>(
      *golden, "check",
      "Run the kernels on golden inputs and compare with the expected outputs (classified report), or check a "
      "candidate file another implementation filled in");
  add_backend(*c, check->backend);
  add_text(*c, "--candidate", check->candidate,
           "a file written by `mxv golden template` whose outputs another implementation filled in", kFile);
  auto max_listed = std::make_shared<std::optional<std::string>>();
  add_text(*c, "--max-listed", *max_listed,
           "mismatches listed per failing output, >= 0 (default " + std::to_string(check->max_listed) + ")", kInt);
  add_text(*c, "FILE", check->files, "golden files (default: the committed set golden/*.h5)", kFile);
  c->callback([check, max_listed, &exit_code] {
    if (*max_listed) {
      check->max_listed = static_cast<std::size_t>(
          io::parse_int_option("--max-listed", **max_listed, 0, std::numeric_limits<int>::max()));
    }
    exit_code = golden::run_check(*check, std::cout, std::cerr);
  });

  const auto [t, tmpl] = add_verb<golden::TemplateOptions>(
      *golden, "template", "Write a candidate file: the cases' inputs and empty outputs of the right shape and dtype");
  tmpl->command_line = cmdline;
  add_text(*t, "--case", tmpl->cases, "case names or shell patterns (quantize.nvfp4_te.*; required, repeatable)", kName)
      ->required();
  add_text(*t, "-o,--output", tmpl->output, "the candidate file to write (required; written whole or not at all)", kFile)
      ->required();
  t->callback([tmpl, &exit_code] { exit_code = golden::run_template(*tmpl, std::cout, std::cerr); });

  const auto [d, describe_file] =
      add_verb<std::string>(*golden, "describe", "List a file's provenance and cases (recipes, shapes, datasets)");
  add_text(*d, "FILE", *describe_file, "a golden or candidate file", kFile)->required();
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
