// `mxv convert`: options only; the logic is run_convert (reference/convert_command.h).
#include <unistd.h>

#include <iostream>
#include <memory>

#include "mxv/cli/verbs.h"
#include "mxv/cli/vocabulary.h"
#include "mxv/reference/convert_command.h"

namespace mxv::cli {

void add_convert_verb(CLI::App& app) {
  const auto [cmd, req] = add_verb<ConvertRequest>(
      app, "convert",
      "Convert raw little-endian fp32/bf16/fp16 files to format codes (one per byte) and back, "
      "or sweep all 2^32 fp32 patterns printing one SHA-256 per 2^24-pattern chunk");
  add_text(*cmd, "--format", req->format, "e2m1 | e4m3 | ue4m3 | e8m0 (required)", kName);
  add_text(*cmd, "--rounding", req->rounding,
           "nearest-even | toward-zero | up (default: the first the format supports in the dialect, "
           "in the order nearest-even, up, toward-zero); encoding only",
           kName);
  add_text(*cmd, "--saturation", req->saturation,
           "finite | none (default: finite if the dialect supports it, else none); encoding only", kName);
  add_text(*cmd, "--dialect", req->dialect, "cuda | ml_dtypes (= ml_dtypes@0.7) | ml_dtypes@0.6 | torch (= torch@2.15) | torch@2.11 (default cuda)", kName);
  add_dtype(*cmd, req->dtype, "fp32 | bf16 | fp16", "element type of the input values (encoding)");
  add_out_dtype(*cmd, req->out_dtype, "element type of the output values (with --decode)");
  cmd->add_flag("--decode", req->decode, "codes in, --out-dtype values out (exact)");
  add_input(*cmd, req->input, "input file: values (encoding) or codes (--decode), raw little-endian");
  add_output(*cmd, req->output, "output file");
  add_text(*cmd, "--sweep", req->sweep, "fp32: every fp32 bit pattern in increasing order (needs --digest)", kName);
  cmd->add_flag("--digest", req->digest, "with --sweep: print 'k <sha256>' per chunk k of 2^24 patterns");
  add_text(*cmd, "--chunks", req->chunks, "with --sweep: LO:HI, only chunks LO..HI-1 (default 0:256)", "INT:INT");
  cmd->callback([req] {
    if (req->format.empty()) throw std::invalid_argument("--format: required (e2m1, e4m3, ue4m3, e8m0)");
    req->progress = ::isatty(2) != 0;
    run_convert(*req, std::cout);
  });
}

}  // namespace mxv::cli
