// The options the quantizing verbs share (command_options.h).
#include "mxv/reference/command_options.h"

#include <stdexcept>

namespace mxv {

NamedOption<Recipe> recipe_option(const std::optional<std::string>& given) {
  std::string name = given.value_or("nvfp4_te");
  Recipe recipe = Recipe::by_name(name);
  return {std::move(name), std::move(recipe)};
}

NamedOption<WideType> wide_type_option(const std::optional<std::string>& given) {
  std::string name = given.value_or("fp32");
  const WideType type = wide_type_by_name(name);
  return {std::move(name), type};
}

std::string mx_refusal(const std::string& recipe_name) {
  return "to the MX recipe '" + recipe_name + "' (MX has no global scale; NVFP4 recipes only)";
}

void require_global_scale_file(const Recipe& recipe, const std::string& recipe_name, bool given,
                               std::string_view option) {
  if (recipe.is_nvfp4() && !given) {
    throw std::invalid_argument(std::string(option) + ": required for the NVFP4 recipe '" + recipe_name + "'");
  }
}

}  // namespace mxv
