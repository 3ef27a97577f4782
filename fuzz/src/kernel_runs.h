// One kernel call on a backend with its outputs downloaded, for the metamorphic properties
// (properties.cpp), which relate two runs rather than a run and the reference. Each run collects
// the backend's findings and every guard damage into `problems`, which the property asserts empty.
// Internal to mxv::fuzz.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "mxv/device/backend.h"
#include "mxv/device/dequantize.h"
#include "mxv/device/quantize.h"
#include "mxv/device/swiglu_quantize.h"
#include "mxv/fuzz/values.h"

namespace mxv::fuzz::detail {

/// What quantize-shaped kernels write.
struct QuantizedOut {
  std::vector<std::uint8_t> elements;
  std::vector<std::uint8_t> scales;
  std::vector<std::uint8_t> s_dec;  ///< NVFP4: the fp32 global decode scale's bytes
  std::string problems;             ///< findings and guard damage; empty is clean
};

/// `values` narrowed to the problem's input type, quantized by the quantize kernels.
QuantizedOut quantize_on(device::Backend& be, const device::QuantizeProblem& prob, std::span<const float> values);

/// The fused SwiGLU + quantize kernel on gate/up `values`.
QuantizedOut swiglu_fused_on(device::Backend& be, const device::SwigluQuantizeProblem& prob, std::span<const float> values);

/// The unfused pair: the bf16 activation kernel, then the quantize kernels on its output.
QuantizedOut swiglu_unfused_on(device::Backend& be, const device::SwigluQuantizeProblem& prob,
                               std::span<const float> values);

/// Dequantized weights [experts, n, k] of `out_type`, by the chosen variant.
struct DequantizedOut {
  std::vector<std::uint8_t> out;
  std::string variant;  ///< the variant that ran
  std::string problems;
};
DequantizedOut dequantize_on(device::Backend& be, device::DequantizeArgs args, const WeightInputs& in);

}  // namespace mxv::fuzz::detail
