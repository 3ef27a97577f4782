// Holds a preset to a library capture (library_capture.h), byte for byte: the preset quantizes
// the captured input and must produce the library's codes, block scales and global scale; the
// preset dequantizes the library's own outputs and must produce the library's dequantized values.
// Every difference comes back as a check-library report (mxv/check/check.h), so a failure
// says which element, which class of difference (tie-flip, nan-policy, scale-off-codes, ...) and
// the pre-rounding value. docs/conformance.md lists the captures and the presets that claim them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "mxv/golden/library_capture.h"
#include "mxv/check/check.h"
#include "mxv/reference/recipe.h"

namespace mxv::golden {

/// The outcome of holding one capture group to one recipe.
struct GroupVerdict {
  std::string path;    // the capture group
  std::string preset;  // the recipe's name
  std::vector<check::Report> reports;  // one per output the group holds
  std::size_t elements = 0;  // input elements quantized (and dequantized, when captured)
  std::size_t blocks = 0;    // blocks (scale bytes) compared
  bool ok() const;
  std::size_t mismatches() const;
  /// The failing reports' text (empty when ok()).
  std::string text() const;
};

/// Quantizes group.input with `recipe` and compares codes, scales and the global scale with the
/// group's (only the outputs listed in group.claimed, when it is set); dequantizes the group's
/// codes, scales and global scale with `recipe` and compares with group.dequantized. Outputs the
/// group does not hold are not compared. A library whose packed rows carry padding (ModelOpt pads
/// K to whole blocks) is compared on its full rows: the padding must be zero codes. Throws
/// std::invalid_argument when the group refused its input (group.error), its shapes contradict
/// the recipe, group.claimed names something that is not one of its outputs, or nothing is left
/// to compare: a verdict always holds at least one comparison.
GroupVerdict check_group(const CaptureGroup& group, const Recipe& recipe);

/// A cast group (torch .to(dtype), ml_dtypes astype): encodes every input with the conversion
/// `convert` ("format:rounding:saturation:dialect", e.g. "e8m0:nearest-even:none:torch") and
/// compares with the captured codes (one per byte; E2M1 codes are packed two per byte for the
/// comparison). Throws std::invalid_argument for a malformed `convert` or a refused group.
GroupVerdict check_cast(const CaptureGroup& group, const std::string& convert);

}  // namespace mxv::golden
