// Backend selection, guarded downloads, and golden cases run through the production kernels'
// host launchers (backend_run.h). The launchers are the same ones `mxv verify` and the device
// tests use; this file only maps a golden case's parameters and input bytes onto their arguments.
#include "mxv/golden/backend_run.h"

#include <stdexcept>
#include <vector>

#include "mxv/device/quantize.h"
#include "mxv/device/swiglu_quantize.h"
#include "mxv/device/backend.h"
#include "mxv/device/convert.h"
#include "mxv/device/dequantize.h"
#include "mxv/emulation/emulated_backend.h"

namespace mxv::golden {

namespace {

using device::Backend;
using device::DeviceBuffer;

constexpr std::uint8_t kGuardFill = 0xA5;

/// The convert kernel's code format for a case, or "" with the reason it has none.
std::optional<device::CodeFormat> convert_format(const CaseParams& p, std::string& why) {
  if (p.mode.dialect != Dialect::kCuda) {
    why = "the convert kernel implements the cuda dialect only";
    return std::nullopt;
  }
  if (p.op == Op::kEncode && p.mode.saturation != Saturation::kFinite) {
    why = "the convert kernel saturates to the largest finite value (satfinite) only";
    return std::nullopt;
  }
  const bool encode = p.op == Op::kEncode;
  if (p.format == "e4m3" && (!encode || p.mode.rounding == Rounding::kNearestEven)) return device::CodeFormat::kE4M3;
  if (p.format == "e2m1" && (!encode || p.mode.rounding == Rounding::kNearestEven)) return device::CodeFormat::kE2M1;
  if (p.format == "e8m0" && (!encode || p.mode.rounding == Rounding::kTowardZero)) return device::CodeFormat::kE8M0Rz;
  if (p.format == "e8m0" && p.mode.rounding == Rounding::kUp) return device::CodeFormat::kE8M0Rp;
  why = "the convert kernel has no " + p.format + " " + std::string(to_string(p.mode.rounding)) + " conversion";
  return std::nullopt;
}

class CaseLaunch {
 public:
  CaseLaunch(Backend& be, const GoldenCase& c, BackendResult& r) : be_(be), c_(c), p_(c.params), r_(r) {}

  void run() {
    switch (p_.op) {
      case Op::kEncode:
      case Op::kDecode: return convert();
      case Op::kQuantize: return quantize();
      case Op::kDequantize: return dequantize();
      case Op::kSwigluQuantize: return swiglu();
    }
  }

 private:
  DeviceBuffer upload(std::size_t i) {
    return be_.alloc_upload(std::span<const std::uint8_t>(c_.inputs.at(i).bytes), c_.inputs.at(i).spec.name);
  }

  void unsupported(std::string why) {
    r_.supported = false;
    r_.unsupported_reason = std::move(why);
  }

  void collect(const std::vector<const DeviceBuffer*>& outputs, std::initializer_list<const DeviceBuffer*> inputs) {
    be_.synchronize();
    for (const DeviceBuffer* b : outputs) r_.outputs.push_back(download_guarded(be_, *b));
    for (const DeviceBuffer* b : inputs) {
      if (b == nullptr || b->data() == nullptr) continue;
      const std::string damage = be_.guard_damage(*b);
      if (!damage.empty()) r_.findings.push_back("input guard damaged: " + damage);
    }
  }

  void convert() {
    std::string why;
    const std::optional<device::CodeFormat> f = convert_format(p_, why);
    if (!f) return unsupported(why);
    const std::vector<DatasetSpec> outs = output_specs(p_);
    DeviceBuffer in = upload(0);
    DeviceBuffer out = be_.alloc(outs[0].bytes(), outs[0].name, kOutputSentinel);
    device::ConvertArgs a;
    a.direction = p_.op == Op::kEncode ? device::ConvertDirection::kEncode : device::ConvertDirection::kDecode;
    a.wide = p_.dtype;
    a.format = *f;
    a.count = static_cast<std::uint64_t>(p_.cols);
    a.in = &in;
    a.out = &out;
    device::convert(be_, a);
    collect({&out}, {&in});
  }

  /// The fields a quantize and a fused SwiGLU + quantize problem share, from the case.
  template <class Problem>
  Problem block_quantize_problem() const {
    Problem prob;
    static_cast<device::BlockQuantizeProblem&>(prob) = {p_.recipe, p_.dtype, p_.rows, p_.groups, p_.tensor_amax};
    prob.scale_layout = p_.scale_layout;
    return prob;
  }

  /// A block-quantizing case (quantize, fused SwiGLU + quantize): plans it (a rejection makes the
  /// case unsupported), runs it on the case's input and collects `outputs` of its buffers.
  template <class Problem, class PlanFn, class AllocFn, class RunFn>
  void block_quantize(const Problem& prob, PlanFn plan_of, AllocFn alloc, RunFn launch,
                      std::vector<DeviceBuffer device::BlockQuantizeBuffers::*> outputs) {
    decltype(plan_of(prob)) plan;
    try {
      plan = plan_of(prob);
    } catch (const std::invalid_argument& e) {
      return unsupported(e.what());
    }
    DeviceBuffer in = upload(0);
    device::BlockQuantizeBuffers out = alloc(be_, plan, kOutputSentinel);
    launch(be_, plan, in, out);
    std::vector<const DeviceBuffer*> collected;
    for (const auto member : outputs) collected.push_back(&(out.*member));
    collect(collected, {&in, &out.tile_rows});
  }

