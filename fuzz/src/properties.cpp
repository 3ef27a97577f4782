// The property catalogue (properties.h; docs/fuzzing.md "Properties").
#include "mxv/fuzz/properties.h"

#include <rapidcheck.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>

#include "kernel_runs.h"
#include "mxv/emulation/emulated_backend.h"
#include "mxv/fuzz/cases.h"
#include "mxv/golden/verify.h"
#include "mxv/reference/block_scale.h"
#include "mxv/check/check.h"
#include "mxv/reference/float_format.h"

namespace mxv::fuzz {

namespace {

using golden::VerifyKernel;

thread_local std::vector<golden::VerifyCase> g_failing;
// The calls the running case made, recorded as it makes them; kept as g_failing when it fails.
thread_local std::vector<golden::VerifyCase> g_running;

void running(const golden::VerifyCase& v) { g_running.push_back(v); }

/// Marks the running case failed (its calls become failing_calls()), then fails it.
[[noreturn]] void fail(const std::string& message) {
  g_failing = g_running;
  RC_FAIL(message);
}

/// A copy of `v` whose inputs are `values` (the second call of a metamorphic pair).
golden::VerifyCase with_values(const golden::VerifyCase& v, std::vector<float> values) {
  golden::VerifyCase w = v;
  auto in = std::make_shared<golden::CaseInputs>(*v.inputs);
  in->values = std::move(values);
  w.inputs = std::move(in);
  return w;
}

/// On the emulator: a thread schedule drawn by the case (part of the counterexample), coalescing
/// records off (the properties need the memory checks, not the figures).
void draw_schedule(device::Backend& be) {
  auto* emu = dynamic_cast<emu::EmulatedBackend*>(&be);
  if (emu == nullptr) return;
  emu::LaunchOptions o;
  o.schedule = emu::Schedule::kShuffled;
  o.seed = *rc::gen::arbitrary<std::uint64_t>().as("thread schedule seed");
  o.record_coalescing = false;
  emu->set_launch_options(o);
}

/// Starts a case on `be`: its thread schedule drawn, its inputs made, and its call recorded as the
/// first of the running case (failing_calls() reports them when it fails).
golden::VerifyCase start_case(device::Backend& be, const FuzzCase& c) {
  draw_schedule(be);
  g_running.clear();
  golden::VerifyCase v = materialize(c);
  running(v);
  return v;
}

/// The main property: the generated call on `be` equals the reference byte for byte (golden's
/// case runner: sentinel-filled guarded outputs, the check library's classified report, the gate's
/// variant, input guards, emulator findings).
void matches_reference(device::Backend& be, const Tamper& tamper, const FuzzCase& c) {
  const golden::VerifyCase v = start_case(be, c);
  golden::OutputTamper adapter;
  if (tamper) {
    adapter = [&tamper](const golden::VerifyCase&, std::string_view output, std::vector<std::uint8_t>& actual) {
      // `actual` holds the guards around the usable bytes; the hook sees the usable bytes only.
      std::vector<std::uint8_t> usable(actual.begin() + static_cast<std::ptrdiff_t>(device::kGuardBytes),
                                       actual.end() - static_cast<std::ptrdiff_t>(device::kGuardBytes));
      tamper(output, usable);
      std::copy(usable.begin(), usable.end(), actual.begin() + static_cast<std::ptrdiff_t>(device::kGuardBytes));
    };
  }
  const golden::CaseResult r = golden::run_case(be, v, c.seed, adapter);
  if (!r.pass) fail(r.summary + "\n" + r.full_report);
}

void require_clean(const std::string& what, const std::string& problems) {
  if (!problems.empty()) fail(what + ":\n" + problems);
}

/// Byte-for-byte equality of two kernel outputs, with the check library's classified report.
void require_same(const check::OutputSpec& spec, const std::vector<std::uint8_t>& expected,
                  const std::vector<std::uint8_t>& actual) {
  if (expected.empty() && actual.empty()) return;  // e.g. s_dec of an MX recipe
  if (expected.size() != actual.size()) {
    fail(spec.name + ": " + std::to_string(actual.size()) + " bytes, expected " + std::to_string(expected.size()));
  }
  const check::Report rep = check::compare(spec, expected, actual);
  if (!rep.ok()) fail(rep.text());
}

void apply(const Tamper& tamper, std::string_view output, std::vector<std::uint8_t>& bytes) {
  if (tamper) tamper(output, bytes);
}

check::CodeKind scale_kind(const Recipe& r) { return r.is_nvfp4() ? check::CodeKind::kUE4M3 : check::CodeKind::kE8M0; }

device::QuantizeProblem quantize_problem(const FuzzCase& c, const golden::VerifyCase& v) {
  device::QuantizeProblem p;
  p.recipe = Recipe::by_name(v.preset);
  p.input_type = v.dtype;
  p.rows = v.rows;
  p.cols = v.cols;
  p.scale_layout = v.swizzled ? ScaleLayout::kSwizzled128x4 : ScaleLayout::kLinear;
  p.group_counts = v.groups;
  if (v.inputs) p.tensor_amax = v.inputs->tensor_amax;
  (void)c;
  return p;
}

// ---- metamorphic properties ---------------------------------------------------------------------

/// A metamorphic pair of quantize calls: on the case's inputs x and on `transform(x)` (named
/// `name`, e.g. "-x"), both recorded as calls of the running case and both free of problems.
struct QuantizedPair {
  device::QuantizeProblem problem;
  detail::QuantizedOut x;
  detail::QuantizedOut transformed;
};
template <class Transform>
QuantizedPair quantize_pair(device::Backend& be, const FuzzCase& c, const golden::VerifyCase& v,
                            const std::string& name, Transform transform) {
  QuantizedPair q{quantize_problem(c, v), {}, {}};
  std::vector<float> other = v.inputs->values;
  for (float& x : other) x = transform(x);
  running(with_values(v, other));
  q.x = detail::quantize_on(be, q.problem, v.inputs->values);
  q.transformed = detail::quantize_on(be, q.problem, other);
  require_clean("quantize(x)", q.x.problems);
  require_clean("quantize(" + name + ")", q.transformed.problems);
  return q;
}

/// quantize(-x): the same scales, every element code with its sign bit flipped (+-0 included).
void sign_symmetry(device::Backend& be, const Tamper& tamper) {
  const FuzzCase c = *gen_quantize_case(false);
  const golden::VerifyCase v = start_case(be, c);
  auto [p, a, b] = quantize_pair(be, c, v, "-x", [](float x) { return -x; });
  apply(tamper, "elements", b.elements);
  std::vector<std::uint8_t> flipped = a.elements;
  const auto count = static_cast<std::size_t>(v.rows * v.cols);
  for (std::size_t i = 0; i < count; ++i) {
    const auto row = i / static_cast<std::size_t>(v.cols), col = i % static_cast<std::size_t>(v.cols);
    const std::size_t byte = row * static_cast<std::size_t>((v.cols + 1) / 2) + col / 2;
    flipped[byte] = static_cast<std::uint8_t>(flipped[byte] ^ (0x8u << (4 * (col % 2))));
  }
  require_same(check::OutputSpec::packed_e2m1("elements of quantize(-x) vs sign-flipped quantize(x)",
                                              static_cast<std::size_t>(v.rows), static_cast<std::size_t>(v.cols)),
               flipped, b.elements);
  require_same(check::OutputSpec::tensor("scales", scale_kind(p.recipe), 1, a.scales.size()), a.scales, b.scales);
  require_same(check::OutputSpec::tensor("s_dec", check::CodeKind::kUE4M3, 1, a.s_dec.size()), a.s_dec, b.s_dec);
}

/// MX: quantize(x * 2^j) has the same element codes, and every scale code moves by exactly j
/// (all-zero blocks keep code 0). Values stay normal (no subnormals, no huge elements).
void mx_power_of_two_scaling(device::Backend& be, const Tamper& tamper) {
  FuzzCase c = *gen_quantize_case(false);
  RC_PRE(Recipe::by_name(c.call.preset).is_mx());
  c.mix.subnormals = false;
  c.mix.huge = false;
  c.call.swizzled = false;
  const int j = *rc::gen::elementOf(std::vector<int>{1, -1, 2, -2, 5, -7, 12});
  const golden::VerifyCase v = start_case(be, c);
  auto [p, a, b] = quantize_pair(be, c, v, "x * 2^j", [j](float x) { return std::ldexp(x, j); });
  apply(tamper, "scales", b.scales);
  apply(tamper, "elements", b.elements);
  require_same(check::OutputSpec::packed_e2m1("elements of quantize(x * 2^" + std::to_string(j) + ")",
                                              static_cast<std::size_t>(v.rows), static_cast<std::size_t>(v.cols)),
               a.elements, b.elements);
  std::vector<std::uint8_t> moved = a.scales;
  for (auto& s : moved) {
    if (s != 0) s = static_cast<std::uint8_t>(s + j);
  }
  require_same(check::OutputSpec::tensor("E8M0 scales moved by " + std::to_string(j), check::CodeKind::kE8M0, 1, moved.size()),
               moved, b.scales);
}

/// Byte offset of scale (row, col) in the 128x4 swizzled layout, written here from the layout's
/// definition (docs/semantics.md section 5.3) and independent of the kernels' and the
/// reference's implementations: 128-row x 4-column tiles of 512 bytes, row-major over tiles; inside
/// a tile, row r sits at (r % 32) * 16 + (r / 32) * 4 and column c at c.
std::size_t swizzled_offset(std::size_t row, std::size_t col, std::size_t kb_padded) {
  const std::size_t tile = (row / 128) * (kb_padded / 4) + col / 4;
  return tile * 512 + (row % 32) * 16 + ((row % 128) / 32) * 4 + col % 4;
}

/// The swizzled scales are the linear ones moved by a bijection onto the real slots (grouped rows:
/// each expert starts a new 128-row tile), and every other byte is 0.
void swizzle_bijection(device::Backend& be, const Tamper& tamper) {
  FuzzCase c = *gen_quantize_case(true);
  c.call.swizzled = false;
  const golden::VerifyCase v = start_case(be, c);
  device::QuantizeProblem p = quantize_problem(c, v);
  const detail::QuantizedOut lin = detail::quantize_on(be, p, v.inputs->values);
  p.scale_layout = ScaleLayout::kSwizzled128x4;
  golden::VerifyCase swizzled_call = v;
  swizzled_call.swizzled = true;
  running(swizzled_call);
  detail::QuantizedOut swz = detail::quantize_on(be, p, v.inputs->values);
  require_clean("linear", lin.problems);
  require_clean("swizzled", swz.problems);
  apply(tamper, "swizzled scales", swz.scales);
  const std::size_t kb = (static_cast<std::size_t>(v.cols) + static_cast<std::size_t>(p.recipe.block_size) - 1) /
                         static_cast<std::size_t>(p.recipe.block_size);
  const std::size_t kb_padded = (kb + 3) / 4 * 4;
  std::vector<std::int64_t> groups = v.groups;
  if (groups.empty()) groups.push_back(v.rows);
  std::vector<std::uint8_t> expected;
  std::set<std::size_t> used;
  std::size_t compact_row = 0, padded_base = 0;
  for (const std::int64_t count : groups) {
    const auto n = static_cast<std::size_t>(count);
    const std::size_t padded = (n + 127) / 128 * 128;
    expected.resize((padded_base + padded) * kb_padded, 0);
    for (std::size_t r = 0; r < n; ++r) {
      for (std::size_t col = 0; col < kb; ++col) {
        const std::size_t off = swizzled_offset(padded_base + r, col, kb_padded);
        if (!used.insert(off).second) fail("swizzled_offset is not injective at row " + std::to_string(r));
        expected.at(off) = lin.scales.at((compact_row + r) * kb + col);
      }
    }
    compact_row += n;
    padded_base += padded;
  }
  require_same(check::OutputSpec::tensor("swizzled scales (real slots = linear scales, padding 0)",
                                         scale_kind(p.recipe), 1, expected.size()),
               expected, swz.scales);
  require_same(check::OutputSpec::packed_e2m1("elements (independent of the scale layout)",
                                              static_cast<std::size_t>(v.rows), static_cast<std::size_t>(v.cols)),
               lin.elements, swz.elements);
}

/// The fused SwiGLU + quantize kernel with a bf16 intermediate equals the unfused pair (bf16
/// activation kernel, then the quantize kernel) byte for byte, given the same calibrated amax.
void fused_equals_unfused(device::Backend& be, const Tamper& tamper) {
  const FuzzCase c = *gen_swiglu_case(true);
  const float amax = *rc::gen::elementOf(std::vector<float>{1.0f, 7.0f, 448.0f, 0.01f, 3.0e4f}).as("calibrated amax");
  const golden::VerifyCase v = start_case(be, c);
  Recipe r = Recipe::by_name(v.preset);
  r.activation = v.activation;
  r.intermediate = Intermediate::kBf16;
  device::SwigluQuantizeProblem p;
  p.recipe = r;
  p.input_type = v.dtype;
  p.rows = v.rows;
  p.inter = v.cols;
  p.layout = GateUpLayout::parse(v.gate_up_layout);
  p.scale_layout = v.swizzled ? ScaleLayout::kSwizzled128x4 : ScaleLayout::kLinear;
  p.group_counts = v.groups;
  if (r.is_nvfp4()) p.tensor_amax = amax;
  {
    golden::VerifyCase call = v;  // the fused call as it ran: bf16 intermediate, calibrated amax
    call.intermediate = Intermediate::kBf16;
    auto in = std::make_shared<golden::CaseInputs>(*v.inputs);
    if (r.is_nvfp4()) in->tensor_amax = amax;
    call.inputs = std::move(in);
    g_running.assign(1, call);
  }
  const detail::QuantizedOut fused = detail::swiglu_fused_on(be, p, v.inputs->values);
  detail::QuantizedOut pair = detail::swiglu_unfused_on(be, p, v.inputs->values);
  require_clean("fused", fused.problems);
  require_clean("unfused pair", pair.problems);
  apply(tamper, "elements", pair.elements);
  require_same(check::OutputSpec::packed_e2m1("elements: unfused pair vs fused", static_cast<std::size_t>(v.rows),
                                              static_cast<std::size_t>(v.cols)),
               fused.elements, pair.elements);
  require_same(check::OutputSpec::tensor("scales: unfused pair vs fused", scale_kind(r), 1, fused.scales.size()),
               fused.scales, pair.scales);
  require_same(check::OutputSpec::tensor("s_dec", check::CodeKind::kUE4M3, 1, fused.s_dec.size()), fused.s_dec, pair.s_dec);
}

/// Quantize (linear scales), dequantize the result to fp32 with the dequantize kernels, and
/// re-encode every element with its own block scale: the codes come back. (The division is done
/// in double, where dequant / (sf * s_dec) is within 2^-24 relative of the code's value, far from
/// any E2M1 midpoint.) Which elements can carry their code back is decided from the quantize
/// kernel's codes and scales, never from the dequantized value under test: an element whose exact
/// value (code value x sf x s_dec) is zero or a normal fp32 must come back; one that stands for a
/// subnormal or an overflowing value, or whose block factor is not finite, is skipped; a block
/// whose factor is zero must dequantize to zeros. A NaN or an Inf where a finite value belongs
/// fails the property by name.
void requantize_reproduces_codes(device::Backend& be, const Tamper& tamper) {
  FuzzCase c = *gen_quantize_case(false);
  const std::vector<std::string> dequantizable = golden::supported_presets(VerifyKernel::kDequantize);
  RC_PRE(std::find(dequantizable.begin(), dequantizable.end(), c.call.preset) != dequantizable.end());
  RC_PRE(c.call.cols % 2 == 0);
  c.call.swizzled = false;
  const golden::VerifyCase v = start_case(be, c);
  const device::QuantizeProblem p = quantize_problem(c, v);
  const detail::QuantizedOut q = detail::quantize_on(be, p, v.inputs->values);
  require_clean("quantize", q.problems);
  WeightInputs w;
  w.packed = q.elements;
  w.scales = q.scales;
  float s_dec = 1.0f;
  if (p.recipe.is_nvfp4()) std::memcpy(&s_dec, q.s_dec.data(), sizeof s_dec);
  w.s_dec = {s_dec};
  {
    golden::VerifyCase dq;  // the dequantize call on the quantize kernel's outputs
    dq.kernel = VerifyKernel::kDequantize;
    dq.preset = v.preset;
    dq.dtype = WideType::kFp32;
    dq.rows = v.rows;
    dq.cols = v.cols;
    auto in = std::make_shared<golden::CaseInputs>();
    in->weights = w;
    dq.inputs = std::move(in);
    running(dq);
  }
  device::DequantizeArgs a;
  a.recipe = p.recipe;
  a.n = v.rows;
  a.k = v.cols;
  detail::DequantizedOut d = detail::dequantize_on(be, a, w);
  require_clean("dequantize", d.problems);
  apply(tamper, "dequantized", d.out);
  const auto rows = static_cast<std::size_t>(v.rows), cols = static_cast<std::size_t>(v.cols);
  const std::size_t kb = (cols + static_cast<std::size_t>(p.recipe.block_size) - 1) / static_cast<std::size_t>(p.recipe.block_size);
  std::vector<std::uint8_t> recoded = q.elements;
  std::vector<float> out(rows * cols);
  std::memcpy(out.data(), d.out.data(), out.size() * sizeof(float));
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t col = 0; col < cols; ++col) {
      const std::size_t byte = r * (cols / 2) + col / 2;
      const unsigned shift = 4 * (col % 2);
      const float x = out[r * cols + col];
      const float sf = decode_scale(p.recipe, q.scales[r * kb + col / static_cast<std::size_t>(p.recipe.block_size)]);
      const double divisor = static_cast<double>(sf) * (p.recipe.is_nvfp4() ? static_cast<double>(s_dec) : 1.0);
      const auto at = [&] { return "dequantized element (" + std::to_string(r) + ", " + std::to_string(col) + ")"; };
      if (!std::isfinite(divisor)) continue;
      if (divisor == 0.0) {
        if (x != 0.0f) fail(at() + " is " + std::to_string(x) + " under a block factor of zero, expected 0");
        continue;
      }
      const auto quantized = static_cast<std::uint8_t>((q.elements[byte] >> shift) & 0xFu);
      const double exact = std::fabs(static_cast<double>(decode(kE2M1, quantized)) * divisor);
      if (exact != 0.0 && (exact < static_cast<double>(FLT_MIN) || exact > static_cast<double>(FLT_MAX))) continue;
      if (!std::isfinite(x)) {
        fail(at() + " is " + std::to_string(x) + ", but its code " + std::to_string(quantized) + " under factor " +
             std::to_string(divisor) + " stands for the finite " + std::to_string(exact));
      }
      const auto code = static_cast<std::uint8_t>(encode(kE2M1, static_cast<float>(static_cast<double>(x) / divisor)));
      recoded[byte] = static_cast<std::uint8_t>((recoded[byte] & ~(0xFu << shift)) | (code << shift));
    }
  }
  require_same(check::OutputSpec::packed_e2m1("codes re-encoded from the dequantized tensor", rows, cols), q.elements,
               recoded);
}

