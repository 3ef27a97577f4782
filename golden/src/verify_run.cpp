// One verification case on one backend (verify.h): inputs from the case's seed, outputs filled with
// a sentinel and guarded (backend.h), the kernel launched through its host launcher, the reference
// model's bytes computed from the same inputs (reference/: encode/decode, dequantize_weights_to,
// quantize_activations, swiglu), and every output compared byte for byte through the check library
// (check.h), guard bytes included. Then: input guards intact, no emulator findings, the variant the
// catalogue expects. docs/design.md sections 3.5 ("Backends") and 3.6 ("A mismatch is explained").
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

#include "mxv/device/quantize.h"
#include "mxv/device/swiglu_quantize.h"
#include "mxv/device/backend.h"
#include "mxv/device/convert.h"
#include "mxv/device/dequantize.h"
#include "mxv/golden/backend_run.h"
#include "mxv/golden/verify.h"
#include "mxv/check/quantize_specs.h"
#include "mxv/check/wide_kinds.h"
#include "mxv/reference/float_format.h"
#include "mxv/reference/gate_up_bytes.h"
#include "mxv/reference/swiglu.h"
#include "mxv/reference/weight_layout.h"
#include "mxv/reference/wide_float.h"

namespace mxv::golden {

namespace {

using device::Backend;
using device::DeviceBuffer;

constexpr std::uint8_t kSentinel = kOutputSentinel;

/// Runs one case and collects its verdict.
class CaseRun {
 public:
  CaseRun(Backend& be, const VerifyCase& c, std::uint64_t seed, const OutputTamper& tamper, CaseResult& r)
      : be_(be), c_(c), seed_(seed), tamper_(tamper), r_(r) {}

  void run() {
    switch (c_.kernel) {
      case VerifyKernel::kConvert: return convert();
      case VerifyKernel::kDequantize: return dequantize();
      case VerifyKernel::kQuantize: return quantize();
      case VerifyKernel::kSwigluQuantize: return swiglu();
    }
  }

  /// Compares one output buffer with the model's bytes; records the first failure.
  void compare(const std::string& name, const check::OutputSpec& spec, std::span<const std::uint8_t> expected,
               const DeviceBuffer& buf, const check::Context& ctx = {}) {
    std::vector<std::uint8_t> actual = download_guarded(be_, buf);
    if (tamper_) tamper_(c_, name, actual);
    const check::Options opt = guarded_check_options();
    check::OutputSpec s = spec;
    s.name = name;
    const check::Report rep = check::compare(s, expected, actual, ctx, opt);
    r_.bytes_compared += rep.bytes_compared;
    for (std::size_t k = 0; k < check::kMismatchClassCount; ++k) r_.class_counts[k] += rep.counts[k];
    if (!rep.ok()) {
      fail(rep.summary(), rep.text());
      if (rep.count(check::MismatchClass::kOutOfBounds) != 0) {
        r_.full_report += "  backend guard check: " + be_.guard_damage(buf) + "\n";
      }
    }
  }

  void fail(const std::string& summary, const std::string& detail) {
    if (r_.pass) r_.summary = summary;
    r_.pass = false;
    r_.full_report += detail;
    if (!detail.empty() && detail.back() != '\n') r_.full_report += "\n";
  }

  /// Inputs must come back with their guards intact (a kernel wrote outside its outputs).
  void check_input_guards(std::initializer_list<const DeviceBuffer*> inputs) {
    for (const DeviceBuffer* b : inputs) {
      if (b == nullptr || b->data() == nullptr) continue;  // not allocated (e.g. no row table)
      const std::string damage = be_.guard_damage(*b);
      if (!damage.empty()) fail("out-of-bounds: " + damage, "input guard damaged: " + damage);
    }
  }

 private:
  std::mt19937_64 rng() const { return std::mt19937_64(seed_); }

