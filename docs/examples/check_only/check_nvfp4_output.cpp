// Holding a quantizer's NVFP4 output to mxv's reference with the check library alone, no test
// framework: the program exits 0 when the reference's own bytes pass and a planted bug (the two
// nibbles of one byte swapped, as a kernel that packs the pair in the wrong order writes them) is
// reported once, in the class nibble-swap.
#include <cstdint>
#include <iostream>
#include <random>
#include <utility>
#include <vector>

#include "mxv/check/check.h"
#include "mxv/check/quantize_specs.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/recipe.h"

int main() {
  constexpr std::int64_t kRows = 4;
  constexpr std::int64_t kCols = 64;
  constexpr std::uint64_t kSeed = 20261201;  // replay: the inputs are a pure function of it
  std::mt19937_64 rng(kSeed);
  std::normal_distribution<float> dist(0.0f, 3.0f);
  std::vector<float> x(static_cast<std::size_t>(kRows * kCols));
  for (float& v : x) v = dist(rng);

  const mxv::Recipe recipe = mxv::Recipe::by_name("nvfp4_te");
  const mxv::QuantizedActivations q = mxv::quantize_activations(recipe, x, kRows, kCols);
  const mxv::check::OutputSpec spec = mxv::check::element_spec(q);
  const mxv::check::Context context = mxv::check::element_context(recipe, q);

  // The candidate: the reference's bytes, with the first byte whose nibbles differ swapped.
  std::vector<std::uint8_t> candidate = q.elements;
  std::size_t planted = 0;
  while (planted < candidate.size() && (candidate[planted] & 0xF) == (candidate[planted] >> 4)) ++planted;
  if (planted == candidate.size()) {
    std::cerr << "seed " << kSeed << ": no byte with two different nibbles to plant the bug in\n";
    return 1;
  }
  candidate[planted] = static_cast<std::uint8_t>((candidate[planted] << 4) | (candidate[planted] >> 4));

  const mxv::check::Report clean = mxv::check::compare(spec, q.elements, q.elements, context);
  const mxv::check::Report planted_report = mxv::check::compare(spec, q.elements, candidate, context);
  std::cout << planted_report << "\n";
  const bool found = planted_report.mismatch_count == 2 &&
                     planted_report.count(mxv::check::MismatchClass::kNibbleSwap) == 2;
  if (!clean.ok() || !found) {
    std::cerr << "seed " << kSeed << ": expected the reference to pass (" << clean.summary()
              << ") and the swapped byte " << planted << " to be reported as a nibble swap\n";
    return 1;
  }
  return 0;
}
