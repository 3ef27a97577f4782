// `mxv swiglu-quantize` (docs/semantics.md sections 6 and 4.2): validates the request, reads the
// raw GEMM output, runs the fused (or unfused) SwiGLU + NVFP4 model of swiglu_quantize.h and
// writes the outputs all or nothing. The options are registered in tools/.
#include "mxv/reference/swiglu_command.h"

#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mxv/io/checked_size.h"
#include "mxv/io/input_file.h"
#include "mxv/io/option_value.h"
#include "mxv/io/output_files.h"
#include "mxv/reference/command_options.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/swiglu_quantize.h"

namespace mxv {
namespace {

[[noreturn]] void bad(const std::string& option, const std::string& rule) {
  throw std::invalid_argument(option + ": " + rule);
}

}  // namespace

std::string_view swiglu_quantize_file_layouts() {
  return "Files (raw little-endian, row-major; numpy: np.fromfile(path, dtype).reshape(shape)):\n"
         "  --input         [rows, 2I] fp32 or bf16 (--dtype): one GEMM output row per token;\n"
         "                  gate/up columns per --layout (halves: gate [0,I), up [I,2I);\n"
         "                  interleaved:G: groups of G columns alternate gate, up, gate first).\n"
         "  --out-elements  uint8 [rows, ceil(I/2)]: E2M1 codes of the activated output, element\n"
         "                  2i in bits [3:0], 2i+1 in [7:4]; rows compact (expert after expert).\n"
         "  --out-scales    uint8 UE4M3 block scales, one per 16 outputs (kb = ceil(I/16) per\n"
         "                  row). swizzled: each expert's rows start at a 128-padded row offset,\n"
         "                  [padded_rows/128, ceil(kb/4), 32, 4, 4] tiles (offset of row r, block\n"
         "                  k: (r/128)*n_k*512 + (k/4)*512 + (r%32)*16 + ((r%128)/32)*4 + k%4),\n"
         "                  padding bytes 0. linear: [rows, kb].\n"
         "  --out-global    float32 [G]: the decode scale s_dec per global scale, G = number of\n"
         "                  experts with --scale-per-expert, else 1 (the format quantize writes\n"
         "                  and dequantize --global reads). Dequantize: e2m1 * ue4m3 * s_dec.\n"
         "  --out-activated float32 [rows, I]: the values that were quantized (after the bf16\n"
         "                  rounding with --activated-dtype bf16 or --unfused).\n";
}

void run_swiglu_quantize(const SwigluQuantizeRequest& req, std::ostream& out) {
  // 1. Options, each validated with the option's name in the message.
  if (req.intermediate_size.empty()) bad("--intermediate-size", "required (I: the input has 2*I columns)");
  const std::int64_t isize = io::parse_int_option("--intermediate-size", req.intermediate_size, 1, std::int64_t{1} << 31);
  const std::string dtype_name = req.dtype.value_or("fp32");
  WideType dtype = WideType::kFp32;
  if (dtype_name == "bf16") {
    dtype = WideType::kBf16;
  } else if (dtype_name != "fp32") {
    bad("--dtype", "'" + dtype_name + "' is not fp32 or bf16");
  }
  auto [recipe_name, recipe] = recipe_option(req.recipe);
  if (!recipe.is_nvfp4()) bad("--recipe", "'" + recipe_name + "' is not an NVFP4 preset");
  recipe.activation = for_option("--activation", [&] { return SwigluActivation::parse_kind(req.activation.value_or("silu")); });
  io::reject_if_given(recipe.activation != Activation::kSwigluClamped && req.alpha.has_value(), "--alpha",
                      "to --activation silu (swiglu-clamped only)");
  io::reject_if_given(recipe.activation != Activation::kSwigluClamped && req.limit.has_value(), "--limit",
                      "to --activation silu (swiglu-clamped only)");
  if (req.alpha) recipe.alpha = io::parse_real_option("--alpha", *req.alpha, io::RealRule::kFinitePositive);
  if (req.limit) recipe.limit = io::parse_real_option("--limit", *req.limit, io::RealRule::kFinitePositive);
  const std::string activated = req.activated_dtype.value_or("fp32");
  if (activated == "bf16") {
    recipe.intermediate = Intermediate::kBf16;
  } else if (activated == "fp32") {
    recipe.intermediate = Intermediate::kFp32;
  } else {
    bad("--activated-dtype", "'" + activated + "' is not fp32 or bf16");
  }
  io::reject_if_given(req.unfused && req.activated_dtype.has_value(), "--activated-dtype",
                      "with --unfused (the unfused pair always writes a bf16 tensor)");
  SwigluQuantizeOptions opt;
  opt.layout = for_option("--layout", [&] {
    GateUpLayout layout = GateUpLayout::parse(req.layout.value_or("halves"));
    layout.validate(static_cast<std::size_t>(isize));
    return layout;
  });
  opt.scale_layout = scale_layout_option(req.scale_layout, "swizzled");
  opt.scale_per_group = req.scale_per_expert;
  if (req.rows_per_expert) opt.group_counts = io::parse_counts_option("--rows-per-expert", *req.rows_per_expert);
  if (req.scale_per_expert && opt.group_counts.empty()) bad("--scale-per-expert", "needs --rows-per-expert");
  if (req.tensor_amax) {
    opt.tensor_amax = io::parse_real_option("--tensor-amax", *req.tensor_amax, io::RealRule::kFiniteNonNegative);
  }
  const std::int64_t given_rows = req.rows ? io::parse_int_option("--rows", *req.rows, 1, std::int64_t{1} << 40) : 0;

  // 2. Files, checked before any work.
  io::OutputBatch files;
  files.input("--input", req.input);
  files.output("--out-elements", req.out_elements);
  files.output("--out-scales", req.out_scales);
  files.output("--out-global", req.out_global);
  if (req.out_activated) files.output("--out-activated", *req.out_activated);

  // 3. Input: its size fixes the rows (and must agree with --rows and --rows-per-expert).
  const std::vector<std::uint8_t> bytes = io::read_input("--input", req.input);
  const std::int64_t row_bytes = io::SizeProduct("--input row bytes").times(2 * isize, "2I").times(
      static_cast<std::int64_t>(bytes_of(dtype)), dtype_name + " bytes").value();
  if (bytes.size() % static_cast<std::size_t>(row_bytes) != 0) {
    bad("--input", "'" + req.input + "' holds " + std::to_string(bytes.size()) +
                       " bytes, not a whole number of rows (2I = " + std::to_string(2 * isize) + " " + dtype_name +
                       " values = " + std::to_string(row_bytes) + " bytes)");
  }
  const auto rows = static_cast<std::int64_t>(bytes.size() / static_cast<std::size_t>(row_bytes));
  if (req.rows && given_rows != rows) {
    bad("--rows", *req.rows + " but --input holds " + std::to_string(rows) + " rows");
  }
  std::int64_t expert_rows = 0;
  for (std::int64_t c : opt.group_counts) expert_rows += c;
  if (!opt.group_counts.empty() && expert_rows != rows) {
    bad("--rows-per-expert", "the counts sum to " + std::to_string(expert_rows) + " but --input holds " +
                                 std::to_string(rows) + " rows");
  }

  // 4. The model.
  const std::vector<float> wide = widen_to_fp32(dtype, bytes);
  const GateUpView view =
      GateUpView::from_fp32(wide, static_cast<std::size_t>(rows), static_cast<std::size_t>(isize));
  SwigluQuantized result = req.unfused ? swiglu_quantize_unfused(recipe, view, opt) : swiglu_quantize_fused(recipe, view, opt);

  // 5. Outputs, all or nothing.
  std::vector<float> s_dec;
  for (const TensorScale& t : result.quantized.tensor) s_dec.push_back(t.s_dec);
  const std::size_t element_bytes = result.quantized.elements.size();
  const std::size_t scale_bytes = result.quantized.scales.size();
  files.set("--out-elements", std::move(result.quantized.elements));
  files.set("--out-scales", std::move(result.quantized.scales));
  files.set("--out-global", narrow_from_fp32(WideType::kFp32, s_dec));
  if (req.out_activated) files.set("--out-activated", narrow_from_fp32(WideType::kFp32, result.activated));
  files.commit();
  out << "swiglu-quantize: " << rows << " rows x I=" << isize << ", " << to_string(opt.layout) << ", "
      << (req.unfused ? "unfused" : "fused") << ", recipe " << recipe.name << "; " << element_bytes << " element bytes, "
      << scale_bytes << " scale bytes, " << s_dec.size() << " global scale(s), "
      << tensor_scales_summary(result.quantized.tensor) << "\n";
}

}  // namespace mxv
