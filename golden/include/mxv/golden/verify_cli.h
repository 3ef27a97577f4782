// Registers `mxv verify` with the CLI11 program in tools/main.cpp: option parsing only; the verb's
// logic is run_verify (verify.h). Header-only so that mxv::golden does not depend on CLI11;
// include it only from tools/.
#pragma once

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "mxv/golden/verify.h"

namespace mxv {

/// Adds `verify`. Exit codes: 0 every case passed, 1 a case failed, 2 a usage error (an unknown
/// option value, an unavailable --backend), the reason printed on stderr.
inline void add_verify_command(CLI::App& app) {
  auto opt = std::make_shared<golden::VerifyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Run the curated case catalogue (every kernel x supported preset x dtype x edge shape) on every "
      "available backend and compare each output byte for byte with the reference model");
  cmd->add_option("--backend", opt->backend, "auto | cuda | emulated (auto: every available backend)")
      ->capture_default_str();
  cmd->add_option("--kernel", opt->kernel, "convert | dequantize | quantize | swiglu_quantize | all")
      ->capture_default_str();
  cmd->add_flag("--quick", opt->quick, "a small subset of the catalogue (seconds on the emulator)");
  cmd->add_option("--json", opt->json_path, "also write the results as JSON to this file");
  cmd->add_option("--seed", opt->seed, "seed of the input generator (each case hashes it with its id)")
      ->capture_default_str();
  cmd->callback([opt] {
    opt->progress = isatty(fileno(stderr)) != 0;
    const int code = golden::run_verify(*opt, std::cout, std::cerr).exit_code;
    if (code != 0) {
      // The verb's verdict is the exit code; main() maps exceptions to 2, so leave directly.
      std::cout.flush();
      std::cerr.flush();
      std::exit(code);
    }
  });
}

}  // namespace mxv
