// fp32 <-> bf16 / fp16, the wide types kernels read and write. Round-to-nearest-even on the way
// down (IEEE 754 default, what __float2bfloat16_rn / __float2half_rn do), exact on the way up.
#pragma once

#include <cstdint>

namespace mxv {

float bf16_to_float(std::uint16_t bits);
float fp16_to_float(std::uint16_t bits);
/// RNE; NaN stays NaN (quiet), overflow -> Inf, subnormals kept.
std::uint16_t float_to_bf16(float x);
std::uint16_t float_to_fp16(float x);

}  // namespace mxv
