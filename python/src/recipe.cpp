// mxv.Recipe (reference/include/mxv/reference/recipe.h): the same fields as the C++ struct, enum
// fields spelled as the strings to_string() gives ("te", "rcp_approx_table", ...), printable
// (to_string), comparable (==), constructible from a preset name plus field overrides.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.h"
#include "mxv/reference/recipe.h"

namespace mxv::python {
namespace {

// The value of enum E whose to_string is `text`; E's values are 0 .. count-1.
template <class E>
E parse_enum(const char* field, const std::string& text, int count) {
  std::string valid;
  for (int i = 0; i < count; ++i) {
    const E e = static_cast<E>(i);
    if (to_string(e) == text) return e;
    valid += (i ? ", " : "") + std::string(to_string(e));
  }
  throw std::invalid_argument("Recipe." + std::string(field) + ": unknown value '" + text + "' (valid: " + valid + ")");
}

struct Field {
  std::function<nb::object(const Recipe&)> get;
  std::function<void(Recipe&, nb::handle)> set;
  const char* doc;
};

template <class E>
Field enum_field(E Recipe::*member, const char* name, int count, const char* doc) {
  return {[member](const Recipe& r) { return nb::cast(std::string(to_string(r.*member))); },
          [member, name, count](Recipe& r, nb::handle v) {
            r.*member = parse_enum<E>(name, nb::cast<std::string>(v), count);
          },
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
      {"element", enum_field(&Recipe::element, "element", 2, "Element format: 'e2m1' or 'e4m3'.")},
      {"scale", enum_field(&Recipe::scale, "scale", 2, "Block-scale format: 'e8m0' or 'ue4m3'.")},
      {"block_size", plain_field(&Recipe::block_size, "Elements per block (16 NVFP4, 32 MX).")},
      {"scale_rule", enum_field(&Recipe::scale_rule, "scale_rule", 3, "How an MX scale is chosen.")},
      {"global_scale", enum_field(&Recipe::global_scale, "global_scale", 2, "The per-tensor scale.")},
      {"order", enum_field(&Recipe::order, "order", 5, "The NVFP4 operation order.")},
      {"reciprocal", enum_field(&Recipe::reciprocal, "reciprocal", 2, "How reciprocals are computed.")},
      {"zero_block", enum_field(&Recipe::zero_block, "zero_block", 3, "What an all-zero block stores.")},
      {"nan_in_amax", enum_field(&Recipe::nan_in_amax, "nan_in_amax", 2, "Whether a NaN reaches the block amax.")},
      {"tensor_amax", enum_field(&Recipe::tensor_amax, "tensor_amax", 2, "Tensor amax of 0, Inf or NaN.")},
      {"partial_block", enum_field(&Recipe::partial_block, "partial_block", 1, "K not a multiple of the block.")},
      {"e8m0_decode", enum_field(&Recipe::e8m0_decode, "e8m0_decode", 2, "How E8M0 codes decode.")},
      {"flush_e8m0_zero", plain_field(&Recipe::flush_e8m0_zero, "E8M0 0x00 decodes to 0 (flush-to-zero device).")},
      {"dialect", {[](const Recipe& r) { return nb::cast(std::string(to_string(r.dialect))); },
                   [](Recipe& r, nb::handle v) { r.dialect = dialect_by_name(nb::cast<std::string>(v)); },
                   "Conversion dialect: 'cuda', 'ml_dtypes' or 'torch'."}},
      {"intermediate", enum_field(&Recipe::intermediate, "intermediate", 2, "SwiGLU result precision.")},
      {"activation", enum_field(&Recipe::activation, "activation", 3, "Activation before quantization.")},
      {"alpha", plain_field(&Recipe::alpha, "swiglu_clamped alpha.")},
      {"limit", plain_field(&Recipe::limit, "swiglu_clamped limit.")},
      {"exp", enum_field(&Recipe::exp, "exp", 2, "The exp inside the activation.")},
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
      }, "Names of every preset, the default (nvfp4_te) first.");
}

}  // namespace mxv::python
