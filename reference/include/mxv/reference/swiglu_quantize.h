// SwiGLU fused with NVFP4 quantization (docs/semantics.md sections 6.3-6.4; docs/design.md section
// 5.4, "swiglu_quantize"): a MoE expert's first GEMM output [rows, 2I] -> activated [rows, I] ->
// NVFP4 packed codes [rows, ceil(I/2)] + block scales (swizzled 128x4 per expert by default)
// + the per-tensor scale(s). Two models:
//
//  fused   (what a SwiGLU epilogue kernel does in one pass): each activated fp32 value goes
//          straight into the quantizer; with Recipe::intermediate == kBf16 it is first rounded
//          to bf16 (RNE) and widened back, as a fused kernel that mimics the unfused pipeline.
//  unfused (the two-kernel pipeline): swiglu writes a bf16 tensor [rows, I] to memory, then the
//          activation quantizer reads that tensor. The recipe's `intermediate` is ignored: the
//          unfused tensor is bf16 by construction.
//
// Contract: fused with intermediate bf16 == unfused, bit for bit (tested as a property). With
// intermediate fp32 they differ wherever bf16 rounding moves a value across an E2M1 or E4M3
// rounding boundary (double rounding, docs/semantics.md section 2).
//
// Quantization is the block-models quantizer (quantize.h) on the activated values, so every
// NVFP4 preset it supports is supported here, with its scale rule and operation order. The
// compact output keeps the activated columns in order 0..I-1, so a 16-element NVFP4 block holds
// outputs 16b..16b+15 whatever the gate/up layout: with interleaved(8) the two 8-wide up groups
// of one block come from GEMM columns 8..15 and 24..31 (not adjacent) of the 32-column stripe.
//
// Global (per-tensor) scale, a parameter (SwigluQuantizeOptions::tensor_amax):
//   given     the caller's tensor amax (a calibrated value, or the previous step's), used as is;
//   absent    a first pass over the activated output (after the bf16 rounding when intermediate
//             is bf16) computes max |y| under the recipe's NaN-in-amax policy; with
//             scale_per_group, one amax and one global scale per expert.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "mxv/reference/quantize.h"
#include "mxv/reference/recipe.h"
#include "mxv/reference/swiglu.h"

namespace mxv {

/// The quantizer's options (quantize.h: grouped rows, with each expert's scales starting at a row
/// offset padded to 128; one global scale per group; a given tensor amax, else a first pass over
/// the activated output, see the file comment; the reciprocal table) and the gate/up layout. The
/// scale layout defaults to swizzled 128x4, the layout a fused epilogue writes.
struct SwigluQuantizeOptions : QuantizeOptions {
  SwigluQuantizeOptions() { scale_layout = ScaleLayout::kSwizzled128x4; }
  GateUpLayout layout = GateUpLayout::halves();
};

struct SwigluQuantized {
  /// [rows, I]: the exact fp32 values handed to the quantizer (bf16-representable when the
  /// intermediate is bf16 or the model is unfused).
  std::vector<float> activated;
  /// Codes, scales in the chosen layout, global scale(s) and the quantizer's intermediates.
  QuantizedActivations quantized;
};

/// The fused model. `recipe` must be an NVFP4 recipe (Recipe::is_nvfp4()); its activation,
/// alpha, limit, exp and intermediate fields select the SwiGLU (SwigluActivation::from_recipe).
/// Throws std::invalid_argument naming the argument on bad input (shapes, layout, recipe,
/// expert counts).
SwigluQuantized swiglu_quantize_fused(const Recipe& recipe, const GateUpView& input,
                                      const SwigluQuantizeOptions& options = {});

/// The unfused pair: swiglu -> bf16 tensor -> quantize_activations(bf16). Same arguments.
SwigluQuantized swiglu_quantize_unfused(const Recipe& recipe, const GateUpView& input,
                                        const SwigluQuantizeOptions& options = {});

}  // namespace mxv
