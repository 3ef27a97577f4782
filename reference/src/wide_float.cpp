// fp32 <-> bf16 / fp16. bf16 is the top half of an fp32; fp16 is IEEE binary16 (5-bit exponent,
// bias 15, 10-bit mantissa). Narrowing rounds to nearest, ties to even, like the hardware cvt.rn.
#include "mxv/reference/wide_float.h"

#include <bit>
#include <cmath>

namespace mxv {

float bf16_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::uint16_t float_to_bf16(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  if (std::isnan(x)) {
    // Keep the sign and the top payload bits, force the quiet bit so the result stays NaN.
    return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
  }
  // Add half an ulp of bf16 minus one, plus the lowest kept bit: ties go to even. A carry out of
  // the exponent turns the largest finite values into Inf, which is what RNE overflow means.
  const std::uint32_t lsb = (u >> 16) & 1u;
  return static_cast<std::uint16_t>((u + 0x7fffu + lsb) >> 16);
}

float fp16_to_float(std::uint16_t bits) {
  const std::uint32_t sign = (bits & 0x8000u) << 16;
  const std::uint32_t exp = (bits >> 10) & 0x1fu;
  const std::uint32_t man = bits & 0x3ffu;
  float mag;
  if (exp == 0x1f) {
    mag = man == 0 ? INFINITY : std::bit_cast<float>(0x7fc00000u | (man << 13));
  } else if (exp == 0) {
    mag = std::ldexp(static_cast<float>(man), -24);  // subnormal: man * 2^-24, exact in fp32
  } else {
    mag = std::bit_cast<float>(((exp + 112u) << 23) | (man << 13));  // rebias 15 -> 127
  }
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(mag) | sign);
}

std::uint16_t float_to_fp16(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  const auto sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) {  // NaN: quiet, keep top payload bits
    return static_cast<std::uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  }
  if (a >= 0x477ff000u) {  // >= 65520 = 65504 + half ulp rounds (ties-to-even) to Inf
    return static_cast<std::uint16_t>(sign | 0x7c00u);
  }
  if (a < 0x38800000u) {  // below 2^-14: fp16 subnormal, quantum 2^-24
    // Scale so the quantum is 1, then let the fp32 addition of 2^23 round to nearest even: the
    // sum's low mantissa bits hold the rounded integer exactly (it is < 2^11).
    const float scaled = std::bit_cast<float>(a) * 16777216.0f;  // * 2^24, exact
    const float rounded = scaled + 8388608.0f;                    // RNE at integer granularity
    const auto q = std::bit_cast<std::uint32_t>(rounded) - 0x4b000000u;
    return static_cast<std::uint16_t>(sign | q);  // q == 0x400 becomes the min normal, as it should
  }
  // Normal: drop 13 mantissa bits with RNE; a carry propagates into the exponent correctly.
  const std::uint32_t lsb = (a >> 13) & 1u;
  const std::uint32_t r = (a + 0xfffu + lsb) >> 13;
  return static_cast<std::uint16_t>(sign | (r - (112u << 10)));
}

}  // namespace mxv
