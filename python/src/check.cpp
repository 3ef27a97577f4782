// The check library from Python (check/include/mxv/check/check.h): Report and Mismatch objects,
// compare() on byte buffers, and check_quantize(), which runs the reference quantizer and compares
// a candidate's elements, scales and global scale with it, explained by the reference's
// intermediates (check/quantize_specs/include/mxv/check/quantize_specs.h).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.h"
#include "mxv/check/check.h"
#include "mxv/check/quantize_specs.h"
#include "mxv/check/wide_kinds.h"
#include "mxv/reference/quantize.h"
#include "numpy_buffers.h"

namespace mxv::python {
namespace {

using check::CodeKind;
using check::Layout;
using check::Mismatch;
using check::MismatchClass;
using check::Report;

template <class E>
E parse_check_enum(const char* what, const std::string& text, int count) {
  std::string valid;
  for (int i = 0; i < count; ++i) {
    const E e = static_cast<E>(i);
    if (check::to_string(e) == text) return e;
    valid += (i ? ", " : "") + std::string(check::to_string(e));
  }
  throw std::invalid_argument(std::string(what) + ": unknown value '" + text + "' (valid: " + valid + ")");
}

check::Options options_of(std::optional<int> sentinel, std::size_t guard_before, std::size_t guard_after,
                          std::uint32_t boundary_ulps, std::size_t max_listed) {
  check::Options o;
  if (sentinel) {
    if (*sentinel < 0 || *sentinel > 255) throw std::invalid_argument("sentinel: must be a byte value 0..255");
    o.sentinel = static_cast<std::uint8_t>(*sentinel);
  }
  o.guard_before = guard_before;
  o.guard_after = guard_after;
  o.boundary_ulps = boundary_ulps;
  o.max_listed = max_listed;
  return o;
}

Report compare_buffers(const std::string& name, const std::string& kind, const std::string& layout, std::size_t batches,
                       std::size_t rows, std::size_t cols, const std::vector<std::size_t>& group_rows,
                       std::size_t row_align, const Bytes& expected, const Bytes& actual, std::optional<int> sentinel,
                       std::size_t guard_before, std::size_t guard_after, std::uint32_t boundary_ulps,
                       std::size_t max_listed) {
  check::OutputSpec spec;
  spec.name = name;
  spec.kind = parse_check_enum<CodeKind>("kind", kind, 7);
  spec.layout = parse_check_enum<Layout>("layout", layout, 2);
  spec.batches = batches;
  spec.rows = rows;
  spec.cols = cols;
  spec.group_rows = group_rows;
  spec.row_align = row_align;
  return check::compare(spec, span_of(expected), span_of(actual), {},
                        options_of(sentinel, guard_before, guard_after, boundary_ulps, max_listed));
}

// [elements, scales] and, for NVFP4 when the candidate gives one, [global_scale] reports.
std::vector<Report> check_quantize(const Recipe& recipe, const Bytes& x, const std::string& input_type,
                                   std::int64_t rows, std::int64_t cols, const Bytes& elements, const Bytes& scales,
                                   std::optional<Bytes> global_scale, const std::string& scale_layout,
                                   const std::vector<std::int64_t>& group_counts, bool scale_per_group,
                                   std::optional<float> tensor_amax, std::optional<int> sentinel,
                                   std::uint32_t boundary_ulps, std::size_t max_listed) {
  const QuantizeOptions qo = quantize_options(scale_layout, group_counts, scale_per_group, tensor_amax);
  const WideType type = wide_type_by_name(input_type);
  const QuantizedActivations q = quantize_activations(recipe, type, span_of(x), rows, cols, qo);
  // The raw input bits explain NaN and sign-of-zero mismatches.
  std::vector<std::uint32_t> bits;
  check::InputKind kind = check::InputKind::kFp32;
  if (type == WideType::kFp32) {
    const auto f = floats_of(span_of(x), "x");
    bits = check::input_bits_of(std::span<const float>(f));
  } else {
    std::vector<std::uint16_t> h(x.size() / 2);
    if (!h.empty()) std::memcpy(h.data(), x.data(), h.size() * 2);
    bits = check::input_bits_of(std::span<const std::uint16_t>(h));
    kind = check::input_kind(type);
  }
  const check::Options options = options_of(sentinel, 0, 0, boundary_ulps, max_listed);
  std::vector<Report> reports;
  reports.push_back(check::compare(check::element_spec(q), q.elements, span_of(elements),
                                   check::element_context(recipe, q, bits, kind), options));
  reports.push_back(check::compare(check::scale_spec(recipe, q), q.scales, span_of(scales), check::scale_context(q),
                                   options));
  if (recipe.is_nvfp4() && global_scale) {
    std::vector<float> s_dec;
    for (const TensorScale& t : q.tensor) s_dec.push_back(t.s_dec);
    auto spec = check::OutputSpec::tensor("global_scale", CodeKind::kFp32, 1, s_dec.size());
    reports.push_back(check::compare(spec, check::bytes_of(s_dec), span_of(*global_scale), {}, options));
  }
  return reports;
}

}  // namespace

void bind_check(nb::module_& m) {
  nb::class_<Mismatch>(m, "Mismatch", "One explained difference (check.h Mismatch).")
      .def_prop_ro("cls", [](const Mismatch& x) { return std::string(check::to_string(x.cls)); },
                   "The class name, e.g. 'tie-flip'.")
      .def_prop_ro("region", [](const Mismatch& x) { return std::string(check::to_string(x.region)); })
      .def_ro("byte_offset", &Mismatch::byte_offset)
      .def_ro("nibble", &Mismatch::nibble)
      .def_prop_ro("coord", [](const Mismatch& x) { return nb::make_tuple(x.coord[0], x.coord[1], x.coord[2]); },
                   "(batch, row, col)")
      .def_ro("expected", &Mismatch::expected)
      .def_ro("actual", &Mismatch::actual)
      .def_ro("k", &Mismatch::k)
      .def_prop_ro("found_at", [](const Mismatch& x) -> nb::object {
        if (!x.found_at) return nb::none();
        return nb::make_tuple((*x.found_at)[0], (*x.found_at)[1], (*x.found_at)[2]);
      }, "layout-permutation: (batch, row, col) where the actual value was expected, else None")
      .def_ro("input_bits", &Mismatch::input_bits)
      .def_ro("pre_rounding", &Mismatch::pre_rounding)
      .def_ro("block_amax", &Mismatch::block_amax)
      .def_ro("block_scale", &Mismatch::block_scale)
      .def("__repr__", [](const Mismatch& x) {
        return "<mxv.Mismatch " + std::string(check::to_string(x.cls)) + " at (" + std::to_string(x.coord[0]) + ", " +
               std::to_string(x.coord[1]) + ", " + std::to_string(x.coord[2]) + ") expected " +
               std::to_string(x.expected) + " actual " + std::to_string(x.actual) + ">";
      });
  nb::class_<Report>(m, "Report", "The outcome of one comparison; str() is the C++ text report.")
      .def_prop_ro("ok", &Report::ok, "True when every byte is what the model says.")
      .def_prop_ro("name", [](const Report& r) { return r.spec.name; })
      .def_ro("bytes_compared", &Report::bytes_compared)
      .def_ro("elements_compared", &Report::elements_compared)
      .def_ro("mismatch_count", &Report::mismatch_count)
      .def_prop_ro("counts", [](const Report& r) {
        nb::dict d;
        for (std::size_t c = 0; c < check::kMismatchClassCount; ++c)
          d[std::string(check::to_string(static_cast<MismatchClass>(c))).c_str()] = r.counts[c];
        return d;
      }, "Mismatches per class name (every class, zeros included).")
      .def_ro("listed", &Report::listed, "The first mismatches, in storage order.")
      .def("summary", &Report::summary, "One line: name, verdict, class counts, the first mismatch.")
      .def("text", &Report::text)
      .def("json", &Report::json)
      .def("__str__", &Report::text)
      .def("__repr__", [](const Report& r) { return "<mxv.Report " + r.summary() + ">"; });
  m.def("class_names", [] {
        std::vector<std::pair<std::string, std::string>> out;
        for (std::size_t c = 0; c < check::kMismatchClassCount; ++c) {
          const auto cls = static_cast<MismatchClass>(c);
          out.emplace_back(check::to_string(cls), check::describe(cls));
        }
        return out;
      }, "(name, meaning) of every mismatch class, in precedence order.");
  m.def("compare", &compare_buffers, nb::arg("name"), nb::arg("kind"), nb::arg("layout"), nb::arg("batches"),
        nb::arg("rows"), nb::arg("cols"), nb::arg("group_rows"), nb::arg("row_align"), nb::arg("expected"),
        nb::arg("actual"), nb::arg("sentinel").none(), nb::arg("guard_before"), nb::arg("guard_after"),
        nb::arg("boundary_ulps"), nb::arg("max_listed"), "check::compare on byte buffers.");
  m.def("check_quantize", &check_quantize, nb::arg("recipe"), nb::arg("x"), nb::arg("input_type"), nb::arg("rows"),
        nb::arg("cols"), nb::arg("elements"), nb::arg("scales"), nb::arg("global_scale").none(),
        nb::arg("scale_layout"), nb::arg("group_counts"), nb::arg("scale_per_group"), nb::arg("tensor_amax").none(),
        nb::arg("sentinel").none(), nb::arg("boundary_ulps"), nb::arg("max_listed"),
        "Reference quantization of x, then one report per candidate output.");
}

}  // namespace mxv::python
