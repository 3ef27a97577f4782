// `mxv dequantize`: raw packed activations or MoE weights -> dequantize.h / weight_layout.h ->
// one raw output file, written all or nothing. The expected byte count of every input is
// computed with overflow-checked products and compared with the file before the model runs, so
// a shape too large for 64 bits (E = 2^20, N = K = 2^32) is a clear error, never a crash.
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>

#include "mxv/io/checked_size.h"
#include "mxv/io/input_file.h"
#include "mxv/io/option_value.h"
#include "mxv/io/output_files.h"
#include "mxv/reference/command_options.h"
#include "mxv/reference/dequantize.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/quantize_command.h"
#include "mxv/reference/recipe.h"
#include "mxv/reference/scale_layout.h"
#include "mxv/reference/weight_layout.h"

namespace mxv {
namespace {

void expect_bytes(std::string_view option, const std::string& path, std::size_t got, std::int64_t want,
                  const std::string& shape) {
  if (static_cast<std::int64_t>(got) == want) return;
  throw std::invalid_argument(std::string(option) + ": '" + path + "' holds " + std::to_string(got) +
                              " bytes; " + shape + " needs " + std::to_string(want));
}

// The packed axis holds two codes a byte, so it must be even; said here with the option that
// carries it (--cols is K, --rows is N), which the model's own check cannot name.
void require_even_packed_axis(WeightPacking packing, std::int64_t rows, std::int64_t cols) {
  if (packing == WeightPacking::kKPacked && cols % 2 != 0) {
    throw std::invalid_argument("--cols: k-packed weights need an even K, got " + std::to_string(cols));
  }
  if (packing == WeightPacking::kNPacked && rows % 2 != 0) {
    throw std::invalid_argument("--rows: n-packed weights need an even N, got " + std::to_string(rows) +
                                " (or give --packing k-packed)");
  }
}

// NVFP4 reads one s_dec for every row, or one per expert (`per` of them; `experts` says which
// option set that number).
void check_global_count(const std::string& path, std::size_t got, std::int64_t per, const std::string& experts) {
  if (got == 1 || static_cast<std::int64_t>(got) == per) return;
  throw std::invalid_argument("--global: '" + path + "' holds " + std::to_string(got) +
                              " fp32 values; NVFP4 needs 1 or one per expert " + experts);
}

// Where an activation's scales sit in the --scales file (a swizzled layout pads each expert).
struct ActivationScales {
  ScaleLayout layout;
  GroupedRows groups;
  std::int64_t kb;
};

// A scale byte the recipe cannot decode (UE4M3 has no sign bit) is refused with its offset in the
// --scales file. Only the bytes the model reads are checked: a swizzled layout's padding is not.
void check_scale_codes(const Recipe& recipe, const std::string& path, std::span<const std::uint8_t> scales,
                       const std::optional<ActivationScales>& activation) {
  const auto decode_one = [&](std::uint8_t code) { (void)decode_scale(recipe, code); };
  if (!activation) {
    check_codes("--scales", path, scales, decode_one);  // weights: every byte is a scale
    return;
  }
  const ActivationScales& a = *activation;
  const std::vector<std::uint8_t> linear = gather_scales(a.layout, a.groups, scales, a.kb);
  check_codes("--scales", path, linear, decode_one, [&](std::size_t i) {
    const auto row = static_cast<std::int64_t>(i) / a.kb;
    return scale_offset(a.layout, a.groups, row, static_cast<std::int64_t>(i) % a.kb, a.kb);
  });
}

}  // namespace

std::string_view dequantize_file_layouts() {
  return "Files (raw little-endian, row-major):\n"
         "  --kind activations ([rows, cols] = [M, K]):\n"
         "    --elements  E2M1: uint8 [rows, ceil(cols/2)] (element 2i low nibble); mxfp8: [rows, cols]\n"
         "    --scales    uint8 block scales, --scale-layout linear [rows, ceil(cols/block)] or\n"
         "                swizzled 128x4 (per expert with --rows-per-expert)\n"
         "  --kind weights (E2M1 recipes; E experts of [rows, cols] = [N, K]):\n"
         "    --elements  k-packed: uint8 [E, N, K/2] (k even low nibble);\n"
         "                n-packed: uint8 [E, K, N/2] (ONNX Runtime QMoE; n even low nibble)\n"
         "    --scales    uint8 [E, N, ceil(K/block)]\n"
         "  --global      NVFP4 only: fp32 [G] s_dec, one value or one per expert / group (the file\n"
         "                quantize and swiglu-quantize write with --out-global)\n"
         "  --output      [rows, cols] or [E, N, K] of --out-dtype (fp32 / bf16 / fp16).\n"
         "Each value is fp32(elem) * fp32(scale) [* s_dec] computed in fp32 (elem * scale is exact),\n"
         "rounded once to --out-dtype. E8M0 decodes per recipe (ort_qmoe: 0x00 -> 0, 0xFF -> +Inf).\n";
}

void run_dequantize(const DequantizeRequest& r, std::ostream& out) {
  // 1. Options: names, what applies to the kind and recipe, shapes.
  const auto [recipe_name, recipe] = recipe_option(r.recipe);
  const auto [out_dtype, out_type] = wide_type_option(r.out_dtype, "--out-dtype");
  const std::string kind = r.kind.value_or("activations");
  if (kind != "activations" && kind != "weights") {
    throw std::invalid_argument("--kind: '" + kind + "' is not activations or weights");
  }
  const bool weights = kind == "weights";
  io::reject_if_given(!weights && r.experts.has_value(), "--experts", "to --kind activations (weights only)");
  io::reject_if_given(!weights && r.packing.has_value(), "--packing", "to --kind activations (weights only)");
  io::reject_if_given(weights && r.scale_layout.has_value(), "--scale-layout",
                      "to --kind weights (their scales are [E, N, ceil(K/block)])");
  io::reject_if_given(weights && r.rows_per_expert.has_value(), "--rows-per-expert",
                      "to --kind weights (give --experts)");
  io::reject_if_given(!recipe.is_nvfp4() && r.global.has_value(), "--global", mx_refusal(recipe_name));
  require_global_scale_file(recipe, recipe_name, r.global.has_value(), "--global");
  if (!r.rows) throw std::invalid_argument(std::string("--rows: required (") + (weights ? "N" : "M") + ")");
  if (!r.cols) throw std::invalid_argument("--cols: required (K)");
  if (weights && !r.experts) throw std::invalid_argument("--experts: required for --kind weights");
  const std::int64_t rows = io::parse_int_option("--rows", *r.rows, 1, weights ? std::int64_t{1} << 32 : std::int64_t{1} << 40);
  const std::int64_t cols = io::parse_int_option("--cols", *r.cols, 1, std::int64_t{1} << 32);
  const std::int64_t experts = weights ? io::parse_int_option("--experts", *r.experts, 1, std::int64_t{1} << 20) : 1;
  const WeightPacking packing = for_option("--packing", [&] { return weight_packing_by_name(r.packing.value_or("k-packed")); });
  const ScaleLayout layout = scale_layout_option(r.scale_layout, "linear");
  const GroupedRows groups = r.rows_per_expert
                                 ? GroupedRows::from_counts(io::parse_counts_option("--rows-per-expert", *r.rows_per_expert))
                                 : GroupedRows::single(rows);
  if (groups.total_rows != rows) {
    throw std::invalid_argument("--rows-per-expert: the counts sum to " + std::to_string(groups.total_rows) +
                                " but --rows is " + std::to_string(rows));
  }

  // 2. Files, checked before any work.
  io::OutputBatch files;
  files.input("--elements", r.elements);
  files.input("--scales", r.scales);
  if (r.global) files.input("--global", *r.global);
  files.output("--output", r.output);

  // 3. Sizes: each input's expected bytes (overflow-checked) against the file.
  const std::string shape = weights ? "--experts " + std::to_string(experts) + " x --rows " + std::to_string(rows) +
                                          " x --cols " + std::to_string(cols)
                                    : "--rows " + std::to_string(rows) + " x --cols " + std::to_string(cols);
  const std::int64_t block = recipe.block_size;
  std::int64_t want_elements = 0;
  if (weights) {
    if (recipe.element != ElementFormat::kFp4E2M1) {
      throw std::invalid_argument("--kind weights: needs an E2M1 recipe; '" + recipe_name + "' has 8-bit elements");
    }
    // Once E*N*K fits, the library's packed byte count (which also checks the packed axis is even) cannot overflow.
    io::SizeProduct("--elements values").times(experts, "--experts").times(rows, "--rows").times(cols, "--cols");
    require_even_packed_axis(packing, rows, cols);
    want_elements = packed_weight_bytes(packing, WeightShape{experts, rows, cols});
  } else {
    const std::int64_t per_byte = recipe.element == ElementFormat::kFp4E2M1 ? 2 : 1;
    want_elements = io::SizeProduct("--elements bytes").times(rows, "--rows").times(
        io::SizeProduct("row bytes").times(cols, "--cols").ceil_div(per_byte).value(), "bytes per row").value();
  }
  const std::int64_t kb = scale_cols(cols, static_cast<int>(block));
  io::SizeProduct(weights ? "--scales bytes" : "--scales bytes (linear)").times(experts, "--experts").times(rows, "--rows").times(kb, "blocks per row");
  io::SizeProduct("--output bytes").times(experts, "--experts").times(rows, "--rows").times(cols, "--cols").times(
      static_cast<std::int64_t>(bytes_of(out_type)), out_dtype + " bytes");
  std::vector<float> s_dec;
  if (r.global) {
    const auto bytes = io::read_input("--global", *r.global);
    if (bytes.size() % 4 != 0) {
      throw std::invalid_argument("--global: '" + *r.global + "' holds " + std::to_string(bytes.size()) +
                                  " bytes, not a whole number of fp32 values");
    }
    s_dec = widen_to_fp32(WideType::kFp32, bytes);
    const std::int64_t per = weights ? experts : static_cast<std::int64_t>(groups.counts.size());
    check_global_count(*r.global, s_dec.size(), per,
                       weights              ? "(--experts " + std::to_string(per) + ")"
                       : r.rows_per_expert ? "(--rows-per-expert has " + std::to_string(per) + ")"
                                           : "(one per expert needs --rows-per-expert)");
  }
  const auto elements = io::read_input("--elements", r.elements);
  expect_bytes("--elements", r.elements, elements.size(), want_elements, shape);
  const auto scales = io::read_input("--scales", r.scales);
  const std::int64_t want_scales = weights ? weight_scale_bytes(recipe, WeightShape{experts, rows, cols})
                                           : scale_buffer_size(layout, groups, kb);
  expect_bytes("--scales", r.scales, scales.size(), want_scales, shape + " (" + std::to_string(kb) + " blocks per row)");
  check_scale_codes(recipe, r.scales, scales, weights ? std::nullopt : std::optional{ActivationScales{layout, groups, kb}});

  // 4. The model, then the output.
  std::vector<float> values =
      weights ? dequantize_weights(recipe, packing, WeightShape{experts, rows, cols}, elements, scales, s_dec)
              : dequantize_activations(recipe, elements, scales, rows, cols, layout, groups, s_dec);
  files.set("--output", narrow_from_fp32(out_type, values));
  files.commit();
  out << "dequantized " << kind << " " << (weights ? std::to_string(experts) + " x " : std::string()) << rows << " x "
      << cols << " with " << recipe.name << " to " << out_dtype << "\n";
}

}  // namespace mxv
