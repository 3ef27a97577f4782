// The instantiation of a block-quantizing kernel (quantize's vector kernel, the fused SwiGLU
// kernel) that a launch's scheme, input type and index width select. Each combination is its own
// instantiation, so its hot loop is straight-line code with none of the three tested.
#pragma once

#include <cstdint>

#include "mxv/device/kernels/quantize_rules.h"

namespace mxv::device {

/// Calls `visitor.template operator()<Kernel<kScheme, kBf16, Index>>()`: kBf16 for bf16 input
/// (else fp32), Index = std::uint32_t when the launch's offsets fit 32 bits (narrow_index), else
/// std::uint64_t.
template <template <qrules::Scheme, bool, class> class Kernel, class Visitor>
void visit_scheme_kernel(qrules::Scheme scheme, bool input_bf16, bool narrow_index, Visitor&& visitor) {
  const auto with_scheme = [&]<qrules::Scheme kScheme>() {
    if (input_bf16 && narrow_index) {
      visitor.template operator()<Kernel<kScheme, true, std::uint32_t>>();
    } else if (input_bf16) {
      visitor.template operator()<Kernel<kScheme, true, std::uint64_t>>();
    } else if (narrow_index) {
      visitor.template operator()<Kernel<kScheme, false, std::uint32_t>>();
    } else {
      visitor.template operator()<Kernel<kScheme, false, std::uint64_t>>();
    }
  };
  switch (scheme) {
    case qrules::Scheme::kNvfp4Te: with_scheme.template operator()<qrules::Scheme::kNvfp4Te>(); return;
    case qrules::Scheme::kMxfp4Nvidia: with_scheme.template operator()<qrules::Scheme::kMxfp4Nvidia>(); return;
    case qrules::Scheme::kMxfp4Ocp: with_scheme.template operator()<qrules::Scheme::kMxfp4Ocp>(); return;
  }
}

}  // namespace mxv::device