  void convert() {
    const auto format = c_.preset == "e4m3"   ? device::CodeFormat::kE4M3
                        : c_.preset == "e2m1" ? device::CodeFormat::kE2M1
                        : c_.preset == "e8m0-rz" ? device::CodeFormat::kE8M0Rz
                                                 : device::CodeFormat::kE8M0Rp;
    const FloatFormat& ref = format == device::CodeFormat::kE4M3   ? kE4M3
                             : format == device::CodeFormat::kE2M1 ? kE2M1
                                                                   : kE8M0;
    ConvertMode mode;  // nearest-even, satfinite, cuda dialect: what the kernel implements
    if (format == device::CodeFormat::kE8M0Rz) mode.rounding = Rounding::kTowardZero;
    if (format == device::CodeFormat::kE8M0Rp) mode.rounding = Rounding::kUp;
    const bool packed = format == device::CodeFormat::kE2M1;
    const auto count = static_cast<std::size_t>(c_.cols);
    const auto code_kind = packed ? check::CodeKind::kE2M1x2
                           : format == device::CodeFormat::kE4M3 ? check::CodeKind::kE4M3
                                                                 : check::CodeKind::kE8M0;
    const auto spec_codes = packed ? check::OutputSpec::packed_e2m1("codes", 1, count)
                                   : check::OutputSpec::tensor("codes", code_kind, 1, count);
    device::ConvertArgs a;
    a.wide = c_.dtype;
    a.format = format;
    a.count = count;
    if (!c_.decode) {
      // Bug-hunting values, a quarter of them replaced by raw random bit patterns of the dtype.
      std::vector<float> v = fuzz::bug_hunting_values(count, 32, seed_, c_.specials);
      std::vector<std::uint8_t> in = narrow_from_fp32(c_.dtype, v);
      auto g = rng();
      const std::size_t w = bytes_of(c_.dtype);
      for (std::size_t i = 0; i < count; ++i) {
        if (g() % 4 == 0) {
          const std::uint64_t r = g();
          std::memcpy(&in[i * w], &r, w);
        }
      }
      const std::vector<std::uint32_t> bits = check::input_bits(c_.dtype, in);
      std::vector<std::uint8_t> codes(count);
      for (std::size_t i = 0; i < count; ++i) {
        const auto h = static_cast<std::uint16_t>(bits[i]);
        codes[i] = c_.dtype == WideType::kFp32 ? encode(ref, std::bit_cast<float>(bits[i]), mode)
                   : c_.dtype == WideType::kBf16 ? encode_bf16(ref, h, mode)
                                                 : encode_fp16(ref, h, mode);
      }
      std::vector<std::uint8_t> expected = codes;
      if (packed) {
        expected.assign((count + 1) / 2, 0);
        for (std::size_t i = 0; i < count; ++i) expected[i / 2] |= static_cast<std::uint8_t>(codes[i] << (4 * (i % 2)));
      }
      check::Context ctx;
      ctx.input_kind = check::input_kind(c_.dtype);
      ctx.input_bits = bits;
      convert_and_compare(a, device::ConvertDirection::kEncode, in, "in", "codes", spec_codes, expected, ctx);
    } else {
      // Every code once: byte i holds code i (E2M1: both nibbles of every byte).
      std::vector<std::uint8_t> codes(packed ? (count + 1) / 2 : count);
      for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<std::uint8_t>(i);
      std::vector<float> values(count);
      for (std::size_t i = 0; i < count; ++i) {
        const auto code = packed ? static_cast<std::uint8_t>((codes[i / 2] >> (4 * (i % 2))) & 0xF) : codes[i];
        values[i] = decode(ref, code);
      }
      const std::vector<std::uint8_t> expected = narrow_from_fp32(c_.dtype, values);
      convert_and_compare(a, device::ConvertDirection::kDecode, codes, "codes", "wide",
                          check::OutputSpec::tensor("decoded", check::code_kind(c_.dtype), 1, count), expected, {});
    }
  }

  /// Runs the convert kernel `direction` over `in` into a sentinel-filled output of expected.size()
  /// bytes, compares that output (under the spec's name) and checks the input's guards.
  void convert_and_compare(device::ConvertArgs a, device::ConvertDirection direction, std::span<const std::uint8_t> in,
                           const char* in_name, const char* out_name, const check::OutputSpec& spec,
                           std::span<const std::uint8_t> expected, const check::Context& ctx) {
    DeviceBuffer ib = be_.alloc_upload(in, in_name);
    DeviceBuffer ob = be_.alloc(expected.size(), out_name, kSentinel);
    a.direction = direction;
    a.in = &ib;
    a.out = &ob;
    device::convert(be_, a);
    be_.synchronize();
    compare(spec.name, spec, expected, ob, ctx);
    check_input_guards({&ib});
  }

