// The `mxv` program: parses arguments with CLI11 and dispatches to the verbs each folder's
// library provides. No verb logic lives here.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  CLI::App app{"mxv: bit-exact reference models and verified kernels for MXFP4/NVFP4"};
  app.require_subcommand(1);
  // Verbs register here, one line each: add_<verb>_command(app).
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);  // CLI11 prints the message; usage errors exit with code 2 below
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mxv: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
