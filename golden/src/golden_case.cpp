// Golden cases (golden_case.h): which datasets each operation has, with their shapes, and the
// reference model run that produces a case's expected outputs. The shapes follow the reference's
// own output layouts (reference/quantize.h, weight_layout.h, swiglu_quantize.h) so that stored
// bytes are exactly what a kernel writes; docs/golden-files.md lists them per operation.
#include "mxv/golden/golden_case.h"

#include <bit>
#include <sstream>
#include <stdexcept>

#include "mxv/check/quantize_specs.h"
#include "mxv/check/wide_kinds.h"
#include "mxv/io/enum_names.h"
#include "mxv/reference/gate_up_bytes.h"
#include "mxv/reference/swiglu_quantize.h"
#include "mxv/reference/wide_float.h"

namespace mxv::golden {

namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("golden case: " + what); }

check::CodeKind code_kind(const FloatFormat& f) {
  if (f == kE2M1) return check::CodeKind::kE2M1x2;
  if (f == kE4M3) return check::CodeKind::kE4M3;
  if (f == kUE4M3) return check::CodeKind::kUE4M3;
  return check::CodeKind::kE8M0;
}

std::uint64_t u64(std::int64_t v) { return static_cast<std::uint64_t>(v); }
std::size_t sz(std::int64_t v) { return static_cast<std::size_t>(v); }

DatasetSpec spec(std::string name, check::CodeKind kind, std::vector<std::uint64_t> shape,
                 check::Layout layout = check::Layout::kRowMajor) {
  DatasetSpec s;
  s.name = std::move(name);
  s.kind = kind;
  s.layout = layout;
  s.shape = std::move(shape);
  return s;
}

/// Codes of `n` elements: packed pairs for E2M1, one byte each otherwise.
DatasetSpec code_spec(std::string name, const FloatFormat& f, std::int64_t n) {
  const std::int64_t bytes = f == kE2M1 ? (n + 1) / 2 : n;
  return spec(std::move(name), code_kind(f), {u64(bytes)});
}

/// The quantize / swiglu output datasets (element and scale layouts of reference/quantize.h).
std::vector<DatasetSpec> quantized_specs(const Recipe& r, std::int64_t rows, std::int64_t cols,
                                         const std::vector<std::int64_t>& groups, ScaleLayout layout, bool with_amax) {
  const GroupedRows g = groups.empty() ? GroupedRows::single(rows) : GroupedRows::from_counts(groups);
  const std::int64_t kb = scale_cols(cols, r.block_size);
  const check::CodeKind ek = r.element == ElementFormat::kFp4E2M1 ? check::CodeKind::kE2M1x2 : check::CodeKind::kE4M3;
  const check::CodeKind sk = r.is_nvfp4() ? check::CodeKind::kUE4M3 : check::CodeKind::kE8M0;
  std::vector<DatasetSpec> out;
  out.push_back(spec("elements", ek, {u64(rows), u64(element_row_bytes(r, cols))}));
  if (layout == ScaleLayout::kLinear) {
    out.push_back(spec("scales", sk, {u64(rows), u64(kb)}));
  } else {
    // Swizzled scales are stored flat: their storage order is tiles, not [rows, kb].
    out.push_back(spec("scales", sk, {u64(scale_buffer_size(layout, g, kb))}, check::Layout::kSwizzled128x4));
  }
  if (r.is_nvfp4()) {
    if (with_amax) out.push_back(spec("amax", check::CodeKind::kFp32, {1}));
    out.push_back(spec("s_dec", check::CodeKind::kFp32, {1}));
  }
  return out;
}

void validate_groups(const CaseParams& p) {
  if (p.groups.empty()) return;
  std::int64_t sum = 0;
  for (const std::int64_t c : p.groups) {
    if (c < 0) bad("groups must be >= 0");
    sum += c;
  }
  if (sum != p.rows) bad("groups sum to " + std::to_string(sum) + " but rows is " + std::to_string(p.rows));
}

}  // namespace

std::string_view to_string(Op op) {
  return io::enum_name(op, {"encode", "decode", "quantize", "dequantize", "swiglu_quantize"});
}

Op op_by_name(std::string_view name) {
  for (const Op op : {Op::kEncode, Op::kDecode, Op::kQuantize, Op::kDequantize, Op::kSwigluQuantize}) {
    if (to_string(op) == name) return op;
  }
  throw std::invalid_argument("op '" + std::string(name) +
                              "' is not one of: encode, decode, quantize, dequantize, swiglu_quantize");
}