  void dequantize() {
    const Recipe recipe = Recipe::by_name(c_.preset);
    const std::int64_t e = c_.experts, n = c_.rows, k = c_.cols, block = recipe.block_size;
    // Every packed byte (all nibble pairs, +-0 and the +-6 extremes among them); scales mostly in a
    // range that survives bf16 / fp16, sometimes any code or the format's edge codes.
    auto g = rng();
    const fuzz::WeightInputs drawn = c_.inputs ? fuzz::WeightInputs{} : fuzz::weight_inputs(recipe, e, n, k, g, true);
    const fuzz::WeightInputs& w = c_.inputs ? c_.inputs->weights : drawn;
    const std::vector<std::uint8_t>& packed = w.packed;
    const std::vector<std::uint8_t>& scales = w.scales;
    const std::vector<float>& s_dec = w.s_dec;
    if (packed.size() != static_cast<std::size_t>(e * n * k / 2) ||
        scales.size() != static_cast<std::size_t>(e * n * ((k + block - 1) / block)) || s_dec.size() != static_cast<std::size_t>(e)) {
      throw std::invalid_argument("explicit weight inputs do not match the shape");
    }

    DeviceBuffer pb = be_.alloc_upload(std::span<const std::uint8_t>(packed), "packed");
    DeviceBuffer sb = be_.alloc_upload(std::span<const std::uint8_t>(scales), "scales");
    DeviceBuffer db = be_.alloc_upload(std::span<const float>(s_dec), "s_dec");
    const auto total = static_cast<std::size_t>(e * n * k);
    DeviceBuffer ob = be_.alloc(total * bytes_of(c_.dtype), "out", kSentinel);
    const WeightPacking packing = c_.n_packed ? WeightPacking::kNPacked : WeightPacking::kKPacked;
    const device::DequantizeArgs a{.recipe = recipe,
                                   .packing = packing,
                                   .out_type = c_.dtype,
                                   .experts = e,
                                   .n = n,
                                   .k = k,
                                   .packed = &pb,
                                   .scales = &sb,
                                   .s_dec = &db,
                                   .out = &ob};
    device::dequantize(be_, a);
    be_.synchronize();
    const std::vector<std::uint8_t> expected =
        dequantize_weights_to(recipe, packing, WeightShape{e, n, k}, packed, scales, s_dec, c_.dtype);
    auto spec = check::OutputSpec::tensor("out", check::code_kind(c_.dtype), static_cast<std::size_t>(n),
                                          static_cast<std::size_t>(k), static_cast<std::size_t>(e));
    spec.axes = {"expert", "n", "k"};
    compare("out", spec, expected, ob);
    check_input_guards({&pb, &sb, &db});
  }

  /// Compares a QuantizedActivations-shaped result (elements, scales, NVFP4 s_dec / amax).
  void compare_quantized(const Recipe& recipe, const QuantizedActivations& ref, const std::vector<std::uint32_t>& in_bits,
                         const DeviceBuffer& elements, const DeviceBuffer& scales, const DeviceBuffer* amax,
                         const DeviceBuffer* s_dec) {
    compare("elements", check::element_spec(ref), ref.elements, elements,
            check::element_context(recipe, ref, in_bits, check::input_kind(c_.dtype)));
    compare("scales", check::scale_spec(recipe, ref), ref.scales, scales, check::scale_context(ref));
    if (!recipe.is_nvfp4()) return;
    if (amax != nullptr) compare_scalar("amax", ref.tensor.at(0).amax, *amax);
    if (s_dec != nullptr) compare_scalar("s_dec", ref.tensor.at(0).s_dec, *s_dec);
  }

  /// Compares a one-float output with the model's value.
  void compare_scalar(const std::string& name, float want, const DeviceBuffer& buf) {
    const std::vector<float> expected = {want};
    compare(name, check::OutputSpec::scalar(name), check::bytes_of(expected), buf);
  }

  /// The reference's options for the case's scales (layout, grouped rows) with `tensor_amax`; the
  /// kernel's problem takes the same three, so the two sides cannot be given different ones.
  QuantizeOptions quantize_options(std::optional<float> tensor_amax) const {
    QuantizeOptions qo;
    qo.scale_layout = c_.swizzled ? ScaleLayout::kSwizzled128x4 : ScaleLayout::kLinear;
    qo.group_counts = c_.groups;
    qo.tensor_amax = tensor_amax;
    return qo;
  }

  void quantize() {
    const Recipe recipe = Recipe::by_name(c_.preset);
    const auto count = static_cast<std::size_t>(c_.rows * c_.cols);
    const std::vector<float> v =
        c_.inputs ? c_.inputs->values
                  : fuzz::bug_hunting_values(count, static_cast<std::size_t>(recipe.block_size), seed_, c_.specials);
    if (v.size() != count) throw std::invalid_argument("explicit inputs: " + std::to_string(v.size()) + " values for " + std::to_string(count) + " elements");
    const std::vector<std::uint8_t> in = narrow_from_fp32(c_.dtype, v);
    const QuantizeOptions qo =
        quantize_options(c_.inputs && recipe.is_nvfp4() ? c_.inputs->tensor_amax : std::nullopt);
    const QuantizedActivations ref = quantize_activations(recipe, c_.dtype, in, c_.rows, c_.cols, qo);

    const device::QuantizeProblem prob{{recipe, c_.dtype, c_.rows, qo.group_counts, qo.tensor_amax}, c_.cols,
                                       qo.scale_layout};
    const device::QuantizePlan plan = device::plan_quantize(prob);
    DeviceBuffer ib = be_.alloc_upload(std::span<const std::uint8_t>(in), "input");
    device::QuantizeBuffers out = device::alloc_quantize_buffers(be_, plan, kSentinel);
    device::run_quantize(be_, plan, ib, out);
    be_.synchronize();
    compare_quantized(recipe, ref, check::input_bits(c_.dtype, in), out.elements, out.scales, &out.amax, &out.s_dec);
    check_input_guards({&ib, &out.tile_rows});
  }

