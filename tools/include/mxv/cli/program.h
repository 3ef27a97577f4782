// The `mxv` program's top level (docs/cli.md): the verb table, `mxv help [VERB]`,
// `mxv --version`, an unknown verb answered with the verb list and the nearest name, and the
// exit codes (0 success, 1 a check found a mismatch, 2 bad usage or bad input).
#pragma once

#include <string>

namespace mxv::cli {

/// "0.1.0 (git <revision>)": the project version and the git revision at configure time.
std::string version_text();

/// Runs the program on argv; returns the exit code.
int run_program(int argc, char** argv);

}  // namespace mxv::cli
