// Block scale rules: how one block's scale code and element multiplier are chosen, and how an
// element is scaled before conversion. docs/semantics.md section 4: the MX rules (ocp floor, nvidia
// round-up) and the NVFP4 operation orders (te, trtllm, cutlass_ref, modelopt, torchao), each a
// fixed sequence of fp32 operations. The host compiler must not contract a*b+c into an fma
// (C++20 without GNU extensions implies -ffp-contract=off on g++; x86-64 without -mfma has none).
//
// Every function returns its intermediates (the fp32 values that were rounded), so that the
// check library can say which rounding a mismatch came from.
#pragma once

#include <cstdint>
#include <span>

#include "mxv/reference/rcp_approx.h"
#include "mxv/reference/recipe.h"

namespace mxv {

/// The NVFP4 per-tensor scale. MX recipes: amax is still reported, s_enc = s_dec = 1.
struct TensorScale {
  float amax = 0.0f;   // max |x| over the tensor (NaN policy applied)
  float s_enc = 1.0f;  // multiplies amax_block in the scale (te, trtllm, cutlass_ref)
  float s_dec = 1.0f;  // the stored fp32 global decode scale: dequant = elem * sf * s_dec
};

/// The per-tensor scale for `amax_tensor`:
///  te / trtllm / cutlass_ref: s_enc = fminf(2688 / amax, FLT_MAX); amax == 0 or s_enc == 0 ->
///    s_enc = 1; s_dec = 1 / s_enc. (NaN amax: fminf(NaN, FLT_MAX) = FLT_MAX.)
///  modelopt / torchao: s_dec = amax / 2688 (their per-tensor "scale_2"), s_enc = 2688 / amax;
///    amax == 0 or non-finite -> s_enc = s_dec = 1 (their code would divide 0 by 0).
/// TensorAmaxPolicy::kReject throws std::invalid_argument for amax 0, Inf or NaN instead.
TensorScale tensor_scale(const Recipe& recipe, float amax_tensor);

/// max |x| under the recipe's NaN policy: kIgnore skips NaN (fmaxf), kPropagate returns NaN.
/// Missing elements of a partial block are simply absent (they count as +0).
float block_amax(const Recipe& recipe, std::span<const float> block);

/// The result of choosing one block's scale.
struct BlockScale {
  float amax = 0.0f;         // the block amax
  float scale_input = 0.0f;  // the fp32 value rounded to the scale code (see below)
  std::uint8_t code = 0;     // the stored scale byte (E8M0 or UE4M3)
  float factor = 0.0f;       // element multiplier (multiply orders) or divisor (divide orders)
  bool divides = false;      // true: prescaled = x / factor; false: prescaled = x * factor
  // A NaN factor's own bits are the result, even for a NaN x (torch's broadcast multiply in
  // torchao 0.18 RCEIL NaN blocks keeps the scale's NaN; x86 would keep x's).
  bool nan_factor_wins = false;
};

/// Chooses the scale of one block with max-abs `amax`.
///  ocp:      scale_input = amax; code = clamp(floor(log2 amax) - emax_elem, -127, 127) + 127
///            (exact integer exponent arithmetic); amax 0 -> 0x00; amax Inf/NaN -> 0xFF.
///            factor = 2^(code-127) (a divisor; NaN for 0xFF).
///  nvidia:   scale_input = fp32(amax * fl(1/elem_max)); code = E8M0_RP_satfinite(scale_input);
///            factor = 2^(code-127) divisor.
///  NVFP4:    the order's expressions (docs/semantics.md section 4.3); scale_input is the fp32
///            value handed to E4M3_RN_satfinite after the zero-block policy.
/// The E8M0 divisor is the exact power of two: the decode quirks (ort_qmoe, flush_e8m0_zero)
/// model consumers and apply in decode_scale(), not here.
/// `rcp_table` is needed by Reciprocal::kRcpApproxTable (else the default table; throws
/// "rcp.approx table missing" when there is none).
BlockScale choose_block_scale(const Recipe& recipe, float amax, const TensorScale& tensor,
                              const RcpApproxTable* rcp_table = nullptr);

/// The fp32 value that is rounded to the element code: x * factor or x / factor.
float prescale(const BlockScale& scale, float x);

/// Element code of a prescaled value: E2M1 RNE (low nibble) or E4M3 RNE satfinite. The
/// ModelOpt order maps -0 to +0 (its _cast_fp4 takes the sign from x < 0).
std::uint8_t element_code(const Recipe& recipe, float prescaled);

/// fp32 value of a scale code with the recipe's decode quirks: UE4M3 exact; E8M0 2^(c-127),
/// 0xFF NaN; E8m0Decode::kOrtQmoe 0x00 -> 0 and 0xFF -> +Inf; flush_e8m0_zero 0x00 -> 0.
float decode_scale(const Recipe& recipe, std::uint8_t code);

/// fp32 value of an element code (E2M1 nibble or E4M3 byte).
float decode_element(const Recipe& recipe, std::uint8_t code);

/// Dequantized element in fp32, one multiplication order for every recipe:
/// MX: elem * scale; NVFP4: (elem * sf) * s_dec. elem * sf is exact (2 x 4 significant bits),
/// so the result is rounded once.
float dequantize_value(const Recipe& recipe, std::uint8_t element, std::uint8_t scale_code, float s_dec);

}  // namespace mxv