  void swiglu() {
    Recipe recipe = Recipe::by_name(c_.preset);
    recipe.activation = c_.activation;
    recipe.intermediate = c_.intermediate;
    const auto rows = static_cast<std::size_t>(c_.rows), inter = static_cast<std::size_t>(c_.cols);
    // Gate/up values: the bug-hunting mix scaled into SiLU's interesting range.
    std::vector<float> gu;
    if (c_.inputs) {
      gu = c_.inputs->values;
      if (gu.size() != rows * 2 * inter) throw std::invalid_argument("explicit inputs: " + std::to_string(gu.size()) + " gate/up values for " + std::to_string(rows * 2 * inter));
    } else {
      gu = fuzz::bug_hunting_values(rows * 2 * inter, 16, seed_, c_.specials);
      fuzz::scale_into_silu_range(gu);
    }
    const std::vector<std::uint8_t> in = narrow_from_fp32(c_.dtype, gu);
    const GateUpBytes gate_up(c_.dtype, in, rows, inter);
    const GateUpLayout gl = GateUpLayout::parse(c_.gate_up_layout);
    const std::vector<float> activated = mxv::swiglu(gate_up.view(), gl, SwigluActivation::from_recipe(recipe));
    // NVFP4 needs a calibrated tensor amax: the activation's own (NaN skipped), as production does.
    float amax = 0.0f;
    for (const float x : activated) {
      if (!std::isnan(x)) amax = std::fmax(amax, std::fabs(x));
    }
    const QuantizeOptions qo = quantize_options(recipe.is_nvfp4() ? std::optional<float>(amax) : std::nullopt);
    const QuantizedActivations ref =
        c_.intermediate == Intermediate::kBf16
            ? quantize_activations(recipe, WideType::kBf16, narrow_from_fp32(WideType::kBf16, activated), c_.rows, c_.cols, qo)
            : quantize_activations(recipe, activated, c_.rows, c_.cols, qo);

    const device::SwigluQuantizeProblem prob{
        {recipe, c_.dtype, c_.rows, qo.group_counts, qo.tensor_amax}, c_.cols, gl, qo.scale_layout};
    const device::SwigluQuantizePlan plan = device::plan_swiglu_quantize(prob);
    DeviceBuffer ib = be_.alloc_upload(std::span<const std::uint8_t>(in), "gate_up");
    device::SwigluQuantizeBuffers out = device::alloc_swiglu_quantize_buffers(be_, plan, kSentinel);
    device::run_swiglu_quantize(be_, plan, ib, out);
    be_.synchronize();
    // The elements' context holds the activation's values, not the raw gate/up inputs.
    compare_quantized(recipe, ref, {}, out.elements, out.scales, nullptr, &out.s_dec);
    check_input_guards({&ib, &out.tile_rows});
  }

  Backend& be_;
  const VerifyCase& c_;
  std::uint64_t seed_;
  const OutputTamper& tamper_;
  CaseResult& r_;
};

}  // namespace

CaseResult run_case(Backend& backend, const VerifyCase& c, std::uint64_t run_seed, const OutputTamper& tamper) {
  const auto t0 = std::chrono::steady_clock::now();
  CaseResult r;
  r.vcase = c;
  r.backend = std::string(backend.name());
  r.seed = case_seed(run_seed, c);
  r.pass = true;
  r.summary = "PASS";
  (void)backend.take_findings();
  backend.clear_launch_log();
  CaseRun run(backend, c, r.seed, tamper, r);
  try {
    run.run();
  } catch (const std::exception& e) {
    run.fail(std::string("error: ") + e.what(), std::string("the case threw: ") + e.what());
  }
  for (const device::LaunchPlan& p : backend.launch_log()) r.variant += (r.variant.empty() ? "" : "+") + p.kernel;
  if (!c.expect_variant.empty() && (backend.launch_log().empty() || backend.launch_log().back().kernel != c.expect_variant)) {
    run.fail("variant: expected " + c.expect_variant + " to run, ran '" + r.variant + "'",
             "the gate chose '" + r.variant + "'; the catalogue expects " + c.expect_variant + " (" + c.why + ")");
  }
  const std::vector<std::string> findings = backend.take_findings();
  if (!findings.empty()) {
    std::string all = std::to_string(findings.size()) + " emulator finding(s):\n";
    for (const auto& f : findings) all += "  " + f + "\n";
    run.fail("emulator: " + findings.front(), all);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace mxv::golden
