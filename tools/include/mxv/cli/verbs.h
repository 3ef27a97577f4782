// The verbs of the `mxv` program. Each add_*_verb registers one subcommand's options (through
// vocabulary.h) and a callback that runs the verb's logic from its library; nothing else lives
// in tools/. A new verb adds one function here, one file in tools/src and one line in
// program.cpp's verb table.
#pragma once

#include <CLI/CLI.hpp>

namespace mxv::cli {

void add_convert_verb(CLI::App& app);
void add_quantize_verb(CLI::App& app);
void add_dequantize_verb(CLI::App& app);
void add_swiglu_quantize_verb(CLI::App& app);
/// `verify`, `golden` and `fuzz` end in a verdict (0 every case passed, 1 one failed or something
/// changed): their callback stores it in `exit_code`, which run_program returns (an exception is
/// a usage error or bad input, exit code 2).
void add_verify_verb(CLI::App& app, int& exit_code);
/// `golden` records the command line as typed in the files it writes, hence argc / argv.
void add_golden_verb(CLI::App& app, int argc, char** argv, int& exit_code);
void add_fuzz_verb(CLI::App& app, int& exit_code);

}  // namespace mxv::cli
