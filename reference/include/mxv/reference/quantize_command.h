// The logic of `mxv quantize` and `mxv dequantize` (issue 3, "CLI"): raw little-endian files in
// (numpy tofile), the block models of quantize.h / dequantize.h / weight_layout.h, raw files out.
// tools/ only parses options (quantize_cli.h). Every field is a string as typed; the run
// functions validate each one and throw std::invalid_argument naming the option and the rule
// broken (main exits with code 2). Outputs are all-or-nothing: each goes to FILE.tmp first and
// all are renamed only once every one is written.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mxv {

/// `mxv quantize`: activations [rows, cols] -> elements, scales, global scales.
struct QuantizeRequest {
  std::string input;                           // raw [rows, cols] (required)
  std::string dtype = "fp32";                  // fp32 | bf16 | fp16
  std::string cols;                            // K (required)
  std::optional<std::string> rows;             // default: from the file size (must match)
  std::string recipe = "nvfp4_te";             // any preset
  std::string scale_layout = "linear";         // linear | swizzled
  std::optional<std::string> rows_per_expert;  // "a,b,c": grouped rows
  bool scale_per_expert = false;               // NVFP4: one global scale per expert
  std::optional<std::string> tensor_amax;      // NVFP4: given amax instead of max |x|
  std::optional<std::string> rcp_table;        // nvfp4_trtllm: the rcp.approx table file
  std::string out_elements;                    // required
  std::string out_scales;                      // required
  std::optional<std::string> out_global;       // required for NVFP4: fp32 s_dec per group
};

/// `mxv dequantize`: activations (elements + scales in a layout) or MoE weights (K- or
/// N-packed) -> fp32 / bf16 / fp16.
struct DequantizeRequest {
  std::string kind = "activations";            // activations | weights
  std::string recipe = "nvfp4_te";
  std::string elements;                        // required
  std::string scales;                          // required
  std::optional<std::string> global;           // NVFP4: fp32 s_dec, one per group / expert (or one)
  // activations
  std::optional<std::string> rows;
  std::optional<std::string> cols;
  std::string scale_layout = "linear";
  std::optional<std::string> rows_per_expert;
  // weights
  std::optional<std::string> experts;
  std::optional<std::string> n;
  std::optional<std::string> k;
  std::string packing = "k-packed";            // k-packed | n-packed
  // output
  std::string out;                             // required
  std::string out_dtype = "fp32";              // fp32 | bf16 | fp16
};

void run_quantize(const QuantizeRequest& request, std::ostream& out);
void run_dequantize(const DequantizeRequest& request, std::ostream& out);

/// The --help texts describing each file's layout.
std::string_view quantize_file_layouts();
std::string_view dequantize_file_layouts();

// Shared by both verbs (and their tests).
/// Parses a whole decimal integer in [min, max]; throws naming `option`.
std::int64_t parse_int_option(std::string_view option, std::string_view text, std::int64_t min, std::int64_t max);
/// "a,b,c" -> counts >= 0; throws naming `option`.
std::vector<std::int64_t> parse_counts_option(std::string_view option, std::string_view text);
/// The whole file; throws std::invalid_argument naming `option` and the path if unreadable.
std::vector<std::uint8_t> read_raw_file(std::string_view option, const std::string& path);
/// Writes every (path, bytes) to path.tmp, then renames them all; on any failure removes the
/// temporaries and throws std::runtime_error: no partial output.
void write_raw_files(const std::vector<std::pair<std::string, std::vector<std::uint8_t>>>& files);

}  // namespace mxv
