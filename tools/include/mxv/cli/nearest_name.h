// "Did you mean": the known name closest to a mistyped one, for unknown verbs and values.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace mxv::cli {

/// Edit distance (insertions, deletions, substitutions, each 1; a swap of two adjacent
/// characters also 1, the commonest typo).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The name in `known` nearest to `typed` if it is near enough to be a typo (distance at most
/// a third of the longer name, and at least 1 allowed), or one that `typed` is a prefix of;
/// "" when none is.
std::string nearest_name(std::string_view typed, std::span<const std::string> known);

}  // namespace mxv::cli
