// mxv.Recipe (reference/include/mxv/reference/recipe.h): the same fields as the C++ struct, enum
// fields spelled as the strings to_string() gives ("te", "rcp_approx_table", ...), printable
// (to_string), comparable (==), constructible from a preset name plus field overrides.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.h"
#include "mxv/reference/recipe.h"

namespace mxv::python {
namespace {

// The value of enum E whose to_string is `text`. E's values are 0, 1, ...: the walk stops at the
// first value whose name is "?" or repeats one already seen (to_string's fallback for a value
// past the last), so an enumerator added in recipe.h is accepted without a change here.
template <class E>
E parse_enum(const char* field, const std::string& text) {
  std::vector<std::string> names;
  for (int i = 0; i < 64; ++i) {
    const std::string name(to_string(static_cast<E>(i)));
    if (name == "?" || std::find(names.begin(), names.end(), name) != names.end()) break;
    if (name == text) return static_cast<E>(i);
    names.push_back(name);
  }
  std::string valid;
  for (const auto& n : names) valid += (valid.empty() ? "" : ", ") + n;
  throw std::invalid_argument("Recipe." + std::string(field) + ": unknown value '" + text + "' (valid: " + valid + ")");
}

struct Field {
  std::function<nb::object(const Recipe&)> get;
  std::function<void(Recipe&, nb::handle)> set;
  const char* doc;
};

template <class E>
Field enum_field(E Recipe::*member, const char* name, const char* doc) {
  return {[member](const Recipe& r) { return nb::cast(std::string(to_string(r.*member))); },
          [member, name](Recipe& r, nb::handle v) { r.*member = parse_enum<E>(name, nb::cast<std::string>(v)); },
          doc};
}

template <class T>
Field plain_field(T Recipe::*member, const char* doc) {
  return {[member](const Recipe& r) { return nb::cast(r.*member); },
          [member](Recipe& r, nb::handle v) { r.*member = nb::cast<T>(v); }, doc};
}

// Every settable field, in the C++ declaration order (recipe.h documents each value).
const std::vector<std::pair<std::string, Field>>& fields() {
  static const std::vector<std::pair<std::string, Field>> table = {
      {"element", enum_field(&Recipe::element, "element", "Element format: 'e2m1' or 'e4m3'.")},
      {"scale", enum_field(&Recipe::scale, "scale", "Block-scale format: 'e8m0' or 'ue4m3'.")},
      {"block_size", plain_field(&Recipe::block_size, "Elements per block (16 NVFP4, 32 MX).")},
      {"scale_rule", enum_field(&Recipe::scale_rule, "scale_rule", "How an MX scale is chosen.")},
      {"global_scale", enum_field(&Recipe::global_scale, "global_scale", "The per-tensor scale.")},
      {"order", enum_field(&Recipe::order, "order", "The NVFP4 operation order.")},
      {"reciprocal", enum_field(&Recipe::reciprocal, "reciprocal", "How reciprocals are computed.")},
      {"zero_block", enum_field(&Recipe::zero_block, "zero_block", "What an all-zero block stores.")},
      {"nan_in_amax", enum_field(&Recipe::nan_in_amax, "nan_in_amax", "Whether a NaN reaches the block amax.")},
      {"tensor_amax", enum_field(&Recipe::tensor_amax, "tensor_amax", "Tensor amax of 0, Inf or NaN.")},
      {"partial_block", enum_field(&Recipe::partial_block, "partial_block", "K not a multiple of the block.")},
      {"e8m0_decode", enum_field(&Recipe::e8m0_decode, "e8m0_decode", "How E8M0 codes decode.")},
      {"flush_e8m0_zero", plain_field(&Recipe::flush_e8m0_zero, "E8M0 0x00 decodes to 0 (flush-to-zero device).")},
      {"dialect", {[](const Recipe& r) { return nb::cast(std::string(to_string(r.dialect))); },
                   [](Recipe& r, nb::handle v) { r.dialect = dialect_by_name(nb::cast<std::string>(v)); },
                   "Conversion dialect: 'cuda', 'ml_dtypes', 'torch' (torch 2.15, also 'torch@2.15') or 'torch@2.11'."}},
      {"scale_clamp", enum_field(&Recipe::scale_clamp, "scale_clamp", "Clamp of the NVFP4 block scale.")},
      {"element_encoder", enum_field(&Recipe::element_encoder, "element_encoder", "How an element becomes its code.")},
      {"dequant_order", enum_field(&Recipe::dequant_order, "dequant_order", "NVFP4 dequantization order.")},
      {"scale_decode", enum_field(&Recipe::scale_decode, "scale_decode", "The stored type of an NVFP4 scale.")},
      {"e2m1_negative_zero_decodes_positive",
       plain_field(&Recipe::e2m1_negative_zero_decodes_positive, "E2M1 code 0x8 decodes to +0.0 (ModelOpt).")},
      {"intermediate", enum_field(&Recipe::intermediate, "intermediate", "SwiGLU result precision.")},
      {"activation", enum_field(&Recipe::activation, "activation", "Activation before quantization.")},
      {"alpha", plain_field(&Recipe::alpha, "swiglu_clamped alpha.")},
      {"limit", plain_field(&Recipe::limit, "swiglu_clamped limit.")},
      {"exp", enum_field(&Recipe::exp, "exp", "The exp inside the activation.")},
  };
  return table;
}

const Field& field_named(const std::string& name) {
  for (const auto& [n, f] : fields())
    if (n == name) return f;
  throw std::invalid_argument("Recipe has no field '" + name + "'");
}

}  // namespace

void bind_recipe(nb::module_& m) {
  auto cls = nb::class_<Recipe>(m, "Recipe",
                                "Every choice of a block-scaled quantizer (docs/semantics.md). Recipe('nvfp4_te', "
                                "block_size=32) starts from a preset and overrides fields; validate() checks them.");
  cls.def(
      "__init__",
      [](Recipe* self, const std::string& name, nb::kwargs overrides) {
        Recipe r = Recipe::by_name(name);
        for (auto [key, value] : overrides) field_named(nb::cast<std::string>(key)).set(r, value);
        new (self) Recipe(r);
      },
      nb::arg("name") = "nvfp4_te", nb::arg("overrides"), "A preset by name, then field overrides.");
  cls.def_prop_ro("name", [](const Recipe& r) { return std::string(r.name); }, "The preset this recipe started from.");
  for (const auto& [name, field] : fields()) {
    const Field* f = &field;
    cls.def_prop_rw(
        name.c_str(), [f](const Recipe& r) { return f->get(r); },
        [f](Recipe& r, nb::handle v) { f->set(r, v); }, field.doc);
  }
  cls.def("validate", &Recipe::validate, "Raise ValueError naming the field when fields contradict each other.");
  cls.def("fields", [](const Recipe& r) {
        nb::dict d;
        for (const auto& [name, f] : fields()) d[name.c_str()] = f.get(r);
        return d;
      }, "Every field and its value, as a dict.");
  cls.def("copy", [](const Recipe& r) { return r; }, "An independent copy.");
  cls.def("__copy__", [](const Recipe& r) { return r; });
  cls.def("__deepcopy__", [](const Recipe& r, nb::handle) { return r; }, nb::arg("memo"));
  cls.def("__eq__", [](const Recipe& a, const Recipe& b) { return a == b; });
  cls.def("__eq__", [](const Recipe&, nb::handle) { return false; });
  cls.attr("__hash__") = nb::none();
  cls.def("__str__", [](const Recipe& r) { return to_string(r); });
  cls.def("__repr__", [](const Recipe& r) { return "<mxv.Recipe " + to_string(r) + ">"; });
  cls.def_prop_ro("is_nvfp4", &Recipe::is_nvfp4);
  cls.def_prop_ro("is_mx", &Recipe::is_mx);
  cls.def_prop_ro("element_max", &Recipe::element_max);
  cls.def_prop_ro("element_bits", &Recipe::element_bits);
  m.def("preset_names", [] {
        std::vector<std::string> names;
        for (auto n : Recipe::preset_names()) names.emplace_back(n);
        return names;
      }, "Names of the specification presets and one per library, the default (nvfp4_te) first.");
  m.def("library_preset_names", [] {
        std::vector<std::string> names;
        for (auto n : Recipe::library_preset_names()) names.emplace_back(n);
        return names;
      }, "Release- and mode-specific library presets ('nvfp4_torchao@0.16', ...); Recipe() takes them too.");
}

}  // namespace mxv::python
