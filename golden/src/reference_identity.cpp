// The reference model's identity (golden_file.h reference_model_identity): one SHA-256 over what
// decides every expected output, so a golden file records which model produced it. It hashes the
// full text of every preset (all recipe fields) and, for every format and every conversion mode
// the reference supports, the codes it gives for that format's conversion probes (every value,
// midpoint, neighbour and special value; golden_inputs.h). A change to a recipe or to an encoding
// rule changes it; a refactoring that changes no output does not.
#include <cstring>
#include <string>
#include <vector>

#include "mxv/golden/golden_file.h"
#include "mxv/golden/golden_inputs.h"
#include "mxv/reference/convert_command.h"

namespace mxv::golden {

std::string reference_model_identity() {
  std::vector<std::uint8_t> text;
  auto append = [&](const std::string& s) { text.insert(text.end(), s.begin(), s.end()); };
  for (const std::string_view name : Recipe::preset_names()) {
    const Recipe r = Recipe::by_name(name);
    append(to_string(r));
    // to_string prints the float fields rounded; their bits are part of the model.
    std::uint32_t bits[2];
    std::memcpy(&bits[0], &r.alpha, 4);
    std::memcpy(&bits[1], &r.limit, 4);
    append(" alpha_bits=" + std::to_string(bits[0]) + " limit_bits=" + std::to_string(bits[1]) + "\n");
  }
  for (const FloatFormat* f : {&kE2M1, &kE4M3, &kUE4M3, &kE8M0}) {
    const std::vector<float> probes = conversion_probes(*f);
    for (const Dialect d : kAllDialects) {
      for (const Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kUp}) {
        for (const Saturation s : {Saturation::kFinite, Saturation::kNone}) {
          const ConvertMode mode{r, s, d};
          try {
            validate(*f, mode);
          } catch (const std::invalid_argument&) {
            continue;
          }
          append(std::string(f->name) + " " + std::string(to_string(r)) + " " + std::string(to_string(s)) + " " +
                 std::string(to_string(d)) + ":");
          for (const float x : probes) text.push_back(encode(*f, x, mode));
          append("\n");
        }
      }
    }
  }
  return mxv::sha256_hex(text);
}

}  // namespace mxv::golden
