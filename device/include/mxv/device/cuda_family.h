// The cuda backend's entry into one kernel family (docs/adding-a-kernel-family.md). Declared here
// in plain C++ for cuda_backend.cu, which picks the family; defined in cuda_kernel.cuh and
// instantiated once per family, each family in its own translation unit (so a family can carry
// its own compile options and the families compile in parallel).
#pragma once

#include "mxv/device/kernel_family.h"

namespace mxv::device {

/// Launches on `stream` (a cudaStream_t) the kernel of Family that `plan` and `params` select;
/// false, launching nothing, when the plan names none of the family's variants.
template <KernelFamily Family>
bool launch_on_cuda(const LaunchPlan& plan, const typename Family::Params& params, void* stream);

}  // namespace mxv::device
