// `mxv verify`: options only; the logic is run_verify (golden/verify.h). Exit codes: 0 every
// case passed, 1 a case failed, 2 a usage error (docs/cli.md, "mxv verify").
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "mxv/cli/verbs.h"
#include "mxv/cli/vocabulary.h"
#include "mxv/golden/verify.h"
#include "mxv/io/option_value.h"

namespace mxv::cli {

void add_verify_verb(CLI::App& app) {
  auto opt = std::make_shared<golden::VerifyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Run the curated case catalogue (every kernel x supported preset x dtype x edge shape) on every "
      "available backend and compare each output byte for byte with the reference model. Exit codes: 0 every "
      "case passed, 1 a case failed, 2 a usage error (nothing run)");
  add_text(*cmd, "--backend", opt->backend, "auto | cuda | emulated (default auto: every available backend)", kName);
  add_text(*cmd, "--kernel", opt->kernel, "convert | dequantize | quantize | swiglu-quantize | all (default all)", kName);
  add_text(*cmd, "--require-backend", opt->require_backend,
           "cuda | emulated: fail (exit 2) when this backend is unavailable instead of skipping it", kName);
  cmd->add_flag("--quick", opt->quick, "a small subset of the catalogue (seconds on the emulator)");
  cmd->add_flag("--cases", opt->all_cases, "print one line per case (default: only the failing cases)");
  add_text(*cmd, "--json", opt->json_path, "also write the results as JSON to FILE ('-': standard output)", kFile);
  auto seed = std::make_shared<std::optional<std::string>>();
  add_text(*cmd, "--seed", *seed,
           "seed of the input generator, 0 to 2^64 - 1 (each case hashes it with its id) (default " +
               std::to_string(golden::kDefaultVerifySeed) + ")",
           kInt);
  cmd->callback([opt, seed] {
    if (*seed) opt->seed = io::parse_uint64_option("--seed", **seed);
    opt->progress = isatty(fileno(stderr)) != 0;
    const int code = golden::run_verify(*opt, std::cout, std::cerr).exit_code;
    if (code != 0) {
      // The verb's verdict is the exit code; the program maps exceptions to 2, so leave directly.
      std::cout.flush();
      std::cerr.flush();
      std::exit(code);
    }
  });
}

}  // namespace mxv::cli
