// The emulated backend's launch entries for the SwiGLU family (kernels/swiglu_quantize.h): the
// same bodies the cuda backend runs, with the host launcher's plan, through EmulatedBackend::run.
#include "mxv/device/kernels/swiglu_quantize.h"
#include "mxv/emulation/emu_ctx.h"
#include "mxv/emulation/emulated_backend.h"

namespace mxv::emu {

void EmulatedBackend::launch_swiglu(const device::LaunchPlan& plan, const device::SwigluParams& p) {
  if (plan.kernel != "swiglu_bf16") not_implemented(plan.kernel);
  run(plan, [&p](EmuCtx& ctx) { device::swiglu_bf16_body(ctx, p); });
}

void EmulatedBackend::launch_swiglu_quantize(const device::LaunchPlan& plan, const device::SwigluQuantizeParams& p) {
  if (plan.kernel != "swiglu_quantize_fused") not_implemented(plan.kernel);
  run(plan, [&p](EmuCtx& ctx) { device::swiglu_quantize_kernel(ctx, p); });
}

}  // namespace mxv::emu
