// SwiGLU gate/up layouts and activations (docs/semantics.md section 6). The fp32 operation order of
// each activation is the contract written in swiglu.h; this file is compiled with
// -ffp-contract=off (reference/CMakeLists.txt) so that no multiply-add is fused behind its back.
#include "mxv/reference/swiglu.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

#include "mxv/reference/portable_exp.h"
#include "mxv/reference/wide_float.h"

namespace mxv {
namespace {

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

float canonicalize_nan(float x) {
  return std::isnan(x) ? std::bit_cast<float>(kCanonicalNanBits) : x;
}

}  // namespace

// ---- Layouts ------------------------------------------------------------------------------

GateUpLayout GateUpLayout::interleaved(std::size_t g) {
  if (g == 0) fail("GateUpLayout::interleaved: group width g must be >= 1");
  GateUpLayout layout;
  layout.kind = Kind::kInterleaved;
  layout.group = g;
  return layout;
}

GateUpLayout GateUpLayout::parse(std::string_view text) {
  if (text == "halves") return halves();
  constexpr std::string_view kPrefix = "interleaved:";
  if (text.substr(0, kPrefix.size()) == kPrefix) {
    const std::string_view digits = text.substr(kPrefix.size());
    std::size_t g = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), g);
    if (ec == std::errc{} && end == digits.data() + digits.size() && !digits.empty() && g > 0) {
      return interleaved(g);
    }
  }
  fail("layout '" + std::string(text) +
       "' is not valid: expected 'halves' or 'interleaved:G' with G a positive integer");
}

void GateUpLayout::validate(std::size_t intermediate) const {
  if (intermediate == 0) fail("intermediate size I must be >= 1 (the row has 2*I columns)");
  if (kind == Kind::kInterleaved) {
    if (group == 0) fail("layout interleaved(g): g must be >= 1");
    if (intermediate % group != 0) {
      fail("layout interleaved(" + std::to_string(group) + "): g must divide the intermediate " +
           "size I = " + std::to_string(intermediate));
    }
  }
}

std::size_t GateUpLayout::gate_column(std::size_t j, std::size_t intermediate) const {
  if (kind == Kind::kHalves) return j;
  // Gate element j is element j % g of the (j / g)-th gate group, which starts at (j / g) * 2g.
  (void)intermediate;
  return (j / group) * 2 * group + j % group;
}

std::size_t GateUpLayout::up_column(std::size_t j, std::size_t intermediate) const {
  if (kind == Kind::kHalves) return intermediate + j;
  // Each up group directly follows its gate group.
  return (j / group) * 2 * group + group + j % group;
}

std::string to_string(const GateUpLayout& layout) {
  if (layout.kind == GateUpLayout::Kind::kHalves) return "halves";
  return "interleaved:" + std::to_string(layout.group);
}

// ---- Activations --------------------------------------------------------------------------

SwigluActivation SwigluActivation::swiglu_clamped(float alpha, float limit) {
  SwigluActivation act;
  act.kind = Activation::kSwigluClamped;
  act.alpha = alpha;
  act.limit = limit;
  return act;
}

SwigluActivation SwigluActivation::from_recipe(const Recipe& recipe) {
  SwigluActivation act;
  act.kind = recipe.activation == Activation::kNone ? Activation::kSilu : recipe.activation;
  act.alpha = recipe.alpha;
  act.limit = recipe.limit;
  act.exp = recipe.exp;
  return act;
}

Activation SwigluActivation::parse_kind(std::string_view text) {
  if (text == "silu") return Activation::kSilu;
  if (text == "swiglu-clamped" || text == "swiglu_clamped") return Activation::kSwigluClamped;
  fail("activation '" + std::string(text) + "' is not valid: expected 'silu' or 'swiglu-clamped'");
}

void SwigluActivation::validate() const {
  if (kind != Activation::kSilu && kind != Activation::kSwigluClamped) {
    fail("activation must be silu or swiglu_clamped");
  }
  if (exp != ExpKind::kPortable) {
    fail("activation exp: only the portable exp is modelled; the ex2.approx table has not been "
         "captured on a GPU yet");
  }
  if (kind == Activation::kSwigluClamped) {
    if (!std::isfinite(alpha)) fail("swiglu_clamped: alpha must be finite");
    if (!std::isfinite(limit) || limit < 0.0f) {
      fail("swiglu_clamped: limit must be finite and >= 0");
    }
  }
}