void CaseParams::validate() const {
  switch (op) {
    case Op::kEncode:
    case Op::kDecode:
      // Decoding is exact in every dialect: only encoding has modes to validate.
      if (op == Op::kEncode) mxv::validate(format_by_name(format), mode);
      (void)format_by_name(format);
      if (rows != 1 || cols < 1) bad("encode / decode take rows = 1 and cols (the count) >= 1");
      return;
    case Op::kQuantize:
      recipe.validate();
      if (rows < 1 || cols < 1) bad("quantize needs rows >= 1 and cols >= 1");
      validate_groups(*this);
      return;
    case Op::kDequantize:
      recipe.validate();
      if (recipe.element != ElementFormat::kFp4E2M1) bad("dequantize takes E2M1 weights (an MXFP4 or NVFP4 recipe)");
      if (experts < 1 || rows < 1 || cols < 1) bad("dequantize needs experts, rows (N) and cols (K) >= 1");
      (void)packed_weight_bytes(packing, WeightShape{experts, rows, cols});  // the packed axis must be even
      return;
    case Op::kSwigluQuantize:
      recipe.validate();
      if (!recipe.is_nvfp4()) bad("swiglu_quantize takes an NVFP4 recipe");
      if (dtype == WideType::kFp16) bad("swiglu_quantize takes fp32 or bf16 gate/up");
      if (rows < 1 || cols < 1) bad("swiglu_quantize needs rows >= 1 and cols (I) >= 1");
      gate_up.validate(sz(cols));
      SwigluActivation::from_recipe(recipe).validate();
      validate_groups(*this);
      return;
  }
}

std::string CaseParams::summary() const {
  std::ostringstream s;
  s << to_string(op) << " ";
  switch (op) {
    case Op::kEncode:
    case Op::kDecode:
      s << format << " " << to_string(mode.rounding) << "/" << to_string(mode.saturation) << "/"
        << to_string(mode.dialect) << " " << to_string(dtype) << " n=" << cols;
      break;
    case Op::kQuantize:
      s << recipe.name << " " << to_string(dtype) << " M=" << rows << " K=" << cols << " " << to_string(scale_layout);
      break;
    case Op::kDequantize:
      s << recipe.name << " " << to_string(packing) << " E=" << experts << " N=" << rows << " K=" << cols << " -> "
        << to_string(dtype);
      break;
    case Op::kSwigluQuantize:
      s << recipe.name << " " << to_string(dtype) << " M=" << rows << " I=" << cols << " " << to_string(gate_up) << " "
        << to_string(recipe.activation) << " intermediate=" << to_string(recipe.intermediate) << " "
        << to_string(scale_layout);
      break;
  }
  if (!groups.empty()) {
    s << " groups=";
    for (std::size_t i = 0; i < groups.size(); ++i) s << (i ? "/" : "") << groups[i];
  }
  if (tensor_amax) s << " tensor_amax=" << *tensor_amax;
  return s.str();
}

std::uint64_t DatasetSpec::bytes() const {
  std::uint64_t n = 1;
  for (const std::uint64_t d : shape) n *= d;
  switch (kind) {
    case check::CodeKind::kBf16:
    case check::CodeKind::kFp16: return 2 * n;
    case check::CodeKind::kFp32: return 4 * n;
    default: return n;
  }
}

std::vector<DatasetSpec> input_specs(const CaseParams& p) {
  p.validate();
  switch (p.op) {
    case Op::kEncode: return {spec("x", check::code_kind(p.dtype), {u64(p.cols)})};
    case Op::kDecode: return {code_spec("codes", format_by_name(p.format), p.cols)};
    case Op::kQuantize: return {spec("x", check::code_kind(p.dtype), {u64(p.rows), u64(p.cols)})};
    case Op::kDequantize: {
      const check::CodeKind sk = p.recipe.is_nvfp4() ? check::CodeKind::kUE4M3 : check::CodeKind::kE8M0;
      const std::vector<std::uint64_t> packed_shape =
          p.packing == WeightPacking::kKPacked ? std::vector<std::uint64_t>{u64(p.experts), u64(p.rows), u64(p.cols / 2)}
                                               : std::vector<std::uint64_t>{u64(p.experts), u64(p.cols), u64(p.rows / 2)};
      std::vector<DatasetSpec> in = {
          spec("packed", check::CodeKind::kE2M1x2, packed_shape),
          spec("scales", sk, {u64(p.experts), u64(p.rows), u64(scale_cols(p.cols, p.recipe.block_size))})};
      if (p.recipe.is_nvfp4()) in.push_back(spec("s_dec", check::CodeKind::kFp32, {u64(p.experts)}));
      return in;
    }
    case Op::kSwigluQuantize: return {spec("gate_up", check::code_kind(p.dtype), {u64(p.rows), u64(2 * p.cols)})};
  }
  return {};
}

