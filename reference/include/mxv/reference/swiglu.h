// SwiGLU on one GEMM output (docs/semantics.md section 6): where gate and up sit in a row of 2*I
// columns (`halves`, `interleaved(g)`), and the activations `silu` and `swiglu_clamped`
// (gpt-oss, ONNX Runtime QMoE), each written as one fixed sequence of fp32 operations so that a
// CUDA kernel reproduces every output bit for bit.
//
// The exact fp32 operation order (every step rounds to nearest-even; no contraction: the
// sources are compiled with -ffp-contract=off; exp is portable_exp, portable_exp.h; "/" is the
// correctly rounded IEEE division, which is nvcc's default -prec-div=true / __fdiv_rn, NOT
// --use_fast_math):
//
//   silu (out = silu(g) * u, silu(g) = g / (1 + exp(-g))):
//     e   = portable_exp(-g)          negation is exact
//     d   = 1.0f + e
//     s   = g / d
//     out = s * u
//   swiglu_clamped(alpha, limit) (out = g' * sigmoid(alpha * g') * (u' + 1)):
//     g'  = (g > limit) ? limit : g                   NaN g stays NaN (torch.clamp semantics;
//     u'  = (u > limit) ? limit : ((u < -limit) ? -limit : u)   CUDA fminf would drop the NaN)
//     a   = alpha * g'
//     e   = portable_exp(-a)
//     d   = 1.0f + e
//     sig = 1.0f / d
//     t   = g' * sig
//     v   = u' + 1.0f
//     out = t * v
//   Finally, a NaN result is replaced by the canonical quiet NaN 0x7FC00000 (CPUs and GPUs
//   propagate NaN payloads differently; the contract fixes one).
//
// Consequences worth knowing (pinned by tests): silu(-Inf) is NaN (-Inf / Inf), not 0;
// silu(g) * 0 is 0 with the sign of the product; bf16 inputs are widened exactly to fp32 first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mxv/reference/recipe.h"

namespace mxv {

/// Where gate and up sit in a GEMM output row of 2*I columns.
///   halves:         gate = columns [0, I), up = [I, 2I)
///   interleaved(g): groups of g columns alternate gate, up, gate, up, ... (gate first); g = 1 is
///                   ONNX Runtime / gpt-oss, g = 8 a fused CuTeDSL grouped-GEMM epilogue.
struct GateUpLayout {
  enum class Kind : std::uint8_t { kHalves, kInterleaved };
  Kind kind = Kind::kHalves;
  std::size_t group = 0;  // g of interleaved(g); 0 for halves

  static GateUpLayout halves() { return {}; }
  /// interleaved(g); throws std::invalid_argument when g == 0.
  static GateUpLayout interleaved(std::size_t g);
  /// Parses "halves" or "interleaved:G" (G a positive integer); throws std::invalid_argument.
  static GateUpLayout parse(std::string_view text);

  /// Throws std::invalid_argument unless this layout can split 2*I columns: I >= 1 and, for
  /// interleaved(g), g divides I.
  void validate(std::size_t intermediate) const;
  /// Column of gate element j (0 <= j < I) in a row of 2*I columns. Call validate() first.
  std::size_t gate_column(std::size_t j, std::size_t intermediate) const;
  /// Column of up element j.
  std::size_t up_column(std::size_t j, std::size_t intermediate) const;

  friend bool operator==(const GateUpLayout&, const GateUpLayout&) = default;
};

/// "halves" or "interleaved:G".
std::string to_string(const GateUpLayout& layout);

/// The activation and its parameters (taken from a Recipe's SwiGLU fields).
struct SwigluActivation {
  Activation kind = Activation::kSilu;
  float alpha = 1.702f;  // swiglu_clamped only
  float limit = 7.0f;    // swiglu_clamped only
  ExpKind exp = ExpKind::kPortable;

  static SwigluActivation silu() { return {}; }
  static SwigluActivation swiglu_clamped(float alpha = 1.702f, float limit = 7.0f);
  /// The recipe's activation, alpha, limit and exp; Activation::kNone is read as silu.
  static SwigluActivation from_recipe(const Recipe& recipe);
  /// Parses "silu" or "swiglu-clamped" (also "swiglu_clamped"); throws std::invalid_argument.
  static Activation parse_kind(std::string_view text);

  /// Throws std::invalid_argument when: kind is kNone; exp is not kPortable (the ex2.approx
  /// table is not captured yet); alpha or limit is not finite; limit is negative.
  void validate() const;
};

/// silu(g) * u in the fixed order above (NaN canonicalized).
float swiglu_silu(float gate, float up);
/// gpt-oss / ONNX Runtime clamped SwiGLU in the fixed order above (NaN canonicalized).
float swiglu_clamped(float gate, float up, float alpha, float limit);
/// The activation `act` applied to one (gate, up) pair. Does not validate `act`.
float apply_activation(const SwigluActivation& act, float gate, float up);

/// The GEMM output [rows, 2*I], row-major, as fp32 values or as bf16 bit patterns.
struct GateUpView {
  std::span<const float> fp32;          // used when bf16 is empty
  std::span<const std::uint16_t> bf16;  // bf16 bits, widened exactly to fp32
  std::size_t rows = 0;
  std::size_t intermediate = 0;  // I: each row has 2*I columns

  static GateUpView from_fp32(std::span<const float> data, std::size_t rows, std::size_t intermediate);
  static GateUpView from_bf16(std::span<const std::uint16_t> data, std::size_t rows,
                              std::size_t intermediate);
  /// Throws std::invalid_argument unless exactly one buffer holds rows * 2 * I values.
  void validate() const;
  /// Element (row, column) widened to fp32.
  float at(std::size_t row, std::size_t column) const;
};

/// Activates one row: out[j] = act(gate_j, up_j) for j < I, with gate/up found by `layout`.
/// Validates everything (input, layout, activation, out.size() == I, row < rows).
void swiglu_row(const GateUpView& input, std::size_t row, const GateUpLayout& layout,
                const SwigluActivation& act, std::span<float> out);

/// The compact activated output [rows, I] in fp32. Validates its arguments.
std::vector<float> swiglu(const GateUpView& input, const GateUpLayout& layout,
                          const SwigluActivation& act);

/// The first half of the unfused pipeline: the activated output rounded to bf16 (RNE, as
/// __float2bfloat16_rn), [rows, I] bf16 bits.
std::vector<std::uint16_t> swiglu_to_bf16(const GateUpView& input, const GateUpLayout& layout,
                                          const SwigluActivation& act);

}  // namespace mxv
