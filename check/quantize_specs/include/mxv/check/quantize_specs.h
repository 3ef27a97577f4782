// The check library applied to activation quantization (quantize.h): the OutputSpec of each
// buffer that quantize_activations produces, and the Context that explains its mismatches
// (pre-rounding values, block amax, scale inputs). With these a kernel test is
//
//   const auto q = mxv::quantize_activations(recipe, x, rows, cols, options);
//   EXPECT_TRUE(mxv::check::matches(mxv::check::compare(mxv::check::element_spec(q),
//       q.elements, kernel_elements, mxv::check::element_context(recipe, q))));
//
// The specs describe the layouts from docs/semantics.md section 5 in the check library's own terms
// (storage_map.h), so a layout disagreement between the model and the checker is itself caught
// (quantize_specs_test.cpp compares their sizes and offsets).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "mxv/check/check.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/recipe.h"

namespace mxv::check {

/// QuantizedActivations::elements: packed E2M1 [rows, ceil(cols/2)] or E4M3 [rows, cols]; grouped
/// rows become batches ("expert") so that reports name the expert and its row.
OutputSpec element_spec(const QuantizedActivations& q, std::string name = "elements");
/// QuantizedActivations::scales in its layout; UE4M3 for NVFP4 recipes, E8M0 for MX.
OutputSpec scale_spec(const Recipe& recipe, const QuantizedActivations& q, std::string name = "scales");
/// Context for the elements: q.prescaled, q.block_amax, q.scale_input (viewed, not copied: keep
/// `q` and `input_bits` alive while comparing). input_bits: the raw inputs, if the caller has them.
Context element_context(const Recipe& recipe, const QuantizedActivations& q,
                        std::span<const std::uint32_t> input_bits = {}, InputKind input_kind = InputKind::kFp32);
/// Context for the scales: pre-rounding = q.scale_input, block amax = q.block_amax (viewed).
Context scale_context(const QuantizedActivations& q);

}  // namespace mxv::check
