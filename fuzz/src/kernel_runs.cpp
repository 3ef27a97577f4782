// Kernel calls with downloaded outputs for the metamorphic properties (kernel_runs.h).
#include "kernel_runs.h"

#include <initializer_list>

#include "mxv/device/convert.h"
#include "mxv/golden/backend_run.h"
#include "mxv/reference/quantize.h"

namespace mxv::fuzz::detail {

namespace {

constexpr std::uint8_t kSentinel = golden::kOutputSentinel;

/// The backend's findings and the guard damage of `buffers`, one line each.
std::string problems_of(device::Backend& be, std::initializer_list<const device::DeviceBuffer*> buffers) {
  be.synchronize();
  std::string s;
  for (const std::string& f : be.take_findings()) s += "finding: " + f + "\n";
  for (const device::DeviceBuffer* b : buffers) {
    if (b == nullptr || b->data() == nullptr) continue;
    const std::string d = be.guard_damage(*b);
    if (!d.empty()) s += "guard: " + d + "\n";
  }
  return s;
}

std::vector<std::uint8_t> bytes_of_buffer(device::Backend& be, const device::DeviceBuffer& b) {
  return be.download<std::uint8_t>(b);
}

/// The outputs of a quantize-shaped run (QuantizeBuffers and SwigluQuantizeBuffers have the same
/// members), with the findings and the guard damage of the outputs and of `inputs`.
template <class Buffers>
QuantizedOut collect(device::Backend& be, const Recipe& recipe, const Buffers& out,
                     std::initializer_list<const device::DeviceBuffer*> inputs) {
  QuantizedOut r;
  r.problems = problems_of(be, inputs);
  r.problems += problems_of(be, {&out.elements, &out.scales, &out.amax, &out.s_dec, &out.tile_rows});
  r.elements = bytes_of_buffer(be, out.elements);
  r.scales = bytes_of_buffer(be, out.scales);
  if (recipe.is_nvfp4()) r.s_dec = bytes_of_buffer(be, out.s_dec);
  return r;
}

/// One block-quantizing launch (quantize, fused SwiGLU + quantize) on `values` narrowed to the
/// problem's input type, through the family's plan, alloc and run functions.
template <class Problem, class PlanFn, class AllocFn, class RunFn>
QuantizedOut block_quantize_on(device::Backend& be, const Problem& prob, std::span<const float> values,
                               const char* input_name, PlanFn plan_of, AllocFn alloc, RunFn run) {
  const auto plan = plan_of(prob);
  const std::vector<std::uint8_t> in = narrow_from_fp32(prob.input_type, values);
  device::DeviceBuffer ib = be.alloc_upload(std::span<const std::uint8_t>(in), input_name);
  auto out = alloc(be, plan, kSentinel);
  run(be, plan, ib, out);
  return collect(be, prob.recipe, out, {&ib});
}

}  // namespace

QuantizedOut quantize_on(device::Backend& be, const device::QuantizeProblem& prob, std::span<const float> values) {
  return block_quantize_on(be, prob, values, "input", device::plan_quantize, device::alloc_quantize_buffers,
                           device::run_quantize);
}

QuantizedOut swiglu_fused_on(device::Backend& be, const device::SwigluQuantizeProblem& prob, std::span<const float> values) {
  return block_quantize_on(be, prob, values, "gate_up", device::plan_swiglu_quantize,
                           device::alloc_swiglu_quantize_buffers, device::run_swiglu_quantize);
}

QuantizedOut swiglu_unfused_on(device::Backend& be, const device::SwigluQuantizeProblem& prob,
                               std::span<const float> values) {
  const device::SwigluBf16Plan act = device::plan_swiglu_bf16(prob);
  const std::vector<std::uint8_t> in = narrow_from_fp32(prob.input_type, values);
  device::DeviceBuffer ib = be.alloc_upload(std::span<const std::uint8_t>(in), "gate_up");
  device::DeviceBuffer mid = be.alloc(act.output_bytes, "activation_bf16", kSentinel);
  device::run_swiglu_bf16(be, act, ib, mid);
  const device::QuantizePlan plan = device::plan_quantize(device::unfused_quantize_problem(prob));
  device::QuantizeBuffers out = device::alloc_quantize_buffers(be, plan, kSentinel);
  device::run_quantize(be, plan, mid, out);
  return collect(be, prob.recipe, out, {&ib, &mid});
}

DequantizedOut dequantize_on(device::Backend& be, device::DequantizeArgs args, const WeightInputs& in) {
  device::DeviceBuffer pb = be.alloc_upload(std::span<const std::uint8_t>(in.packed), "packed");
  device::DeviceBuffer sb = be.alloc_upload(std::span<const std::uint8_t>(in.scales), "scales");
  device::DeviceBuffer db = be.alloc_upload(std::span<const float>(in.s_dec), "s_dec");
  const auto total = static_cast<std::size_t>(args.experts * args.n * args.k);
  device::DeviceBuffer ob = be.alloc(total * bytes_of(args.out_type), "out", kSentinel);
  args.packed = &pb;
  args.scales = &sb;
  args.s_dec = &db;
  args.out = &ob;
  DequantizedOut r;
  r.variant = device::dequantize(be, args).kernel;
  r.problems = problems_of(be, {&pb, &sb, &db, &ob});
  r.out = bytes_of_buffer(be, ob);
  return r;
}

}  // namespace mxv::fuzz::detail