std::vector<DatasetSpec> output_specs(const CaseParams& p) {
  p.validate();
  switch (p.op) {
    case Op::kEncode: return {code_spec("codes", format_by_name(p.format), p.cols)};
    case Op::kDecode: return {spec("values", check::code_kind(p.dtype), {u64(p.cols)})};
    case Op::kQuantize: return quantized_specs(p.recipe, p.rows, p.cols, p.groups, p.scale_layout, true);
    case Op::kDequantize: return {spec("out", check::code_kind(p.dtype), {u64(p.experts), u64(p.rows), u64(p.cols)})};
    case Op::kSwigluQuantize: return quantized_specs(p.recipe, p.rows, p.cols, p.groups, p.scale_layout, false);
  }
  return {};
}

Dataset input_dataset(const CaseParams& p, std::string_view name, std::vector<std::uint8_t> bytes) {
  for (DatasetSpec& s : input_specs(p)) {
    if (s.name != name) continue;
    if (bytes.size() != s.bytes()) {
      bad("input '" + std::string(name) + "' needs " + std::to_string(s.bytes()) + " bytes, got " +
          std::to_string(bytes.size()));
    }
    return Dataset{std::move(s), std::move(bytes)};
  }
  bad("a " + std::string(to_string(p.op)) + " case has no input named '" + std::string(name) + "'");
}

namespace {

/// The reference run with the storage its check contexts view.
class Run final : public ReferenceRun {
 public:
  std::vector<std::uint32_t> input_bits;
  std::vector<float> pre_rounding;
  QuantizedActivations q;
  std::vector<float> amax, s_dec;

  void add(DatasetSpec s, std::vector<std::uint8_t> bytes, check::OutputSpec cs, check::Context ctx = {}) {
    if (bytes.size() != s.bytes() || check::storage_bytes(cs) != s.bytes()) {
      // The dataset shapes (output_specs) and the reference's own layout must agree.
      throw std::logic_error("golden case: output '" + s.name + "' has " + std::to_string(bytes.size()) +
                             " bytes, its dataset spec " + std::to_string(s.bytes()) + ", the check spec " +
                             std::to_string(check::storage_bytes(cs)));
    }
    outputs.push_back(Dataset{std::move(s), std::move(bytes)});
    check_specs.push_back(std::move(cs));
    contexts.push_back(ctx);
  }

  void add_quantized(const Recipe& r, std::vector<DatasetSpec> specs, std::span<const std::uint32_t> bits,
                     check::InputKind kind) {
    const float* tensor_amax = &q.tensor.at(0).amax;
    amax = {*tensor_amax};
    s_dec = {q.tensor.at(0).s_dec};
    for (DatasetSpec& s : specs) {
      if (s.name == "elements") {
        add(s, q.elements, check::element_spec(q), check::element_context(r, q, bits, kind));
      } else if (s.name == "scales") {
        add(s, q.scales, check::scale_spec(r, q), check::scale_context(q));
      } else if (s.name == "amax") {
        const auto b = check::bytes_of(amax);
        add(s, {b.begin(), b.end()}, check::OutputSpec::scalar("amax"));
      } else {
        const auto b = check::bytes_of(s_dec);
        add(s, {b.begin(), b.end()}, check::OutputSpec::scalar("s_dec"));
      }
    }
  }
};

}  // namespace