float swiglu_silu(float gate, float up) {
  const float e = portable_exp(-gate);
  const float d = 1.0f + e;
  const float s = gate / d;
  return canonicalize_nan(s * up);
}

float swiglu_clamped(float gate, float up, float alpha, float limit) {
  // Comparisons written so that a NaN operand falls through unchanged (see swiglu.h).
  const float g = gate > limit ? limit : gate;
  const float u = up > limit ? limit : (up < -limit ? -limit : up);
  const float a = alpha * g;
  const float e = portable_exp(-a);
  const float d = 1.0f + e;
  const float sig = 1.0f / d;
  const float t = g * sig;
  const float v = u + 1.0f;
  return canonicalize_nan(t * v);
}

float apply_activation(const SwigluActivation& act, float gate, float up) {
  return act.kind == Activation::kSwigluClamped ? swiglu_clamped(gate, up, act.alpha, act.limit)
                                                : swiglu_silu(gate, up);
}

// ---- Tensors ------------------------------------------------------------------------------

GateUpView GateUpView::from_fp32(std::span<const float> data, std::size_t rows,
                                 std::size_t intermediate) {
  return {.fp32 = data, .bf16 = {}, .rows = rows, .intermediate = intermediate};
}

GateUpView GateUpView::from_bf16(std::span<const std::uint16_t> data, std::size_t rows,
                                 std::size_t intermediate) {
  return {.fp32 = {}, .bf16 = data, .rows = rows, .intermediate = intermediate};
}

void GateUpView::validate() const {
  if (intermediate == 0) fail("gate_up: intermediate size I must be >= 1");
  if (!fp32.empty() && !bf16.empty()) fail("gate_up: give either fp32 or bf16 data, not both");
  const std::size_t have = bf16.empty() ? fp32.size() : bf16.size();
  if (rows > have / (2 * intermediate) || have != rows * 2 * intermediate) {
    fail("gate_up: holds " + std::to_string(have) + " values; [rows=" + std::to_string(rows) +
         ", 2*I=" + std::to_string(2 * intermediate) + "] needs " +
         std::to_string(rows * 2 * intermediate));
  }
}

float GateUpView::at(std::size_t row, std::size_t column) const {
  const std::size_t i = row * 2 * intermediate + column;
  return bf16.empty() ? fp32[i] : bf16_to_float(bf16[i]);
}

void swiglu_row(const GateUpView& input, std::size_t row, const GateUpLayout& layout,
                const SwigluActivation& act, std::span<float> out) {
  input.validate();
  layout.validate(input.intermediate);
  act.validate();
  if (row >= input.rows) {
    fail("swiglu_row: row " + std::to_string(row) + " is out of range (rows = " +
         std::to_string(input.rows) + ")");
  }
  if (out.size() != input.intermediate) {
    fail("swiglu_row: out has " + std::to_string(out.size()) + " elements; it must have I = " +
         std::to_string(input.intermediate));
  }
  for (std::size_t j = 0; j < input.intermediate; ++j) {
    const float g = input.at(row, layout.gate_column(j, input.intermediate));
    const float u = input.at(row, layout.up_column(j, input.intermediate));
    out[j] = apply_activation(act, g, u);
  }
}

std::vector<float> swiglu(const GateUpView& input, const GateUpLayout& layout,
                          const SwigluActivation& act) {
  input.validate();
  std::vector<float> out(input.rows * input.intermediate);
  for (std::size_t r = 0; r < input.rows; ++r) {
    swiglu_row(input, r, layout, act,
               std::span<float>(out).subspan(r * input.intermediate, input.intermediate));
  }
  return out;
}

std::vector<std::uint16_t> swiglu_to_bf16(const GateUpView& input, const GateUpLayout& layout,
                                          const SwigluActivation& act) {
  const std::vector<float> activated = swiglu(input, layout, act);
  std::vector<std::uint16_t> out(activated.size());
  for (std::size_t i = 0; i < activated.size(); ++i) out[i] = float_to_bf16(activated[i]);
  return out;
}

}  // namespace mxv
