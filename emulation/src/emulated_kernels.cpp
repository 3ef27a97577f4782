// The emulated backend's kernel table: for each kernel family's parameters, the kernel bodies
// its variants run, through EmulatedBackend::run with the host launcher's plan. They are the
// same bodies the cuda backend's __global__ wrappers run (docs/design.md section 3.4, "One kernel
// source, two executions"). A new family adds its run_kernel here.
#include "mxv/device/kernels/amax.h"
#include "mxv/device/kernels/convert.h"
#include "mxv/device/kernels/dequantize_scalar.h"
#include "mxv/device/kernels/dequantize_tiled.h"
#include "mxv/device/kernels/quantize.h"
#include "mxv/device/kernels/swiglu_quantize.h"
#include "mxv/emulation/emu_ctx.h"
#include "mxv/emulation/emulated_backend.h"

namespace mxv::emu {

void EmulatedBackend::run_kernel(const device::LaunchPlan& plan, const device::ConvertParams& p) {
  if (plan.kernel != "convert") not_implemented(plan.kernel);
  run(plan, [&p](EmuCtx& ctx) { device::convert_body(ctx, p); });
}

void EmulatedBackend::run_kernel(const device::LaunchPlan& plan, const device::DequantizeParams& p) {
  if (plan.kernel == "dequantize_scalar") {
    run(plan, [&p](EmuCtx& ctx) { device::dequantize_scalar_body(ctx, p); });
  } else if (plan.kernel == "dequantize_tiled") {
    run(plan, [&p](EmuCtx& ctx) { device::dequantize_tiled_body(ctx, p); });
  } else {
    not_implemented(plan.kernel);
  }
}

void EmulatedBackend::run_kernel(const device::LaunchPlan& plan, const device::AmaxParams& p) {
  if (plan.kernel != "amax") not_implemented(plan.kernel);
  run(plan, [&p](EmuCtx& ctx) { device::amax_body(ctx, p); });
}

void EmulatedBackend::run_kernel(const device::LaunchPlan& plan, const device::QuantizeParams& p) {
  const bool vector = p.variant == device::QuantizeVariant::kVector;
  if (plan.kernel != (vector ? "quantize_vector" : "quantize_scalar")) not_implemented(plan.kernel);
  run(plan, [&p](EmuCtx& ctx) { device::quantize_kernel(ctx, p); });
}

void EmulatedBackend::run_kernel(const device::LaunchPlan& plan, const device::SwigluParams& p) {
  if (plan.kernel != "swiglu_bf16") not_implemented(plan.kernel);
  run(plan, [&p](EmuCtx& ctx) { device::swiglu_bf16_body(ctx, p); });
}

void EmulatedBackend::run_kernel(const device::LaunchPlan& plan, const device::SwigluQuantizeParams& p) {
  if (plan.kernel != "swiglu_quantize_fused") not_implemented(plan.kernel);
  run(plan, [&p](EmuCtx& ctx) { device::swiglu_quantize_kernel(ctx, p); });
}

}  // namespace mxv::emu
