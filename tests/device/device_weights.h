// One dequantize call's inputs on a backend (dequantize_inputs.h) with its output buffer, and the
// DequantizeArgs that read and write them: the setup the dequantize tests and the ncu calibration
// share, so they run the kernel on exactly the same buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "dequantize_inputs.h"
#include "mxv/device/backend.h"
#include "mxv/device/dequantize.h"
#include "mxv/reference/recipe.h"

namespace mxv::test {

/// Uploads packed, scales and s_dec (in that order, so every run sees the same addresses) and
/// allocates the [E, N, K] output of `out_type` filled with `sentinel`. Not copyable: `args` points
/// at the buffers.
class DeviceWeights {
 public:
  DeviceWeights(device::Backend& be, const Recipe& recipe, const Shape& s, WideType out_type, const Inputs& in,
                std::uint8_t sentinel = 0xCD)
      : packed(be.alloc_upload(std::span<const std::uint8_t>(in.packed), "packed")),
        scales(be.alloc_upload(std::span<const std::uint8_t>(in.scales), "scales")),
        s_dec(be.alloc_upload(std::span<const float>(in.s_dec), "s_dec")),
        out(be.alloc(static_cast<std::size_t>(s.e * s.n * s.k) * bytes_of(out_type), "out", sentinel)),
        args{.recipe = recipe, .packing = s.packing, .out_type = out_type, .experts = s.e, .n = s.n, .k = s.k,
             .packed = &packed, .scales = &scales, .s_dec = &s_dec, .out = &out} {}
  DeviceWeights(const DeviceWeights&) = delete;
  DeviceWeights& operator=(const DeviceWeights&) = delete;

  device::DeviceBuffer packed;
  device::DeviceBuffer scales;
  device::DeviceBuffer s_dec;
  device::DeviceBuffer out;
  device::DequantizeArgs args;  ///< the call over the buffers above (variant: kAuto)
};

}  // namespace mxv::test
