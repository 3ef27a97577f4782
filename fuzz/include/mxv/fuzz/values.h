// Input generators aimed at the decisions a quantizer makes (docs/fuzzing.md "Generators"): the
// one place that draws bug-hunting inputs for the device tests, `mxv verify`, the property tests
// and `mxv fuzz`. Every generator is a deterministic function of its arguments and a seed.
//
// Why aim: a value drawn at random almost never lies on a rounding boundary, so an encoder that
// rounds a tie the wrong way, or divides where it should multiply by a reciprocal, passes millions
// of random inputs. These generators construct inputs from the quantized side instead: choose the
// tensor and block scales first, then place elements exactly where the element rounding decides
// (midpoints after scaling, and one ulp of the input type either side), block maxima exactly where
// the scale rounding decides, and the special values each rule treats separately. The positions are
// found by asking the reference's own scale arithmetic (block_scale.h) where the prescaled value
// crosses a target, so they are exact for every recipe order, including non-power-of-two NVFP4
// scales; what the kernels must produce for these inputs is still the reference's business alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "mxv/reference/quantize.h"
#include "mxv/reference/recipe.h"

namespace mxv::fuzz {

/// The random engine of every generator here (seeded, platform-independent sequence).
using Rng = std::mt19937_64;

/// The value classes a generated activation tensor may contain. Every flag off gives the simplest
/// tensor: every element an exact code after scaling (MX: the block maxima too; NVFP4's maxima set
/// the non-power-of-two scale and are not codes themselves). Shrinking turns flags off one by one, so
/// a shrunk counterexample names the classes the failure needs.
struct ValueMix {
  bool midpoints = true;         ///< elements on element-format midpoints after scaling, +-1 ulp
  bool scale_thresholds = true;  ///< block maxima where the scale code changes (E4M3 midpoints of
                                 ///< the NVFP4 scale input; E8M0 steps, 1.5 / 1.75 significands), +-1 ulp
  bool bf16_crossings = true;    ///< fp32 values a few ulps off a decision point that bf16 rounds onto it
  bool zeros = true;             ///< +-0 elements and all-zero blocks
  bool subnormals = true;        ///< fp32 subnormals and elements below the smallest element code
  bool huge = true;              ///< blocks with one huge element and the rest tiny
  bool specials = false;         ///< NaN (both signs, several payloads) and +-Inf
  bool extreme_tensor = false;   ///< NVFP4: a tensor amax that makes s_enc overflow or underflow

  /// "midpoints+scale_thresholds+..." ("plain" when every flag is off).
  std::string to_string() const;
  friend bool operator==(const ValueMix&, const ValueMix&) = default;
};

/// Activations [rows, cols] (fp32 values, each exactly representable in `dtype`: fp32 or bf16)
/// aimed at the decisions of quantizing with `recipe` (blocks of recipe.block_size along a row).
std::vector<float> quantize_inputs(const Recipe& recipe, WideType dtype, std::int64_t rows, std::int64_t cols,
                                   const ValueMix& mix, std::uint64_t seed);

/// Scales `values` by 1/4 (exact) into SiLU's interesting range (around 0, the clamp limit 7,
/// exp's overflow edge); NaN, infinities and magnitudes of 1e6 and more keep their value.
void scale_into_silu_range(std::span<float> values);

/// Gate/up inputs [rows, 2 * inter] for SwiGLU (fp32 values representable in `dtype`): the
/// activation's decision points (0 and its neighbours, the clamp limit +-1 ulp on both inputs,
/// exp's overflow and underflow edges, large negative gates) over a background of quantize_inputs
/// scaled into SiLU's interesting range.
std::vector<float> swiglu_inputs(const Recipe& recipe, WideType dtype, std::int64_t rows, std::int64_t inter,
                                 const ValueMix& mix, std::uint64_t seed);

/// Bug-hunting fp32 values without a recipe (docs/semantics.md sections 1-2): E2M1
/// midpoints and codes at varied binades with their fp32 neighbours, E4M3 decision points, +-0,
/// fp32 subnormals, powers of two, one huge element in some blocks of `block` elements, and
/// (with `specials`) NaN / +-Inf. For converters and kernels whose scales are not chosen from the data.
std::vector<float> bug_hunting_values(std::size_t count, std::size_t block, std::uint64_t seed, bool specials);

/// Packed E2M1 weights with block scales, as the dequantize kernels read them.
struct WeightInputs {
  std::vector<std::uint8_t> packed;  ///< experts * n * k / 2 bytes, every nibble pair possible
  std::vector<std::uint8_t> scales;  ///< experts * n * ceil(k / block) codes
  std::vector<float> s_dec;          ///< one per expert (NVFP4 global decode scale; MX ignores it)
};

/// Random weights: every packed byte; scales mostly in a range whose products survive bf16 / fp16
/// (UE4M3 with the sign bit clear, which the reference requires), one in eight any code; with
/// `edge_scales`, half of those are the format's edge codes instead (UE4M3 0x00 0x01 0x07 0x08 0x7E
/// 0x7F; E8M0 0x00 0x01 0x7F 0xFE 0xFF). s_dec uniform in [1e-3, 1); with `edge_scales`, an NVFP4
/// expert's s_dec is one time in four an edge value instead (just below and at 2^120, 2^125,
/// FLT_MAX, 2^-126, 2^-149). Without edge_scales the sequence is fixed: the ncu calibration test
/// replays it against counters measured on a GPU.
WeightInputs weight_inputs(const Recipe& recipe, std::int64_t experts, std::int64_t n, std::int64_t k, Rng& rng,
                           bool edge_scales);

/// A seed mixed with a salt (splitmix64's finaliser): independent streams per case.
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t salt);

/// FNV-1a of a string (stable across platforms, unlike std::hash): a case name as a salt.
std::uint64_t name_hash(std::string_view s);

/// The seed of a test process: MXV_TEST_SEED (decimal or 0x-hex) when set, else `fallback`.
/// Printed once per process with the line that replays it, so every random test can be replayed.
std::uint64_t test_seed(std::uint64_t fallback);

}  // namespace mxv::fuzz