std::unique_ptr<ReferenceRun> run_reference(const CaseParams& p, std::span<const Dataset> inputs) {
  const std::vector<DatasetSpec> in_specs = input_specs(p);
  if (inputs.size() != in_specs.size()) {
    bad("a " + std::string(to_string(p.op)) + " case takes " + std::to_string(in_specs.size()) + " inputs, got " +
        std::to_string(inputs.size()));
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].spec.name != in_specs[i].name || inputs[i].bytes.size() != in_specs[i].bytes()) {
      bad("input " + std::to_string(i) + " must be '" + in_specs[i].name + "' of " + std::to_string(in_specs[i].bytes()) +
          " bytes, got '" + inputs[i].spec.name + "' of " + std::to_string(inputs[i].bytes.size()));
    }
  }
  std::vector<DatasetSpec> out_specs = output_specs(p);
  auto run = std::make_unique<Run>();
  switch (p.op) {
    case Op::kEncode: {
      const FloatFormat& f = format_by_name(p.format);
      const std::vector<std::uint8_t>& x = inputs[0].bytes;
      run->input_bits = check::input_bits(p.dtype, x);
      run->pre_rounding = widen_to_fp32(p.dtype, x);
      const std::size_t n = sz(p.cols);
      std::vector<std::uint8_t> codes(n);
      for (std::size_t i = 0; i < n; ++i) {
        const auto h = static_cast<std::uint16_t>(run->input_bits[i]);
        codes[i] = p.dtype == WideType::kFp32   ? encode(f, std::bit_cast<float>(run->input_bits[i]), p.mode)
                   : p.dtype == WideType::kBf16 ? encode_bf16(f, h, p.mode)
                                                : encode_fp16(f, h, p.mode);
      }
      check::OutputSpec cs = check::OutputSpec::tensor("codes", code_kind(f), 1, n);
      if (f == kE2M1) {
        std::vector<std::uint8_t> packed((n + 1) / 2, 0);
        for (std::size_t i = 0; i < n; ++i) packed[i / 2] |= static_cast<std::uint8_t>(codes[i] << (4 * (i % 2)));
        codes = std::move(packed);
        cs = check::OutputSpec::packed_e2m1("codes", 1, n);
      }
      check::Context ctx;
      ctx.input_kind = check::input_kind(p.dtype);
      ctx.input_bits = run->input_bits;
      ctx.pre_rounding = run->pre_rounding;
      run->add(out_specs[0], std::move(codes), cs, ctx);
      run->oracle = "mxv reference: encode (reference/src/float_format.cpp)";
      break;
    }
    case Op::kDecode: {
      const FloatFormat& f = format_by_name(p.format);
      const std::vector<std::uint8_t>& codes = inputs[0].bytes;
      const std::size_t n = sz(p.cols);
      std::vector<float> values(n);
      for (std::size_t i = 0; i < n; ++i) {
        const auto code = f == kE2M1 ? static_cast<std::uint8_t>((codes[i / 2] >> (4 * (i % 2))) & 0xF) : codes[i];
        values[i] = decode(f, code, p.mode.dialect);
      }
      run->pre_rounding = values;
      check::Context ctx;
      ctx.pre_rounding = run->pre_rounding;
      run->add(out_specs[0], narrow_from_fp32(p.dtype, values),
               check::OutputSpec::tensor("values", check::code_kind(p.dtype), 1, n), ctx);
      run->oracle = "mxv reference: decode (reference/src/float_format.cpp)";
      break;
    }
    case Op::kQuantize: {
      QuantizeOptions qo;
      qo.scale_layout = p.scale_layout;
      qo.group_counts = p.groups;
      qo.tensor_amax = p.tensor_amax;
      run->q = quantize_activations(p.recipe, p.dtype, inputs[0].bytes, p.rows, p.cols, qo);
      run->input_bits = check::input_bits(p.dtype, inputs[0].bytes);
      run->add_quantized(p.recipe, out_specs, run->input_bits, check::input_kind(p.dtype));
      run->oracle = "mxv reference: quantize_activations (reference/src/quantize.cpp)";
      break;
    }
    case Op::kDequantize: {
      const WeightShape shape{p.experts, p.rows, p.cols};
      std::vector<float> s_dec;
      if (p.recipe.is_nvfp4()) s_dec = widen_to_fp32(WideType::kFp32, inputs[2].bytes);
      run->pre_rounding = dequantize_weights(p.recipe, p.packing, shape, inputs[0].bytes, inputs[1].bytes, s_dec);
      check::OutputSpec cs =
          check::OutputSpec::tensor("out", check::code_kind(p.dtype), sz(p.rows), sz(p.cols), sz(p.experts));
      cs.axes = {"expert", "n", "k"};
      check::Context ctx;
      ctx.pre_rounding = run->pre_rounding;
      run->add(out_specs[0], narrow_from_fp32(p.dtype, run->pre_rounding), cs, ctx);
      run->oracle = "mxv reference: dequantize_weights_to (reference/src/weight_layout.cpp)";
      break;
    }
    case Op::kSwigluQuantize: {
      // validate() admits fp32 and bf16 gate/up only.
      const GateUpBytes gate_up(p.dtype, inputs[0].bytes, sz(p.rows), sz(p.cols));
      SwigluQuantizeOptions so;
      so.layout = p.gate_up;
      so.group_counts = p.groups;
      so.scale_layout = p.scale_layout;
      so.tensor_amax = p.tensor_amax;
      run->q = swiglu_quantize_fused(p.recipe, gate_up.view(), so).quantized;
      run->add_quantized(p.recipe, out_specs, {}, check::InputKind::kNone);
      run->oracle = "mxv reference: swiglu_quantize_fused (reference/src/swiglu_quantize.cpp)";
      break;
    }
  }
  return run;
}

GoldenCase make_case(std::string name, const CaseParams& p, std::vector<Dataset> inputs, std::string why) {
  const std::unique_ptr<ReferenceRun> run = run_reference(p, inputs);
  GoldenCase c;
  c.name = std::move(name);
  c.why = std::move(why);
  c.oracle = run->oracle;
  c.params = p;
  c.inputs = std::move(inputs);
  c.expected = run->outputs;
  return c;
}

}  // namespace mxv::golden
