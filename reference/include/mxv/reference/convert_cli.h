// Registers `mxv convert` with the CLI11 program in tools/main.cpp: option parsing only; the
// verb's logic is run_convert (convert_command.h). Header-only so that mxv::reference itself
// does not depend on CLI11; include it only from tools/.
#pragma once

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "mxv/reference/convert_command.h"

namespace mxv {

/// Adds the `convert` subcommand; errors surface as exceptions (main prints them, exit code 2).
inline void add_convert_command(CLI::App& app) {
  auto req = std::make_shared<ConvertRequest>();
  CLI::App* cmd = app.add_subcommand(
      "convert",
      "Convert raw little-endian fp32/bf16/fp16 files to format codes (one per byte) and back, "
      "or sweep all 2^32 fp32 patterns printing one SHA-256 per 2^24-pattern chunk");
  // Plain strings: run_convert validates them and names the rule a bad value breaks.
  // Unknown options and a missing --format are reported by run_convert's checks (exit code 2),
  // not by CLI11 (whose codes are 100+).
  cmd->allow_extras();
  cmd->add_option("--format", req->format, "e2m1 | e4m3 | ue4m3 | e8m0 (required)");
  cmd->add_option("--rounding", req->rounding,
                  "nearest-even | toward-zero | up (default: the first the format supports in "
                  "the dialect, in that order of nearest-even, up, toward-zero)");
  cmd->add_option("--saturation", req->saturation,
                  "finite | none (default: finite if the dialect supports it, else none)");
  cmd->add_option("--dialect", req->dialect, "cuda | ml_dtypes | torch")->capture_default_str();
  cmd->add_option("--type", req->type, "fp32 | bf16 | fp16: element type of the input (or of "
                                       "the output with --decode)")
      ->capture_default_str();
  cmd->add_flag("--decode", req->decode, "codes in, --type values out (exact)");
  cmd->add_option("--input,-i", req->input, "input file (raw little-endian)");
  cmd->add_option("--output,-o", req->output, "output file (written whole or not at all)");
  cmd->add_option("--sweep", req->sweep, "fp32: every fp32 bit pattern in increasing order");
  cmd->add_flag("--digest", req->digest, "print 'k <sha256>' per chunk k of 2^24 patterns");
  cmd->add_option("--chunks", req->chunks, "LO:HI: only chunks LO..HI-1")->capture_default_str();
  cmd->callback([req, cmd] {
    if (!cmd->remaining().empty()) {
      std::string extras;
      for (const std::string& e : cmd->remaining()) extras += " '" + e + "'";
      throw std::invalid_argument("convert: unknown option or argument" + extras);
    }
    if (req->format.empty()) throw std::invalid_argument("--format: required (e2m1, e4m3, ue4m3, e8m0)");
    req->progress = ::isatty(2) != 0;
    run_convert(*req, std::cout);
  });
}

}  // namespace mxv
