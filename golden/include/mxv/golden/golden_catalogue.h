// The committed golden set: which cases exist, family by family, one file per family under
// golden/ (docs/golden-files.md, "The committed set"). `mxv golden regen` writes these files from
// here; `mxv golden template --case` picks cases from here.
//
//   codes       every format's full code table (decode) and every midpoint with its neighbours
//               (encode) for every rounding / saturation / dialect the reference supports
//   quantize    every preset on odd and tiled shapes with zero, NaN, subnormal and midpoint-aligned
//               blocks, linear and swizzled scales, grouped rows
//   dequantize  every E2M1 preset, both weight layouts, every output dtype, an odd and a tiled shape
//   swiglu      every NVFP4 preset x gate/up layout x activation x intermediate precision, plus
//               grouped, swizzled shapes
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mxv/golden/golden_case.h"

namespace mxv::golden {

/// The input generator's seed of the committed set (stored in each file's provenance).
inline constexpr std::uint64_t kGoldenSeed = 20261201;

/// "codes", "quantize", "dequantize", "swiglu".
std::span<const std::string_view> golden_families();

/// A family's cases with inputs and expected outputs (from the reference), sorted by name.
/// Throws std::invalid_argument for an unknown family.
std::vector<GoldenCase> generate_family(std::string_view family, std::uint64_t seed = kGoldenSeed);

/// The committed set's name among the data files (mxv/io/data_files.h): a build tree's
/// share/mxv/golden links to the checkout's golden/, an installed tree has a copy.
inline constexpr const char* kGoldenDataDir = "golden";

/// The committed set's directory (the data directory's golden/), and a family's file in it.
/// Throws GoldenFileError when no data directory has one.
std::string committed_golden_dir();
std::string committed_file(std::string_view family);

}  // namespace mxv::golden
