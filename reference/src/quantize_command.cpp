// `mxv quantize`: raw activations -> the block model of quantize.h -> raw outputs, all or
// nothing. Order of work: every option is checked and every file declared before the input is
// read, so a bad option or output path costs nothing and touches nothing.
#include "mxv/reference/quantize_command.h"

#include <ostream>
#include <stdexcept>

#include "mxv/io/checked_size.h"
#include "mxv/io/input_file.h"
#include "mxv/io/option_value.h"
#include "mxv/io/output_files.h"
#include "mxv/reference/command_options.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/rcp_approx.h"
#include "mxv/reference/recipe.h"

namespace mxv {

std::string_view quantize_file_layouts() {
  return "Files (raw little-endian, row-major, as numpy tofile writes them):\n"
         "  --input         [rows, cols] of --dtype (fp32 4 bytes, bf16/fp16 2 bytes); rows may be\n"
         "                  grouped by --rows-per-expert (experts' rows consecutive).\n"
         "  --out-elements  E2M1 recipes: uint8 [rows, ceil(cols/2)], element 2i in bits [3:0], 2i+1\n"
         "                  in [7:4], an odd row's last high nibble 0. mxfp8_*: uint8 [rows, cols] E4M3.\n"
         "  --out-scales    uint8 block scales (E8M0 for mxfp*/ort_qmoe, UE4M3 for nvfp4_*), one per\n"
         "                  (row, block of recipe.block_size along cols), ceil(cols/block) per row.\n"
         "                  linear: [rows, ceil(cols/block)]. swizzled: 128x4 tiles of 512 bytes\n"
         "                  (docs/semantics.md section 5.3), each expert's rows padded to 128,\n"
         "                  columns to 4; padding bytes 0.\n"
         "  --out-global    NVFP4 only: fp32 [G] decode scales s_dec (G = experts with\n"
         "                  --scale-per-expert, else 1); dequant = e2m1 * ue4m3 * s_dec. The same\n"
         "                  format swiglu-quantize writes and dequantize --global reads.\n"
         "The last block of a row whose cols is not a multiple of the block is zero-padded for its\n"
         "amax. nvfp4_trtllm's rcp.approx table: --rcp-table FILE, else $MXV_RCP_APPROX_TABLE, else\n"
         "the committed H200 capture golden/captures/rcp_approx_ftz_f32_sm90.bin.\n";
}

void run_quantize(const QuantizeRequest& r, std::ostream& out) {
  // 1. Options: names, then what applies to the recipe.
  const auto [recipe_name, recipe] = recipe_option(r.recipe);
  const auto [dtype_name, type] = wide_type_option(r.dtype);
  QuantizeOptions o;
  o.scale_layout = scale_layout_option(r.scale_layout, "linear");
  const std::string mx_why = mx_refusal(recipe_name);
  io::reject_if_given(!recipe.is_nvfp4() && r.tensor_amax.has_value(), "--tensor-amax", mx_why);
  io::reject_if_given(!recipe.is_nvfp4() && r.scale_per_expert, "--scale-per-expert", mx_why);
  io::reject_if_given(!recipe.is_nvfp4() && r.out_global.has_value(), "--out-global", mx_why);
  io::reject_if_given(recipe.reciprocal != Reciprocal::kRcpApproxTable && r.rcp_table.has_value(), "--rcp-table",
                      "to '" + recipe_name + "' (only recipes that model rcp.approx read a table: nvfp4_trtllm)");
  require_global_scale_file(recipe, recipe_name, r.out_global.has_value(), "--out-global");
  if (r.rows_per_expert) o.group_counts = io::parse_counts_option("--rows-per-expert", *r.rows_per_expert);
  o.scale_per_group = r.scale_per_expert;
  if (r.scale_per_expert && !r.rows_per_expert) {
    throw std::invalid_argument("--scale-per-expert: needs --rows-per-expert");
  }
  if (r.tensor_amax) o.tensor_amax = io::parse_real_option("--tensor-amax", *r.tensor_amax, io::RealRule::kFiniteNonNegative);
  if (r.cols.empty()) throw std::invalid_argument("--cols: required (K, elements per row)");
  const std::int64_t cols = io::parse_int_option("--cols", r.cols, 1, std::int64_t{1} << 32);
  const std::int64_t given_rows = r.rows ? io::parse_int_option("--rows", *r.rows, 1, std::int64_t{1} << 40) : 0;

  // 2. Files: every output checked against the inputs and each other before any work.
  io::OutputBatch files;
  files.input("--input", r.input);
  if (r.rcp_table) files.input("--rcp-table", *r.rcp_table);
  files.output("--out-elements", r.out_elements);
  files.output("--out-scales", r.out_scales);
  if (r.out_global) files.output("--out-global", *r.out_global);
  std::optional<RcpApproxTable> table;
  if (r.rcp_table) {
    table = RcpApproxTable::load(*r.rcp_table, "--rcp-table");
    o.rcp_table = &*table;
  }

  // 3. The input fixes the rows; --rows, when given, must agree.
  const std::vector<std::uint8_t> input = io::read_input("--input", r.input);
  const std::int64_t row_bytes = io::SizeProduct("--input row bytes").times(cols, "--cols").times(
      static_cast<std::int64_t>(bytes_of(type)), dtype_name + " bytes").value();
  if (input.size() % static_cast<std::size_t>(row_bytes) != 0) {
    throw std::invalid_argument("--input: '" + r.input + "' holds " + std::to_string(input.size()) +
                                " bytes, not a whole number of rows of --cols " + std::to_string(cols) + " " +
                                dtype_name + " values (" + std::to_string(row_bytes) + " bytes per row)");
  }
  const auto rows = static_cast<std::int64_t>(input.size() / static_cast<std::size_t>(row_bytes));
  if (r.rows && given_rows != rows) {
    throw std::invalid_argument("--rows: " + std::to_string(given_rows) + " but --input holds " + std::to_string(rows) +
                                " rows of " + std::to_string(cols) + " " + dtype_name + " values");
  }
  if (r.rows_per_expert) {
    const std::int64_t expert_rows = GroupedRows::from_counts(o.group_counts).total_rows;
    if (expert_rows != rows) {
      throw std::invalid_argument("--rows-per-expert: the counts sum to " + std::to_string(expert_rows) +
                                  " but --input holds " + std::to_string(rows) + " rows");
    }
  }

  // 4. The model, then the outputs.
  QuantizedActivations q = quantize_activations(recipe, type, input, rows, cols, o);
  const std::size_t element_bytes = q.elements.size();
  const std::size_t scale_bytes = q.scales.size();
  files.set("--out-elements", std::move(q.elements));
  files.set("--out-scales", std::move(q.scales));
  if (r.out_global) {
    std::vector<float> s_dec;
    for (const TensorScale& t : q.tensor) s_dec.push_back(t.s_dec);
    files.set("--out-global", narrow_from_fp32(WideType::kFp32, s_dec));
  }
  files.commit();
  out << "quantized " << rows << " x " << cols << " (" << dtype_name << ") with " << recipe.name << ": "
      << element_bytes << " element bytes, " << scale_bytes << " scale bytes ("
      << to_string(o.scale_layout) << ")";
  if (recipe.is_nvfp4()) out << ", " << tensor_scales_summary(q.tensor);
  out << "\n";
}

}  // namespace mxv
