// What the quantize, dequantize and swiglu-quantize verbs' logic reads alike from its options
// (docs/cli.md, "Vocabulary"): a named choice with its default, kept with the name as typed for
// the messages, and the rule of the global-scale file, which is NVFP4's alone.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "mxv/reference/recipe.h"
#include "mxv/reference/vocabulary.h"

namespace mxv {

/// A value chosen by name: the name as given (or the default) and what it names.
template <class T>
struct NamedOption {
  std::string name;
  T value;
};

/// --recipe: the preset it names, nvfp4_te when not given; throws for an unknown name.
NamedOption<Recipe> recipe_option(const std::optional<std::string>& given);
/// --dtype / --out-dtype: the wide type it names, fp32 when not given; throws for an unknown name.
NamedOption<WideType> wide_type_option(const std::optional<std::string>& given);

/// Why an NVFP4-only option is refused with the MX recipe `recipe_name` (io::reject_if_given's
/// reason).
std::string mx_refusal(const std::string& recipe_name);
/// The global-scale file (`--out-global` written, `--global` read) is required with an NVFP4
/// recipe: throws std::invalid_argument naming `option` when it is not given.
void require_global_scale_file(const Recipe& recipe, const std::string& recipe_name, bool given,
                               std::string_view option);

}  // namespace mxv
