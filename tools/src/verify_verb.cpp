// `mxv verify`: options only; the logic is run_verify (golden/verify.h). Exit codes: 0 every
// case passed, 1 a case failed, 2 a usage error (docs/cli.md, "mxv verify").
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "mxv/cli/verbs.h"
#include "mxv/cli/vocabulary.h"
#include "mxv/golden/verify.h"
#include "mxv/io/option_value.h"

namespace mxv::cli {

void add_verify_verb(CLI::App& app, int& exit_code) {
  const auto [cmd, opt] = add_verb<golden::VerifyOptions>(
      app, "verify",
      "Run the curated case catalogue (every kernel x supported preset x dtype x edge shape) on every "
      "available backend and compare each output byte for byte with the reference model. " +
          checking_exit_codes("a case failed") + " (nothing run)");
  add_backend(*cmd, opt->backend);
  add_text(*cmd, "--kernel", opt->kernel, "convert | dequantize | quantize | swiglu-quantize | all (default all)", kName);
  add_text(*cmd, "--require-backend", opt->require_backend,
           "cuda | emulated: fail (exit 2) when this backend is unavailable instead of skipping it", kName);
  cmd->add_flag("--quick", opt->quick, "a small subset of the catalogue (seconds on the emulator)");
  cmd->add_flag("--cases", opt->all_cases, "print one line per case (default: only the failing cases)");
  add_text(*cmd, "--json", opt->json_path, "also write the results as JSON to FILE ('-': standard output)", kFile);
  auto seed = std::make_shared<std::optional<std::string>>();
  add_seed(*cmd, *seed, "seed of the input generator", "each case hashes it with its id", golden::kDefaultVerifySeed);
  cmd->callback([opt, seed, &exit_code] {
    if (*seed) opt->seed = io::parse_uint64_option("--seed", **seed);
    opt->progress = isatty(fileno(stderr)) != 0;
    exit_code = golden::run_verify(*opt, std::cout, std::cerr).exit_code;
  });
}

}  // namespace mxv::cli
