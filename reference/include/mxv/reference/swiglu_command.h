// The logic of `mxv swiglu-quantize`: a raw little-endian GEMM output [rows, 2I] (fp32 or bf16)
// -> SwiGLU -> NVFP4 packed codes, block scales (swizzled 128x4 per expert by default) and the
// global scale(s), through the models of swiglu_quantize.h. tools/ registers the options
// (docs/cli.md lists the vocabulary every verb shares); run_swiglu_quantize validates every
// field, throws std::invalid_argument naming the option and the rule broken, and writes either
// every output file or none (mxv::io::OutputBatch).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace mxv {

/// What `mxv swiglu-quantize` was asked to do, as typed on the command line.
struct SwigluQuantizeRequest {
  std::string input;                         // raw [rows, 2I] (required)
  std::optional<std::string> dtype;          // fp32 (default) | bf16
  std::string intermediate_size;             // I (required): the input has 2*I columns
  std::optional<std::string> rows;           // default: from the file size
  std::optional<std::string> layout;         // halves (default) | interleaved:G
  std::optional<std::string> activation;     // silu (default) | swiglu-clamped
  std::optional<std::string> alpha;          // swiglu-clamped only; default 1.702
  std::optional<std::string> limit;          // swiglu-clamped only; default 7
  std::optional<std::string> activated_dtype;  // fp32 (default) | bf16: precision before quantizing
  std::optional<std::string> recipe;         // any NVFP4 preset; default nvfp4_te
  std::optional<std::string> rows_per_expert;  // "a,b,c": grouped rows
  std::optional<std::string> scale_layout;   // swizzled (default) | linear
  bool scale_per_expert = false;             // one global scale per expert
  std::optional<std::string> tensor_amax;    // given amax; default: first pass
  bool unfused = false;                      // model the unfused pair (swiglu -> bf16 -> quantize)
  std::string out_elements;                  // required: packed E2M1 codes
  std::string out_scales;                    // required
  std::string out_global;                    // required: fp32 [G] s_dec
  std::optional<std::string> out_activated;  // optional: the fp32 values that were quantized
};

/// Runs the request, prints a one-line summary to `out`. Throws std::invalid_argument on bad
/// options or input, std::runtime_error on I/O failure; no output file exists after a throw.
void run_swiglu_quantize(const SwigluQuantizeRequest& request, std::ostream& out);

/// The --help text describing each file's layout (shared by the CLI and the docs).
std::string_view swiglu_quantize_file_layouts();

}  // namespace mxv
