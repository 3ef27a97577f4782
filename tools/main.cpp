// The `mxv` program: parses arguments with CLI11 and dispatches to the verbs each folder's
// library provides. No verb logic lives here.
#include <CLI/CLI.hpp>

#include "mxv/reference/convert_cli.h"
#include "mxv/reference/quantize_cli.h"
#include "mxv/reference/swiglu_cli.h"
#include "mxv/golden/verify_cli.h"
#include "golden_cli.h"

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  CLI::App app{"mxv: bit-exact reference models and verified kernels for MXFP4/NVFP4"};
  app.require_subcommand(1);
  // Verbs register here, one line each: add_<verb>_command(app).
  mxv::add_convert_command(app);
  mxv::add_swiglu_quantize_command(app);
  mxv::add_quantize_command(app);
  mxv::add_dequantize_command(app);
  mxv::add_verify_command(app);
  mxv::add_golden_command(app, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (or the help). Every usage error exits with 2, like a bad input file.
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mxv: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