/// The scalar and the tiled dequantize kernels agree byte for byte on every shape the tiled gate
/// accepts (N even, K a multiple of 64).
void scalar_equals_tiled(device::Backend& be, const Tamper& tamper) {
  FuzzCase c = *gen_dequantize_case();
  c.call.rows += c.call.rows % 2;
  c.call.cols = std::max<std::int64_t>(64, c.call.cols / 64 * 64);
  const golden::VerifyCase v = start_case(be, c);
  device::DequantizeArgs a;
  a.recipe = Recipe::by_name(v.preset);
  a.packing = v.n_packed ? WeightPacking::kNPacked : WeightPacking::kKPacked;
  a.out_type = v.dtype;
  a.experts = v.experts;
  a.n = v.rows;
  a.k = v.cols;
  a.variant = device::DequantizeVariant::kScalar;
  const detail::DequantizedOut s = detail::dequantize_on(be, a, v.inputs->weights);
  a.variant = device::DequantizeVariant::kTiled;
  detail::DequantizedOut t = detail::dequantize_on(be, a, v.inputs->weights);
  require_clean("scalar", s.problems);
  require_clean("tiled", t.problems);
  if (s.variant != "dequantize_scalar" || t.variant != "dequantize_tiled") {
    fail("variants: asked for scalar and tiled, ran " + s.variant + " and " + t.variant);
  }
  apply(tamper, "tiled out", t.out);
  const check::CodeKind kind = v.dtype == WideType::kFp32   ? check::CodeKind::kFp32
                               : v.dtype == WideType::kBf16 ? check::CodeKind::kBf16
                                                            : check::CodeKind::kFp16;
  require_same(check::OutputSpec::tensor("tiled vs scalar", kind, static_cast<std::size_t>(v.rows),
                                         static_cast<std::size_t>(v.cols), static_cast<std::size_t>(v.experts)),
               s.out, t.out);
}

