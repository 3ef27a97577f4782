// The logic of `mxv quantize` and `mxv dequantize`: raw little-endian files in (numpy tofile),
// the block models of quantize.h / dequantize.h / weight_layout.h, raw files out. The options
// are registered in tools/ (docs/cli.md lists the vocabulary every verb shares). Every field is
// the text as typed, and an option that was not given is empty (std::nullopt), so the run
// functions can refuse an option that does not apply to the chosen recipe or kind. Errors throw
// std::invalid_argument naming the option and the rule broken (exit code 2); the outputs are
// written all or nothing through mxv::io::OutputBatch.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace mxv {

/// `mxv quantize`: activations [rows, cols] -> elements, scales, global scales.
struct QuantizeRequest {
  std::string input;                           // raw [rows, cols] (required)
  std::optional<std::string> dtype;            // fp32 (default) | bf16 | fp16
  std::string cols;                            // K (required)
  std::optional<std::string> rows;             // default: from the file size (must match)
  std::optional<std::string> recipe;           // any preset; default nvfp4_te
  std::optional<std::string> scale_layout;     // linear (default) | swizzled
  std::optional<std::string> rows_per_expert;  // "a,b,c": grouped rows
  bool scale_per_expert = false;               // NVFP4: one global scale per expert
  std::optional<std::string> tensor_amax;      // NVFP4: given amax instead of max |x|
  std::optional<std::string> rcp_table;        // nvfp4_trtllm: the rcp.approx table file
  std::string out_elements;                    // required
  std::string out_scales;                      // required
  std::optional<std::string> out_global;       // NVFP4 only, required there: fp32 [G] s_dec
};

/// `mxv dequantize`: activations (elements + scales in a layout) or MoE weights (K- or
/// N-packed) -> fp32 / bf16 / fp16.
struct DequantizeRequest {
  std::optional<std::string> kind;             // activations (default) | weights
  std::optional<std::string> recipe;           // default nvfp4_te
  std::string elements;                        // required
  std::string scales;                          // required
  std::optional<std::string> global;           // NVFP4 only: fp32 [G] s_dec (one, or one per group / expert)
  std::optional<std::string> rows;             // activations: M; weights: N (required)
  std::optional<std::string> cols;             // K (required)
  std::optional<std::string> scale_layout;     // activations: linear (default) | swizzled
  std::optional<std::string> rows_per_expert;  // activations: "a,b,c"
  std::optional<std::string> experts;          // weights: E (required)
  std::optional<std::string> packing;          // weights: k-packed (default) | n-packed
  std::string output;                          // required
  std::optional<std::string> out_dtype;        // fp32 (default) | bf16 | fp16
};

void run_quantize(const QuantizeRequest& request, std::ostream& out);
void run_dequantize(const DequantizeRequest& request, std::ostream& out);

/// The --help texts describing each file's layout.
std::string_view quantize_file_layouts();
std::string_view dequantize_file_layouts();

}  // namespace mxv
