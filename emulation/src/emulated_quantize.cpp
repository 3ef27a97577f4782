// The emulated backend's launch entries for the quantize family (kernels/amax.h,
// kernels/quantize.h): the same kernel bodies the cuda backend runs, with the host launcher's
// plan, through EmulatedBackend::run (docs/design.md section 3.4, "One kernel source, two
// executions").
#include "mxv/device/kernels/amax.h"
#include "mxv/device/kernels/quantize.h"
#include "mxv/emulation/emu_ctx.h"
#include "mxv/emulation/emulated_backend.h"

namespace mxv::emu {

void EmulatedBackend::launch_amax(const device::LaunchPlan& plan, const device::AmaxParams& p) {
  if (plan.kernel != "amax") not_implemented(plan.kernel);
  run(plan, [&p](EmuCtx& ctx) { device::amax_body(ctx, p); });
}

void EmulatedBackend::launch_quantize(const device::LaunchPlan& plan, const device::QuantizeParams& p) {
  const bool vector = p.variant == device::QuantizeVariant::kVector;
  if (plan.kernel != (vector ? "quantize_vector" : "quantize_scalar")) not_implemented(plan.kernel);
  run(plan, [&p](EmuCtx& ctx) { device::quantize_kernel(ctx, p); });
}

}  // namespace mxv::emu
