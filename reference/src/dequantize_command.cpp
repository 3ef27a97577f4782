// `mxv dequantize` (issue 3, "CLI"): raw packed activations or MoE weights -> dequantize.h /
// weight_layout.h -> one raw output file, written all-or-nothing.
#include <ostream>
#include <stdexcept>

#include "mxv/reference/dequantize.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/quantize_command.h"
#include "mxv/reference/recipe.h"
#include "mxv/reference/weight_layout.h"

namespace mxv {

std::string_view dequantize_file_layouts() {
  return "Files (raw little-endian, row-major):\n"
         "  --kind activations:\n"
         "    --elements  E2M1: uint8 [rows, ceil(cols/2)] (element 2i low nibble); mxfp8: [rows, cols]\n"
         "    --scales    uint8 block scales, --scale-layout linear [rows, ceil(cols/block)] or\n"
         "                swizzled 128x4 (per expert with --rows-per-expert)\n"
         "  --kind weights (E2M1 recipes):\n"
         "    --elements  k-packed: uint8 [E, N, K/2] (k even low nibble);\n"
         "                n-packed: uint8 [E, K, N/2] (ONNX Runtime QMoE; n even low nibble)\n"
         "    --scales    uint8 [E, N, ceil(K/block)]\n"
         "  --global      NVFP4 only: fp32 s_dec, one value or one per expert / group\n"
         "  --out         [rows, cols] or [E, N, K] of --out-dtype (fp32 / bf16 / fp16).\n"
         "Each value is fp32(elem) * fp32(scale) [* s_dec] computed in fp32 (elem * scale is exact),\n"
         "rounded once to --out-dtype. E8M0 decodes per recipe (ort_qmoe: 0x00 -> 0, 0xFF -> +Inf).\n";
}

void run_dequantize(const DequantizeRequest& r, std::ostream& out) {
  const Recipe recipe = Recipe::by_name(r.recipe);
  const WideType out_type = wide_type_by_name(r.out_dtype);
  if (r.out.empty()) throw std::invalid_argument("--out: a file is required");
  if (r.kind != "activations" && r.kind != "weights") {
    throw std::invalid_argument("--kind: '" + r.kind + "' is not activations or weights");
  }
  std::vector<float> s_dec;
  if (recipe.is_nvfp4()) {
    if (!r.global) throw std::invalid_argument("--global: required for the NVFP4 recipe '" + r.recipe + "'");
    const auto bytes = read_raw_file("--global", *r.global);
    if (bytes.empty() || bytes.size() % 4 != 0) {
      throw std::invalid_argument("--global: must hold one or more fp32 values, got " + std::to_string(bytes.size()) +
                                  " bytes");
    }
    s_dec = widen_to_fp32(WideType::kFp32, bytes);
  }
  const auto elements = read_raw_file("--elements", r.elements);
  const auto scales = read_raw_file("--scales", r.scales);
  std::vector<float> values;
  std::string shape;
  if (r.kind == "activations") {
    if (!r.cols) throw std::invalid_argument("--cols: required for --kind activations");
    if (!r.rows) throw std::invalid_argument("--rows: required for --kind activations");
    const std::int64_t cols = parse_int_option("--cols", *r.cols, 1, std::int64_t{1} << 32);
    const std::int64_t rows = parse_int_option("--rows", *r.rows, 0, std::int64_t{1} << 40);
    const GroupedRows groups = r.rows_per_expert
                                   ? GroupedRows::from_counts(parse_counts_option("--rows-per-expert", *r.rows_per_expert))
                                   : GroupedRows::single(rows);
    values = dequantize_activations(recipe, elements, scales, rows, cols, scale_layout_by_name(r.scale_layout), groups,
                                    s_dec);
    shape = std::to_string(rows) + " x " + std::to_string(cols);
  } else {
    if (!r.experts || !r.n || !r.k) throw std::invalid_argument("--experts, --n, --k: required for --kind weights");
    const WeightShape s{parse_int_option("--experts", *r.experts, 1, std::int64_t{1} << 20),
                        parse_int_option("--n", *r.n, 1, std::int64_t{1} << 32),
                        parse_int_option("--k", *r.k, 1, std::int64_t{1} << 32)};
    values = dequantize_weights(recipe, weight_packing_by_name(r.packing), s, elements, scales, s_dec);
    shape = std::to_string(s.experts) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k);
  }
  write_raw_files({{r.out, narrow_from_fp32(out_type, values)}});
  out << "dequantized " << r.kind << " " << shape << " with " << recipe.name << " to " << r.out_dtype << "\n";
}

}  // namespace mxv