  void quantize() {
    using B = device::BlockQuantizeBuffers;
    auto prob = block_quantize_problem<device::QuantizeProblem>();
    prob.cols = p_.cols;
    block_quantize(prob, device::plan_quantize, device::alloc_quantize_buffers, device::run_quantize,
                   p_.recipe.is_nvfp4() ? std::vector{&B::elements, &B::scales, &B::amax, &B::s_dec}
                                        : std::vector{&B::elements, &B::scales});
  }

  void dequantize() {
    DeviceBuffer packed = upload(0);
    DeviceBuffer scales = upload(1);
    // MX recipes take no global scale; the launcher still receives a valid (unused) buffer.
    const float one = 1.0f;
    DeviceBuffer s_dec = p_.recipe.is_nvfp4() ? upload(2) : be_.alloc_upload(std::span<const float>(&one, 1), "s_dec");
    const std::vector<DatasetSpec> outs = output_specs(p_);
    DeviceBuffer out = be_.alloc(outs[0].bytes(), "out", kOutputSentinel);
    device::DequantizeArgs a;
    a.recipe = p_.recipe;
    a.packing = p_.packing == WeightPacking::kNPacked ? WeightPacking::kNPacked : WeightPacking::kKPacked;
    a.out_type = p_.dtype;
    a.experts = p_.experts;
    a.n = p_.rows;
    a.k = p_.cols;
    a.packed = &packed;
    a.scales = &scales;
    a.s_dec = &s_dec;
    a.out = &out;
    try {
      (void)device::plan_dequantize(a);
    } catch (const std::invalid_argument& e) {
      return unsupported(e.what());
    }
    device::dequantize(be_, a);
    collect({&out}, {&packed, &scales, &s_dec});
  }

  void swiglu() {
    using B = device::BlockQuantizeBuffers;
    auto prob = block_quantize_problem<device::SwigluQuantizeProblem>();
    prob.inter = p_.cols;
    prob.layout = p_.gate_up;
    block_quantize(prob, device::plan_swiglu_quantize, device::alloc_swiglu_quantize_buffers,
                   device::run_swiglu_quantize, {&B::elements, &B::scales, &B::s_dec});
  }

  Backend& be_;
  const GoldenCase& c_;
  const CaseParams& p_;
  BackendResult& r_;
};

}  // namespace

BackendSelection select_backends(std::string_view spec) {
  BackendSelection s;
  if (spec == "auto") {
    for (const auto kind : {device::BackendKind::kCuda, device::BackendKind::kEmulated}) {
      const device::Availability a = emu::availability(kind);
      if (a.available) {
        s.backends.push_back(emu::make_backend(kind));
      } else {
        s.skipped.push_back(std::string(device::to_string(kind)) + ": " + a.reason);
      }
    }
    return s;
  }
  if (spec != "cuda" && spec != "emulated") {
    throw std::invalid_argument("--backend '" + std::string(spec) + "' is not one of: auto, cuda, emulated");
  }
  const device::BackendKind kind = device::backend_kind_by_name(spec);
  const device::Availability a = emu::availability(kind);
  if (!a.available) throw std::invalid_argument("--backend " + std::string(spec) + " is unavailable: " + a.reason);
  s.backends.push_back(emu::make_backend(kind));
  return s;
}

std::vector<std::uint8_t> download_guarded(Backend& backend, const DeviceBuffer& buf) {
  const std::vector<std::byte> raw = backend.download_with_guards(buf);
  std::vector<std::uint8_t> out(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) out[i] = static_cast<std::uint8_t>(raw[i]);
  const std::size_t n = buf.bytes();
  for (std::size_t i = 0; i < device::kGuardBytes; ++i) {
    out[i] = static_cast<std::uint8_t>(out[i] ^ device::guard_byte(i) ^ kGuardFill);
    std::uint8_t& after = out[device::kGuardBytes + n + i];
    after = static_cast<std::uint8_t>(after ^ device::guard_byte(i) ^ kGuardFill);
  }
  return out;
}

check::Options guarded_check_options() {
  check::Options o;
  o.guard_before = device::kGuardBytes;
  o.guard_after = device::kGuardBytes;
  o.guard_fill = kGuardFill;
  o.sentinel = kOutputSentinel;
  return o;
}

BackendResult run_on_backend(Backend& backend, const GoldenCase& c) {
  BackendResult r;
  r.supported = true;
  (void)backend.take_findings();
  backend.clear_launch_log();
  CaseLaunch(backend, c, r).run();
  for (const device::LaunchPlan& p : backend.launch_log()) r.variant += (r.variant.empty() ? "" : "+") + p.kernel;
  for (std::string& f : backend.take_findings()) r.findings.push_back(std::move(f));
  return r;
}

}  // namespace mxv::golden
