// What the quantize, dequantize and swiglu-quantize verbs' logic reads alike from its options
// (docs/cli.md, "Vocabulary"): a named choice with its default, kept with the name as typed for
// the messages, the rule of the global-scale file, which is NVFP4's alone, and the naming of the
// option in what the reference model refuses (the model knows nothing of the command line).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "mxv/reference/block_scale.h"
#include "mxv/reference/recipe.h"
#include "mxv/reference/vocabulary.h"

namespace mxv {

/// A value chosen by name: the name as given (or the default) and what it names.
template <class T>
struct NamedOption {
  std::string name;
  T value;
};

/// `message` (what the reference model threw) as an error of `option`: the model's subject, a
/// bare noun before the first ": " ("packing: unknown name 'x'"), is replaced by the option
/// ("--packing: unknown name 'x'"); any other message is kept whole after "<option>: ".
std::string option_message(std::string_view option, std::string_view message);

/// Runs `call` (a model parser or check) and rethrows what it refuses as an error of `option`
/// (option_message), so every refusal names the option the user can change.
template <class Call>
auto for_option(std::string_view option, Call&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(option_message(option, e.what()));
  }
}

/// --recipe: the preset it names, nvfp4_te when not given; throws naming --recipe for an unknown
/// name.
NamedOption<Recipe> recipe_option(const std::optional<std::string>& given);
/// --dtype / --out-dtype (`option`): the wide type it names, fp32 when not given; throws naming
/// `option` for an unknown name.
NamedOption<WideType> wide_type_option(const std::optional<std::string>& given, std::string_view option = "--dtype");
/// --scale-layout: the layout it names, `fallback` when not given; throws naming --scale-layout.
ScaleLayout scale_layout_option(const std::optional<std::string>& given, std::string_view fallback);

/// Refuses the first code of a file (`path`, given as `option`) that `decode_one`, the model's
/// decoder of one code, throws for: "<option>: '<path>' byte <offset>: 0x94 is not a ue4m3 code".
/// `offset_of(i)` is the file offset of the i-th code checked (the identity when empty), for codes
/// gathered out of a padded layout. The model would refuse the code too, but without saying in
/// which file or where.
void check_codes(std::string_view option, const std::string& path, std::span<const std::uint8_t> codes,
                 const std::function<void(std::uint8_t)>& decode_one,
                 const std::function<std::int64_t(std::size_t)>& offset_of = {});

/// The summary's global scales: "tensor amax A, s_dec S" for one, "per expert tensor amax
/// [A0, A1], s_dec [S0, S1]" for one per expert (--scale-per-expert), so no expert's is hidden.
std::string tensor_scales_summary(std::span<const TensorScale> scales);

/// Why an NVFP4-only option is refused with the MX recipe `recipe_name` (io::reject_if_given's
/// reason).
std::string mx_refusal(const std::string& recipe_name);
/// The global-scale file (`--out-global` written, `--global` read) is required with an NVFP4
/// recipe: throws std::invalid_argument naming `option` when it is not given.
void require_global_scale_file(const Recipe& recipe, const std::string& recipe_name, bool given,
                               std::string_view option);

}  // namespace mxv
