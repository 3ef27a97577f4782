// The emulated backend's one run_kernel: for the family whose parameters a launch carries, the
// kernel its plan selects (kernel_family.h), run per thread through EmulatedBackend::run. The
// bodies and the choice of instantiation are those the cuda backend's __global__ wrappers run
// (docs/design.md section 3.4, "One kernel source, two executions"); the family list is the one
// device/CMakeLists.txt generates, so a new family adds nothing here.
#include "mxv/device/kernel_families.h"
#include "mxv/emulation/emu_ctx.h"
#include "mxv/emulation/emulated_backend.h"

namespace mxv::emu {

void EmulatedBackend::run_kernel(const device::LaunchPlan& plan, const device::KernelArgs& args) {
  const bool ran = device::with_family(device::KernelFamilies{}, args, [&]<class Family>(const typename Family::Params& p) {
    return device::with_kernel<Family>(plan, p, [&]<class Kernel>() {
      run(plan, [&p](EmuCtx& ctx) { Kernel::run(ctx, p); });
    });
  });
  if (!ran) not_implemented(plan.kernel);
}

}  // namespace mxv::emu
