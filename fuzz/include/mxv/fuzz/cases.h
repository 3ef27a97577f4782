// rapidcheck generators of kernel calls (docs/fuzzing.md "Generators"): shapes aimed at every gate
// and tile boundary of each kernel family, recipes drawn from what each kernel declares it supports,
// and the value mix of the inputs (values.h). A generated case is a golden::VerifyCase (the call)
// plus the inputs' seed and mix; materialize() turns it into a runnable case with explicit inputs.
//
// Shrinking: every choice is a rapidcheck pick that shrinks towards the first, simplest option
// (one row, one block, fp32, linear scales, no groups, every value class off), so a failure is
// reported on the smallest call and the plainest values that still fail.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include <rapidcheck.h>

#include "mxv/fuzz/values.h"
#include "mxv/golden/verify.h"

namespace mxv::fuzz {

/// One generated kernel call with the recipe of its inputs.
struct FuzzCase {
  golden::VerifyCase call;  ///< kernel, preset, dtype, shape, options (no inputs yet)
  ValueMix mix;
  std::uint64_t seed = 0;   ///< the inputs' seed
  /// NVFP4 quantize: calibrate the tensor amax as the inputs' own times this (0 = compute it).
  float calibrated_amax_factor = 0.0f;

  /// One line: kernel, preset, dtype, shape, value mix, seed.
  std::string describe() const;
};
/// rapidcheck's printer (counterexamples show the one-line description).
void showValue(const FuzzCase& c, std::ostream& os);

/// The call with its inputs drawn from seed and mix (quantize, swiglu_quantize: aimed values;
/// dequantize: weights with edge scales; convert: the catalogue's seeded inputs).
golden::VerifyCase materialize(const FuzzCase& c);

/// Generators per kernel family. `allow_specials`: NaN / Inf may appear (off for properties whose
/// statement does not hold for them).
rc::Gen<ValueMix> gen_value_mix(bool allow_specials);
rc::Gen<FuzzCase> gen_quantize_case(bool allow_specials = true);
rc::Gen<FuzzCase> gen_dequantize_case();
rc::Gen<FuzzCase> gen_swiglu_case(bool allow_specials = true);
rc::Gen<FuzzCase> gen_convert_case();

/// Grouped (MoE) row counts: 1-4 experts with counts at the 128-row tile edges, empty experts
/// included; the sum is >= 1.
rc::Gen<std::vector<std::int64_t>> gen_group_counts();

}  // namespace mxv::fuzz
