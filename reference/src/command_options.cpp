// The options the quantizing verbs share (command_options.h).
#include "mxv/reference/command_options.h"

#include <array>
#include <sstream>
#include <stdexcept>

namespace mxv {
namespace {

// A bare noun ("packing", "scale layout"): the model's name for what the option sets. Anything
// else before the first ": " ("layout 'x' is not valid") is part of the reason and is kept.
bool is_subject(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (!((c >= 'a' && c <= 'z') || c == ' ')) return false;
  }
  return true;
}

}  // namespace

std::string option_message(std::string_view option, std::string_view message) {
  const std::size_t colon = message.find(": ");
  if (colon != std::string_view::npos && is_subject(message.substr(0, colon))) message.remove_prefix(colon + 2);
  return std::string(option) + ": " + std::string(message);
}

NamedOption<Recipe> recipe_option(const std::optional<std::string>& given) {
  std::string name = given.value_or("nvfp4_te");
  Recipe recipe = for_option("--recipe", [&] { return Recipe::by_name(name); });
  return {std::move(name), std::move(recipe)};
}

NamedOption<WideType> wide_type_option(const std::optional<std::string>& given, std::string_view option) {
  std::string name = given.value_or("fp32");
  const WideType type = for_option(option, [&] { return wide_type_by_name(name); });
  return {std::move(name), type};
}

ScaleLayout scale_layout_option(const std::optional<std::string>& given, std::string_view fallback) {
  return for_option("--scale-layout", [&] { return scale_layout_by_name(given.value_or(std::string(fallback))); });
}

void check_codes(std::string_view option, const std::string& path, std::span<const std::uint8_t> codes,
                 const std::function<void(std::uint8_t)>& decode_one,
                 const std::function<std::int64_t(std::size_t)>& offset_of) {
  // Each of the 256 byte values is decoded once, so a large file costs one table look-up a byte.
  std::array<std::string, 256> refusal;
  for (std::size_t c = 0; c < refusal.size(); ++c) {
    try {
      decode_one(static_cast<std::uint8_t>(c));
    } catch (const std::invalid_argument& e) {
      refusal[c] = e.what();
    }
  }
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const std::string& why = refusal[codes[i]];
    if (why.empty()) continue;
    const std::int64_t offset = offset_of ? offset_of(i) : static_cast<std::int64_t>(i);
    throw std::invalid_argument(option_message(
        std::string(option) + ": '" + path + "' byte " + std::to_string(offset), why));
  }
}

std::string tensor_scales_summary(std::span<const TensorScale> scales) {
  std::ostringstream out;
  if (scales.size() == 1) {
    out << "tensor amax " << scales[0].amax << ", s_dec " << scales[0].s_dec;
    return out.str();
  }
  auto list = [&](float TensorScale::*field) {
    out << '[';
    for (std::size_t e = 0; e < scales.size(); ++e) out << (e == 0 ? "" : ", ") << scales[e].*field;
    out << ']';
  };
  out << "per expert tensor amax ";
  list(&TensorScale::amax);
  out << ", s_dec ";
  list(&TensorScale::s_dec);
  return out.str();
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
