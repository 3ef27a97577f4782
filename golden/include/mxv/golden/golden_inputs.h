// The inputs of the committed golden cases (golden_catalogue.h): chosen where conversion and
// quantization bugs live (docs/semantics.md sections 1-4: formats, conversions, dialects and
// block scaling), and deterministic: the same seed gives the same bytes on every
// platform (std::mt19937_64 and integer arithmetic only; no std:: distributions, whose outputs are
// implementation-defined).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "mxv/reference/float_format.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/recipe.h"

namespace mxv::golden {

/// Every value a conversion to `format` must get right, in ascending order, both signs: each
/// representable value and its two fp32 neighbours, each midpoint between adjacent values and its
/// two neighbours, the overflow midpoint above the largest value, +-0, +-Inf, NaN of both signs,
/// FLT_MAX, and fp32 subnormals (the smallest one, and below the format's smallest value).
std::vector<float> conversion_probes(const FloatFormat& format);

/// The same probes as values of `type` (bf16 / fp16 rounded to nearest even, each with its two
/// neighbours in that type), little-endian bytes, duplicates removed.
std::vector<std::uint8_t> wide_probes(WideType type, std::span<const float> probes);

/// Activations [rows, cols] for quantization, block by block (blocks of recipe.block_size along a
/// row) cycling through: an all-zero block (+0 and -0), a block of fp32 subnormals, a block whose
/// scale is a power of two 2^k and whose elements sit exactly on element-format midpoints times
/// 2^k (with the element maximum present, so the scale is 2^k under every scale rule), the same
/// block nudged one fp32 ulp off each midpoint, a block of mixed magnitudes (normal values,
/// midpoints at other binades, one huge element), and, with `specials`, a block holding NaN and
/// +-Inf. NVFP4 midpoint blocks are exact ties only when S_enc is a power of two: the catalogue
/// passes the calibrated tensor amax 2688 (S_enc = 1) in those cases.
std::vector<float> quantize_inputs(const Recipe& recipe, std::int64_t rows, std::int64_t cols, std::uint64_t seed,
                                   bool specials);

/// Packed E2M1 weights of `bytes` bytes: every byte value (every nibble pair) in a seed-dependent
/// rotation.
std::vector<std::uint8_t> packed_weight_bytes(std::size_t bytes, std::uint64_t seed);
/// Block scale codes for dequantization: every valid code of the recipe's scale format (UE4M3: the
/// 128 codes with bit 7 clear; E8M0: all 256, NaN included) in a seed-dependent rotation.
std::vector<std::uint8_t> scale_code_bytes(const Recipe& recipe, std::size_t count, std::uint64_t seed);

/// SwiGLU gate/up values [rows, 2I]: normal values at several binades, +-0, values on and next to
/// the clamp limit 7, around exp's overflow and underflow edges (+-88.7, +-104), fp32 subnormals,
/// and with `specials` NaN and +-Inf.
std::vector<float> swiglu_inputs(std::int64_t rows, std::int64_t inter, std::uint64_t seed, bool specials);

/// A seed for one case: FNV-1a of its name mixed with the file seed (splitmix64 finaliser).
std::uint64_t case_seed(std::uint64_t seed, std::string_view name);

}  // namespace mxv::golden