const std::vector<Property>& catalogue() {
  static const std::vector<Property> all = {
      {"quantize_matches_reference", "quantize (+amax) equals the reference byte for byte",
       [](device::Backend& be, const Tamper& t) { matches_reference(be, t, *gen_quantize_case(true)); }},
      {"dequantize_matches_reference", "scalar/tiled dequantize equals the reference byte for byte",
       [](device::Backend& be, const Tamper& t) { matches_reference(be, t, *gen_dequantize_case()); }},
      {"swiglu_quantize_matches_reference", "fused SwiGLU + quantize equals the reference byte for byte",
       [](device::Backend& be, const Tamper& t) { matches_reference(be, t, *gen_swiglu_case(true)); }},
      {"convert_matches_reference", "convert (encode and decode) equals the reference byte for byte",
       [](device::Backend& be, const Tamper& t) { matches_reference(be, t, *gen_convert_case()); }},
      {"quantize_sign_symmetry", "quantize(-x) = quantize(x) with every element's sign bit flipped", sign_symmetry},
      {"mx_power_of_two_scaling", "MX: scaling x by 2^j moves every E8M0 scale by j and nothing else",
       mx_power_of_two_scaling},
      {"swizzle_bijection", "swizzled scales = linear scales moved by the 128x4 bijection, padding 0", swizzle_bijection},
      {"swiglu_fused_equals_unfused", "fused SwiGLU with a bf16 intermediate = bf16 activation kernel + quantize",
       fused_equals_unfused},
      {"requantize_reproduces_codes", "re-encoding the dequantized tensor with its own scales gives the codes back",
       requantize_reproduces_codes},
      {"dequantize_scalar_equals_tiled", "the scalar and tiled dequantize kernels agree wherever the tiled gate opens",
       scalar_equals_tiled},
  };
  return all;
}

}  // namespace

std::span<const Property> properties() { return catalogue(); }

const Property& property_by_name(std::string_view name) {
  std::string names;
  for (const Property& p : catalogue()) {
    if (p.name == name) return p;
    names += (names.empty() ? "" : ", ") + std::string(p.name);
  }
  throw std::invalid_argument("no property named '" + std::string(name) + "'; the properties are: " + names);
}

const std::vector<golden::VerifyCase>& failing_calls() { return g_failing; }
void clear_failing_calls() { g_failing.clear(); }

Tamper flip_every_byte() {
  return [](std::string_view, std::vector<std::uint8_t>& bytes) {
    for (auto& b : bytes) b = static_cast<std::uint8_t>(b ^ 1u);
  };
}

}  // namespace mxv::fuzz
