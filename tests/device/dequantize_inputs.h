// The seeded random inputs of the weight-dequantize tests, in one place so that every
// test that must see exactly the data of a tests/device/dequantize_test.cpp case derives it the
// same way: tests/emulation/ncu_calibration_test.cpp replays two of those cases on the emulator
// and compares with Nsight Compute counters measured on the GPU while the real cases ran, and the
// tiled kernel's store-request count depends on the data (a warp whose lanes split between its
// fast and its general path issues two store requests on the GPU).
//
// A case's inputs are a function of (seed, recipe, shape): the 64-bit Mersenne Twister is seeded
// with seed ^ (salt * 0x9E3779B97F4A7C15) where the salt comes from the shape (case_salt).
#pragma once

#include <cstdint>
#include <vector>

#include "mxv/device/dequantize.h"
#include "mxv/fuzz/values.h"
#include "mxv/reference/recipe.h"

namespace mxv::test {

/// The default seed (the value the ncu calibration was measured with); MXV_TEST_SEED overrides it.
inline constexpr std::uint64_t kDefaultDequantSeed = 20250501;

/// The test seed: MXV_TEST_SEED if set, else kDefaultDequantSeed; printed once per process.
inline std::uint64_t test_seed() { return fuzz::test_seed(kDefaultDequantSeed); }

struct Shape {
  WeightPacking packing;
  std::int64_t e, n, k;
  const char* expect;  // "dequantize_tiled" or "dequantize_scalar"
  const char* why;     // the edge case (one comment per case, in the name)
};

/// The salt of a DequantizeMatchesReference case: its inputs depend on the shape only.
inline std::uint64_t case_salt(const Shape& s) { return static_cast<std::uint64_t>(s.e * 1000003 + s.n * 1009 + s.k); }

/// Random weights for one call (fuzz::weight_inputs without edge scales: every packed byte, every
/// UE4M3 code with the sign bit clear or E8M0 code, per-expert s_dec of plausible magnitude).
using Inputs = fuzz::WeightInputs;

/// The inputs under an explicit seed (make_inputs uses the test seed).
inline Inputs make_inputs_with_seed(std::uint64_t seed, const mxv::Recipe& r, const Shape& s, std::uint64_t salt) {
  fuzz::Rng rng(seed ^ (salt * 0x9E3779B97F4A7C15ull));
  return fuzz::weight_inputs(r, s.e, s.n, s.k, rng, false);
}

inline Inputs make_inputs(const mxv::Recipe& r, const Shape& s, std::uint64_t salt) {
  return make_inputs_with_seed(test_seed(), r, s, salt);
}

}  // namespace mxv::test
