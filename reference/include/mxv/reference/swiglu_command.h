// The logic of `mxv swiglu-quantize` (issue 3, "CLI"): a raw little-endian GEMM output
// [rows, 2I] (fp32 or bf16) -> SwiGLU -> NVFP4 packed codes, block scales (swizzled 128x4 per
// expert by default) and the global scale(s), through the models of swiglu_quantize.h. tools/
// only parses the options (swiglu_cli.h); run_swiglu_quantize validates every field, throws
// std::invalid_argument naming the option and the rule broken, and writes either every output
// file or none (each goes to FILE.tmp first and is renamed once all are written).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace mxv {

/// What `mxv swiglu-quantize` was asked to do, as typed on the command line.
struct SwigluQuantizeRequest {
  std::string input;                         // raw [rows, 2I] (required)
  std::string dtype = "fp32";                // fp32 | bf16
  std::string intermediate_size;             // I (required): the input has 2*I columns
  std::optional<std::string> rows;           // default: from the file size
  std::string layout = "halves";             // halves | interleaved:G
  std::string activation = "silu";           // silu | swiglu-clamped
  std::optional<std::string> alpha;          // swiglu-clamped only; default 1.702
  std::optional<std::string> limit;          // swiglu-clamped only; default 7
  std::string intermediate = "fp32";         // fp32 | bf16: precision before quantizing
  std::string recipe = "nvfp4_te";           // any NVFP4 preset
  std::optional<std::string> rows_per_expert;  // "a,b,c": grouped rows
  std::string scale_layout = "swizzled";     // swizzled | linear
  bool scale_per_expert = false;             // one global scale per expert
  std::optional<std::string> tensor_amax;    // given amax; default: first pass
  bool unfused = false;                      // model the unfused pair (swiglu -> bf16 -> quantize)
  std::string out_codes;                     // required
  std::string out_scales;                    // required
  std::string out_global;                    // required
  std::optional<std::string> out_activated;  // optional: the fp32 values that were quantized
};

/// Runs the request, prints a one-line summary to `out`. Throws std::invalid_argument on bad
/// options or input, std::runtime_error on I/O failure; no output file exists after a throw.
void run_swiglu_quantize(const SwigluQuantizeRequest& request, std::ostream& out);

/// The --help text describing each file's layout (shared by the CLI and the docs).
std::string_view swiglu_quantize_file_layouts();

}  // namespace mxv
