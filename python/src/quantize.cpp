// quantize / dequantize / SwiGLU-quantize and the scale layouts (reference/include/mxv/reference/
// quantize.h, dequantize.h, swiglu_quantize.h, scale_layout.h) on byte buffers; results come back
// as dicts of numpy arrays that python/mxv/__init__.py wraps.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.h"
#include "mxv/reference/dequantize.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/rcp_approx.h"
#include "mxv/reference/scale_layout.h"
#include "mxv/reference/swiglu_quantize.h"
#include "mxv/reference/weight_layout.h"
#include "numpy_buffers.h"

namespace mxv::python {
namespace {

std::unique_ptr<RcpApproxTable>& bundled_rcp_table_slot() {
  static std::unique_ptr<RcpApproxTable> table;
  return table;
}

GroupedRows groups_of(const std::vector<std::int64_t>& counts, std::int64_t rows) {
  return counts.empty() ? GroupedRows::single(rows) : GroupedRows::from_counts(counts);
}

nb::dict as_dict(QuantizedActivations&& q) {
  const auto rows = static_cast<std::size_t>(q.rows);
  const auto cols = static_cast<std::size_t>(q.cols);
  const auto kb = static_cast<std::size_t>(q.scale_cols);
  const std::size_t row_bytes = q.element_bits == 4 ? (cols + 1) / 2 : cols;
  std::vector<float> amax, s_enc, s_dec;
  for (const TensorScale& t : q.tensor) {
    amax.push_back(t.amax);
    s_enc.push_back(t.s_enc);
    s_dec.push_back(t.s_dec);
  }
  const std::size_t n_tensor = amax.size();
  const std::size_t n_scales = q.scales.size();
  nb::dict d;
  d["rows"] = q.rows;
  d["cols"] = q.cols;
  d["scale_cols"] = q.scale_cols;
  d["element_bits"] = q.element_bits;
  d["scale_layout"] = std::string(to_string(q.scale_layout));
  d["elements"] = to_numpy(std::move(q.elements), {rows, row_bytes});
  d["scales"] = to_numpy(std::move(q.scales), {n_scales});
  d["amax"] = to_numpy(std::move(amax), {n_tensor});
  d["s_enc"] = to_numpy(std::move(s_enc), {n_tensor});
  d["global_scale"] = to_numpy(std::move(s_dec), {n_tensor});
  d["scale_codes"] = to_numpy(std::move(q.scale_codes), {rows, kb});
  d["block_amax"] = to_numpy(std::move(q.block_amax), {rows, kb});
  d["scale_input"] = to_numpy(std::move(q.scale_input), {rows, kb});
  d["prescaled"] = to_numpy(std::move(q.prescaled), {rows, cols});
  return d;
}

nb::dict quantize_buffer(const Recipe& recipe, const Bytes& x, const std::string& input_type, std::int64_t rows,
                         std::int64_t cols, const std::string& scale_layout, const std::vector<std::int64_t>& group_counts,
                         bool scale_per_group, std::optional<float> tensor_amax) {
  const QuantizeOptions options = quantize_options(scale_layout, group_counts, scale_per_group, tensor_amax);
  return as_dict(quantize_activations(recipe, wide_type_by_name(input_type), span_of(x), rows, cols, options));
}

nb::ndarray<nb::numpy, float> dequantize_buffer(const Recipe& recipe, const Bytes& elements, const Bytes& scales,
                                                const Bytes& global_scale, std::int64_t rows, std::int64_t cols,
                                                const std::string& scale_layout,
                                                const std::vector<std::int64_t>& group_counts) {
  const auto s_dec = floats_of(span_of(global_scale), "global_scale");
  auto out = dequantize_activations(recipe, span_of(elements), span_of(scales), rows, cols,
                                    scale_layout_by_name(scale_layout), groups_of(group_counts, rows), s_dec);
  return to_numpy(std::move(out), {static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)});
}

nb::dict swiglu_quantize_buffer(const Recipe& recipe, const Bytes& x, const std::string& input_type, std::size_t rows,
                                std::size_t intermediate, const std::string& gate_up_layout,
                                const std::vector<std::int64_t>& rows_per_expert, const std::string& scale_layout,
                                bool scale_per_expert, std::optional<float> tensor_amax, bool fused) {
  const WideType type = wide_type_by_name(input_type);
  std::vector<float> f32;
  std::vector<std::uint16_t> bf16;
  GateUpView view;
  if (type == WideType::kFp32) {
    f32 = floats_of(span_of(x), "gate_up");
    view = GateUpView::from_fp32(f32, rows, intermediate);
  } else if (type == WideType::kBf16) {
    bf16.resize(x.size() / 2);
    if (!bf16.empty()) std::memcpy(bf16.data(), x.data(), bf16.size() * 2);
    view = GateUpView::from_bf16(bf16, rows, intermediate);
  } else {
    throw std::invalid_argument("swiglu_quantize: gate_up must be fp32 or bf16, not " + input_type);
  }
  SwigluQuantizeOptions options;
  options.layout = GateUpLayout::parse(gate_up_layout);
  options.group_counts = rows_per_expert;
  options.scale_layout = scale_layout_by_name(scale_layout);
  options.scale_per_group = scale_per_expert;
  options.tensor_amax = tensor_amax;
  options.rcp_table = bundled_rcp_table();
  SwigluQuantized s = fused ? swiglu_quantize_fused(recipe, view, options) : swiglu_quantize_unfused(recipe, view, options);
  nb::dict d = as_dict(std::move(s.quantized));
  d["activated"] = to_numpy(std::move(s.activated), {rows, intermediate});
  return d;
}

/// dequantize_weights_to on raw buffers: the little-endian bytes of the [E, N, K] output.
nb::ndarray<nb::numpy, std::uint8_t> dequantize_weights_buffer(const Recipe& recipe, const Bytes& packed,
                                                               const Bytes& scales, const Bytes& s_dec,
                                                               const std::string& packing, std::int64_t experts,
                                                               std::int64_t n, std::int64_t k,
                                                               const std::string& out_type) {
  const std::vector<float> global = floats_of(span_of(s_dec), "dequantize_weights: s_dec");
  std::vector<std::uint8_t> out =
      dequantize_weights_to(recipe, weight_packing_by_name(packing), WeightShape{experts, n, k}, span_of(packed),
                            span_of(scales), global, wide_type_by_name(out_type));
  const std::size_t size = out.size();
  return to_numpy(std::move(out), {size});
}

/// arrange_scales or gather_scales as a binding: the layout by name, the groups from their counts,
/// the moved scale codes as a new uint8 array.
using ScaleMove = std::vector<std::uint8_t> (*)(ScaleLayout, const GroupedRows&, std::span<const std::uint8_t>,
                                                std::int64_t);
auto scale_move_binding(ScaleMove move) {
  return [move](const std::string& layout, const Bytes& in, std::int64_t rows,
                const std::vector<std::int64_t>& group_counts, std::int64_t kb) {
    auto out = move(scale_layout_by_name(layout), groups_of(group_counts, rows), span_of(in), kb);
    const std::size_t n = out.size();
    return to_numpy(std::move(out), {n});
  };
}

}  // namespace

