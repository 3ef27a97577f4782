// The seeded random inputs of the weight-dequantize tests (issue 5), in one place so that every
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
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "mxv/device/dequantize.h"
#include "mxv/reference/recipe.h"

namespace mxv::test {

/// The seed when MXV_DEQUANT_SEED is not set (the value the ncu calibration was measured with).
inline constexpr std::uint64_t kDefaultDequantSeed = 20250501;

/// The test seed: MXV_DEQUANT_SEED if set, else kDefaultDequantSeed; printed once per process.
inline std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    std::uint64_t s = kDefaultDequantSeed;
    if (const char* e = std::getenv("MXV_DEQUANT_SEED")) s = std::strtoull(e, nullptr, 0);
    std::printf("MXV_DEQUANT_SEED=%llu\n", static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

struct Shape {
  device::WeightPackingAxis packing;
  std::int64_t e, n, k;
  const char* expect;  // "dequantize_tiled" or "dequantize_scalar"
  const char* why;     // the edge case (one comment per case, in the name)
};

/// The salt of a DequantizeMatchesReference case: its inputs depend on the shape only.
inline std::uint64_t case_salt(const Shape& s) { return static_cast<std::uint64_t>(s.e * 1000003 + s.n * 1009 + s.k); }

/// Random weights for one call: every packed byte, every scale code the format has (UE4M3 with
/// the sign bit clear: the reference rejects others), per-expert s_dec of plausible magnitude.
struct Inputs {
  std::vector<std::uint8_t> packed, scales;
  std::vector<float> s_dec;
};

/// The inputs under an explicit seed (make_inputs uses the test seed).
inline Inputs make_inputs_with_seed(std::uint64_t seed, const mxv::Recipe& r, const Shape& s, std::uint64_t salt) {
  std::mt19937_64 rng(seed ^ (salt * 0x9E3779B97F4A7C15ull));
  Inputs in;
  const auto block = static_cast<std::int64_t>(r.block_size);
  in.packed.resize(static_cast<std::size_t>(s.e * s.n * s.k / 2));
  in.scales.resize(static_cast<std::size_t>(s.e * s.n * ((s.k + block - 1) / block)));
  for (auto& b : in.packed) b = static_cast<std::uint8_t>(rng());
  for (auto& b : in.scales) {
    // Mostly moderate scales (values that survive bf16/fp16), sometimes any code.
    const auto any = static_cast<std::uint8_t>(rng());
    const auto moderate = static_cast<std::uint8_t>(r.is_nvfp4() ? 0x20 + rng() % 0x40 : 110 + rng() % 30);
    b = (rng() % 8 == 0) ? any : moderate;
    if (r.is_nvfp4()) b &= 0x7F;
  }
  std::uniform_real_distribution<float> u(1e-3f, 1.0f);
  for (std::int64_t e = 0; e < s.e; ++e) in.s_dec.push_back(u(rng));
  return in;
}

inline Inputs make_inputs(const mxv::Recipe& r, const Shape& s, std::uint64_t salt) {
  return make_inputs_with_seed(test_seed(), r, s, salt);
}

}  // namespace mxv::test
