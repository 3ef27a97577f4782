// The `mxv` program. Everything but this line lives in the mxv::cli library (program.h).
#include "mxv/cli/program.h"

int main(int argc, char** argv) { return mxv::cli::run_program(argc, argv); }