const RcpApproxTable* bundled_rcp_table() { return bundled_rcp_table_slot().get(); }

QuantizeOptions quantize_options(const std::string& scale_layout, const std::vector<std::int64_t>& group_counts,
                                 bool scale_per_group, std::optional<float> tensor_amax) {
  QuantizeOptions options;
  options.scale_layout = scale_layout_by_name(scale_layout);
  options.group_counts = group_counts;
  options.scale_per_group = scale_per_group;
  options.tensor_amax = tensor_amax;
  options.rcp_table = bundled_rcp_table();
  return options;
}

void bind_quantize(nb::module_& m) {
  m.def("set_rcp_approx_table", [](const std::string& path) {
        bundled_rcp_table_slot() = std::make_unique<RcpApproxTable>(RcpApproxTable::load(path));
      }, nb::arg("path"), "Use this rcp.approx table file for recipes with reciprocal='rcp_approx_table'.");
  m.def("quantize", &quantize_buffer, nb::arg("recipe"), nb::arg("x"), nb::arg("input_type"), nb::arg("rows"),
        nb::arg("cols"), nb::arg("scale_layout"), nb::arg("group_counts"), nb::arg("scale_per_group"),
        nb::arg("tensor_amax").none(), "quantize_activations on raw input bytes.");
  m.def("dequantize", &dequantize_buffer, nb::arg("recipe"), nb::arg("elements"), nb::arg("scales"),
        nb::arg("global_scale"), nb::arg("rows"), nb::arg("cols"), nb::arg("scale_layout"), nb::arg("group_counts"),
        "dequantize_activations on raw buffers.");
  m.def("dequantize_weights", &dequantize_weights_buffer, nb::arg("recipe"), nb::arg("packed"), nb::arg("scales"),
        nb::arg("s_dec"), nb::arg("packing"), nb::arg("experts"), nb::arg("n"), nb::arg("k"), nb::arg("out_type"),
        "dequantize_weights_to on raw buffers: packed E2M1 expert weights (k-packed or n-packed) and their block "
        "scales to [E, N, K] in `out_type`, as little-endian bytes.");
  m.def("swiglu_quantize", &swiglu_quantize_buffer, nb::arg("recipe"), nb::arg("x"), nb::arg("input_type"),
        nb::arg("rows"), nb::arg("intermediate"), nb::arg("gate_up_layout"), nb::arg("rows_per_expert"),
        nb::arg("scale_layout"), nb::arg("scale_per_expert"), nb::arg("tensor_amax").none(), nb::arg("fused"),
        "swiglu_quantize_fused / _unfused on raw input bytes.");
  m.def("arrange_scales", scale_move_binding(&arrange_scales), nb::arg("layout"), nb::arg("linear"), nb::arg("rows"),
        nb::arg("group_counts"), nb::arg("kb"), "Linear [rows, kb] scale codes -> the layout's buffer (padding 0).");
  m.def("gather_scales", scale_move_binding(&gather_scales), nb::arg("layout"), nb::arg("arranged"), nb::arg("rows"),
        nb::arg("group_counts"), nb::arg("kb"), "The layout's buffer -> linear [rows, kb] scale codes.");
  m.def("scale_buffer_size", [](const std::string& layout, std::int64_t rows, const std::vector<std::int64_t>& group_counts,
                                std::int64_t kb) {
        return scale_buffer_size(scale_layout_by_name(layout), groups_of(group_counts, rows), kb);
      }, nb::arg("layout"), nb::arg("rows"), nb::arg("group_counts"), nb::arg("kb"),
      "Bytes of a scale buffer in `layout` (padding included).");
}

}  // namespace mxv::python
