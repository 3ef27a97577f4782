// Device conversion primitives, host-device (docs/semantics.md sections 1-2; PTX ISA 9.0, "cvt").
//
// The ONLY place where device code forks on the target: PTX `cvt` where the target has it
//   - E4M3:  cvt.rn.satfinite.e4m3x2.f32     from sm_89
//   - E2M1:  cvt.rn.satfinite.e2m1x2.f32     family/arch-specific Blackwell only (sm_100a, 120a, ...)
//   - UE8M0: cvt.rz|rp.satfinite.ue8m0x2.f32  family/arch-specific Blackwell only
//   - bf16x2 / f16x2: cvt.rn.{bf16x2,f16x2}.f32  from sm_80 (finite inputs only, see below)
//   - bf16x2 arithmetic: fma.rn.bf16x2              from sm_80 (the MX encoder's power-of-two form)
//   - bf16x2 clamp: max.NaN / min.NaN.bf16x2       from sm_80 (the clamped SwiGLU's up factor)
// and fast fp32 software code everywhere else (sm_90 for E2M1/UE8M0, and the host, where the
// emulator runs the same kernel bodies). The software code deliberately uses a DIFFERENT
// algorithm from the reference (reference/src: a generic numbered-steps encoder): here the
// subnormal range is rounded by the fp32 adder (x + 2^(q+23) - 2^(q+23) rounds x to a multiple of
// 2^q, ties to even, in hardware RNE) and the normal range by an integer round-half-even on the
// fp32 bit pattern. So kernel-vs-reference is a real differential test.
//
// In `cvt ... d, a, b` the operand `a` lands in the HIGH byte/nibble of d.
// Every conversion here is the `cuda` dialect: satfinite, NaN rules of docs/semantics.md section 2.
#pragma once

#include <cstdint>

#include "mxv/device/kernel_ctx.h"

#if !defined(__CUDA_ARCH__)
#include <cmath>
#include <cstring>
#endif

// Hardware E2M1 / UE8M0 cvt: family- or arch-specific Blackwell targets (nvcc defines
// __CUDA_ARCH_FAMILY_SPECIFIC__ / __CUDA_ARCH_SPECIFIC__ = 1000, 1030, 1100, 1200, 1210 for the
// "a"/"f" targets; plain sm_100 / sm_120 define neither, and ptxas rejects the instruction there).
#if defined(__CUDA_ARCH__) &&                                                              \
    ((defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && __CUDA_ARCH_FAMILY_SPECIFIC__ >= 1000) || \
     (defined(__CUDA_ARCH_SPECIFIC__) && __CUDA_ARCH_SPECIFIC__ >= 1000))
#define MXV_HW_CVT_FP4_E8M0 1
#else
#define MXV_HW_CVT_FP4_E8M0 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define MXV_HW_CVT_E4M3 1
#else
#define MXV_HW_CVT_E4M3 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define MXV_HW_CVT_WIDE_X2 1
#else
#define MXV_HW_CVT_WIDE_X2 0
#endif

namespace mxv::device::cvt {

/// Which path each primitive compiles to in the current compilation pass ("hardware" or
/// "software"); kernels expose it so tests and benchmarks can say what they measured.
inline constexpr bool kHardwareE4M3 = MXV_HW_CVT_E4M3 != 0;
inline constexpr bool kHardwareE2M1E8M0 = MXV_HW_CVT_FP4_E8M0 != 0;
inline constexpr bool kHardwareWideX2 = MXV_HW_CVT_WIDE_X2 != 0;

// The bit pattern every decoder produces for a NaN code (E4M3 0x7F and 0xFF, E8M0 0xFF): the
// positive canonical quiet NaN, whatever the code's sign bit (the reference's decode does the same).
inline constexpr std::uint32_t kQuietNanBits = 0x7FC00000u;

MXV_HD MXV_FORCEINLINE std::uint32_t bits_of(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

MXV_HD MXV_FORCEINLINE float float_of(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

// ---- software encoders (magnitude part; the callers add the sign) ---------------------------

/// |x| (bits `a`, sign cleared, finite) -> E4M3 magnitude code 0..0x7E, RNE, saturating.
MXV_HD MXV_FORCEINLINE std::uint32_t e4m3_magnitude_sw(std::uint32_t a) {
  if (a < 0x3C800000u) {  // |x| < 2^-6: E4M3 subnormal range, quantum 2^-9
    // 2^14 = 2^(-9+23): the fp32 sum has quantum 2^-9, so the adder rounds |x| to it (RNE).
    // The result r*2^9 is 0..8, which IS the code (8 = 0x08 = 2^-6, the smallest normal).
    const float r = (float_of(a) + 16384.0f) - 16384.0f;
    return static_cast<std::uint32_t>(r * 512.0f);
  }
  // Normal: keep 3 mantissa bits, round half to even on the bit pattern (a carry into the
  // exponent renormalises by itself), then rebias the exponent 127 -> 7 (120 << 3 in code units).
  const std::uint32_t rounded = (a + 0x7FFFFu + ((a >> 20) & 1u)) >> 20;
  const std::uint32_t code = rounded - (120u << 3);
  // 464 = 448 + half ulp ties to 448 (0x7E) by itself; anything rounding above saturates.
  return code < 0x7Eu ? code : 0x7Eu;
}

/// |x| (finite, bits `a`) -> E2M1 magnitude code 0..7, RNE, saturating to 6.
MXV_HD MXV_FORCEINLINE std::uint32_t e2m1_magnitude_sw(std::uint32_t a) {
  if (a < 0x3F800000u) {  // |x| < 1: subnormal range, quantum 0.5 = 2^-1, so add 2^22
    const float r = (float_of(a) + 4194304.0f) - 4194304.0f;
    return static_cast<std::uint32_t>(r * 2.0f);  // 0, 1 (0.5) or 2 (1.0 = code 0b010)
  }
  const std::uint32_t rounded = (a + 0x1FFFFFu + ((a >> 22) & 1u)) >> 22;  // 1 mantissa bit
  const std::uint32_t code = rounded - (126u << 1);                          // bias 127 -> 1
  return code < 7u ? code : 7u;  // 7 = 0b0'11'1 = 6: satfinite
}

// ---- E4M3 -----------------------------------------------------------------------------------

/// fp32 -> E4M3 (RN, satfinite): NaN -> 0x7F, |x| > 464 or Inf -> +-448.
MXV_HD MXV_FORCEINLINE std::uint8_t e4m3_from_f32(float x) {
#if MXV_HW_CVT_E4M3
  unsigned short r;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(0.0f), "f"(x));
  return static_cast<std::uint8_t>(r & 0xFFu);
#else
  const std::uint32_t u = bits_of(x);
  const std::uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return 0x7Fu;
  const std::uint32_t sign = (u >> 24) & 0x80u;
  const std::uint32_t mag = a == 0x7F800000u ? 0x7Eu : e4m3_magnitude_sw(a);
  return static_cast<std::uint8_t>(sign | mag);
#endif
}

/// Two fp32 -> two E4M3 codes in one 16-bit value: `hi` in bits [15:8], `lo` in [7:0].
MXV_HD MXV_FORCEINLINE std::uint16_t e4m3x2_from_f32(float hi, float lo) {
#if MXV_HW_CVT_E4M3
  unsigned short r;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
  return r;
#else
  return static_cast<std::uint16_t>((unsigned{e4m3_from_f32(hi)} << 8) | e4m3_from_f32(lo));
#endif
}

/// E4M3 code -> fp32, exact. 0x7F / 0xFF -> +quiet NaN (kQuietNanBits).
MXV_HD MXV_FORCEINLINE float f32_from_e4m3(std::uint8_t code) {
  const std::uint32_t sign = (std::uint32_t{code} & 0x80u) << 24;
  const std::uint32_t mag = code & 0x7Fu;
  if (mag == 0x7Fu) return float_of(kQuietNanBits);
  if (mag < 8u) {
    // Subnormal (and zero): mag * 2^-9, exact in fp32.
    return float_of(sign | bits_of(static_cast<float>(mag) * 0.001953125f));
  }
  return float_of(sign | ((mag + (120u << 3)) << 20));  // rebias 7 -> 127, mantissa to the top
}

/// f32_from_e4m3 for hot paths: the same value for every non-NaN code, and a NaN (its payload
/// unspecified) for 0x7F / 0xFF. Where the target has the E4M3 cvt, two conversions through fp16
/// (every E4M3 value is exact in fp16) instead of the branches of the software decode; for callers
/// whose result does not depend on a NaN's payload (the NVFP4 block scale: qrules::min_flt_max
/// maps every NaN to FLT_MAX).
MXV_HD MXV_FORCEINLINE float f32_from_e4m3_fast(std::uint8_t code) {
#if MXV_HW_CVT_E4M3
  std::uint32_t pair;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(pair) : "h"(static_cast<unsigned short>(code)));
  float f;
  asm("{\n\t.reg .b16 lo, hi;\n\tmov.b32 {lo, hi}, %1;\n\tcvt.f32.f16 %0, lo;\n\t}" : "=f"(f) : "r"(pair));
  return f;
#else
  return f32_from_e4m3(code);
#endif
}

// ---- E2M1 -----------------------------------------------------------------------------------

/// fp32 -> E2M1 nibble (RN, satfinite): NaN -> 0x7 (+6), +-Inf -> +-6, -0 -> 0x8.
MXV_HD MXV_FORCEINLINE std::uint8_t e2m1_from_f32_sw(float x) {
  const std::uint32_t u = bits_of(x);
  const std::uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return 0x7u;
  const std::uint32_t sign = (u >> 28) & 0x8u;
  const std::uint32_t mag = a == 0x7F800000u ? 0x7u : e2m1_magnitude_sw(a);
  return static_cast<std::uint8_t>(sign | mag);
}

/// Two fp32 -> one byte of two E2M1 codes: `hi` in bits [7:4], `lo` in [3:0]. For element
/// pairs (2i, 2i+1) call e2m1x2_from_f32(x[2i+1], x[2i]).
MXV_HD MXV_FORCEINLINE std::uint8_t e2m1x2_from_f32(float hi, float lo) {
#if MXV_HW_CVT_FP4_E8M0
  unsigned short r;
  asm("{ .reg .b8 t; cvt.rn.satfinite.e2m1x2.f32 t, %1, %2; cvt.u16.u8 %0, t; }"
      : "=h"(r)
      : "f"(hi), "f"(lo));
  return static_cast<std::uint8_t>(r & 0xFFu);
#else
  return static_cast<std::uint8_t>((unsigned{e2m1_from_f32_sw(hi)} << 4) | e2m1_from_f32_sw(lo));
#endif
}

/// fp32 -> E2M1 nibble in bits [3:0].
MXV_HD MXV_FORCEINLINE std::uint8_t e2m1_from_f32(float x) {
  return static_cast<std::uint8_t>(e2m1x2_from_f32(0.0f, x) & 0x0Fu);
}

/// The E2M1 magnitude code of m (m >= 0, not NaN), RNE, returned inside an fp32 pattern:
/// kE2m1Biased + code. Exact for m < 7; any m >= 7 (+Inf included) gives a pattern above
/// kE2m1Biased + 7, so callers that cannot rule it out take e2m1_magnitude_biased_sat.
///
/// Why it works: E2M1's quantum is 0.5 below 2 (the subnormal range and [1, 2) share it), 1 in
/// [2, 4) and 2 from 4, so the code is RNE(h(m)) for the piecewise-linear count of quanta
/// h(m) = min(2m, m + 2, m/2 + 4). A tie of E2M1 is a half-integer of h, and the even code is
/// the even mantissa, so RNE on h is E2M1's ties-to-even. Rounding is monotone, so it commutes
/// with the min: each piece is rounded alone, by one IEEE fp32 operation whose result lies in
/// [2^23, 2^24), where the ulp is 1: 2m + 2^23, m + (2^23 + 2), m/2 + (2^23 + 4). The added
/// offsets are even, so they keep each tie's parity; 2m and m/2 are exact (an m/2 that rounds as
/// a subnormal is far from any tie). The three results are positive floats, ordered as their
/// patterns, so the min is one 3-way integer min.
///
/// Cost on sm_90: three FMA-pipe operations and one VIMNMX3. Rounding with one magic add instead
/// needs the value's exponent first: seven instructions, five of them on the integer ALU pipe,
/// which issues at half the fp32 pipes' rate and bounds the quantize kernels (BENCHMARKS.md, "E2M1
/// in three roundings").
inline constexpr std::uint32_t kE2m1Biased = 0x4B000000u;  // the pattern of 2^23

MXV_HD MXV_FORCEINLINE std::uint32_t e2m1_magnitude_biased(float m) {
#if defined(__CUDA_ARCH__)
  const float twice = __fmaf_rn(m, 2.0f, 8388608.0f);   // never contracted or reassociated
  const float once = __fadd_rn(m, 8388610.0f);
  const float half = __fmaf_rn(m, 0.5f, 8388612.0f);
#else
  // The same roundings without a library fma: m + m and m * 0.5f are exact, so each line rounds
  // once (a contraction of the last line into an fma rounds the same exact value once too).
  const float twice = (m + m) + 8388608.0f;
  const float once = m + 8388610.0f;
  const float half = m * 0.5f + 8388612.0f;
#endif
  const std::uint32_t a = bits_of(twice), b = bits_of(once), c = bits_of(half);
  const std::uint32_t ab = a < b ? a : b;
  return ab < c ? ab : c;
}

/// e2m1_magnitude_biased for any m >= 0 (not NaN): m >= 7 saturates to code 7 (the value 6).
MXV_HD MXV_FORCEINLINE std::uint32_t e2m1_magnitude_biased_sat(float m) {
  const std::uint32_t r = e2m1_magnitude_biased(m);
  return r < kE2m1Biased + 7u ? r : kE2m1Biased + 7u;
}

/// |x|. On the GPU an operand modifier of the instruction that consumes it (no instruction).
MXV_HD MXV_FORCEINLINE float abs_f32(float x) {
#if defined(__CUDA_ARCH__)
  return fabsf(x);
#else
  return std::fabs(x);
#endif
}

/// |y| (any y that is not NaN) -> E2M1 magnitude code 0..7, RNE, saturating to 6.
MXV_HD MXV_FORCEINLINE std::uint32_t e2m1_magnitude(float y) {
  return e2m1_magnitude_biased_sat(abs_f32(y)) - kE2m1Biased;
}

/// fp32 -> E2M1 nibble (bits [3:0]), the same function as e2m1_from_f32_sw (RN, satfinite, NaN ->
/// 0x7, +-Inf -> +-6, -0 -> 0x8) computed WITHOUT branches: e2m1_from_f32_sw takes a branch per
/// value (subnormal range or not) and an F2I, which dominated the vector kernels' instruction
/// stream on sm_90 (no E2M1 cvt there). The magnitude comes from e2m1_magnitude, with NaN
/// replaced by 6 first (code 7) and its sign dropped.
MXV_HD MXV_FORCEINLINE std::uint32_t e2m1_from_f32_sw_branchless(float x) {
  const std::uint32_t u = bits_of(x);
  const bool nan = (u & 0x7FFFFFFFu) > 0x7F800000u;
  const std::uint32_t sign = nan ? 0u : (u >> 28) & 0x8u;  // NaN -> +6
  return sign | e2m1_magnitude(nan ? 6.0f : x);
}

/// e2m1x2_from_f32 for hot loops: the hardware cvt where the target has it, else the branch-free
/// software encoder (same results; `hi` in bits [7:4], `lo` in [3:0]).
MXV_HD MXV_FORCEINLINE std::uint32_t e2m1x2_from_f32_branchless(float hi, float lo) {
#if MXV_HW_CVT_FP4_E8M0
  return e2m1x2_from_f32(hi, lo);
#else
  return (e2m1_from_f32_sw_branchless(hi) << 4) | e2m1_from_f32_sw_branchless(lo);
#endif
}

/// E2M1 nibble (bits [3:0]) -> fp32, exact. Branch-free: the bits are assembled directly (a
/// runtime-indexed table becomes a constant-bank load replayed per distinct address in a warp).
MXV_HD MXV_FORCEINLINE float f32_from_e2m1(std::uint32_t nibble) {
  const std::uint32_t sign = (nibble & 0x8u) << 28;
  const std::uint32_t e = (nibble >> 1) & 0x3u;
  const std::uint32_t m = nibble & 0x1u;
  // Normal (e > 0): 2^(e-1) * (1 + m/2) -> fp32 exponent e + 126, mantissa bit 22 = m.
  // Subnormal (e == 0): m * 0.5 -> 0x3F000000 when m = 1, 0 when m = 0.
  const std::uint32_t normal = ((e + 126u) << 23) | (m << 22);
  const std::uint32_t subnormal = m * 0x3F000000u;
  return float_of(sign | (e != 0u ? normal : subnormal));
}

// ---- E8M0 -----------------------------------------------------------------------------------

/// fp32 -> E8M0 rounding toward zero (floor log2|x|), satfinite. The sign is ignored; NaN ->
/// 0xFF; +-0 and every fp32 subnormal (floor(log2) <= -127) -> 0x00; >= 2^127 or Inf -> 0xFE.
MXV_HD MXV_FORCEINLINE std::uint8_t e8m0_rz_from_f32_sw(float x) {
  const std::uint32_t a = bits_of(x) & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return 0xFFu;
  const std::uint32_t e = a >> 23;  // biased exponent: E8M0's bias is fp32's (127)
  return static_cast<std::uint8_t>(e < 0xFEu ? e : 0xFEu);  // Inf (255) and 2^127.. -> 0xFE
}

/// fp32 -> E8M0 rounding up (ceil log2|x|), satfinite. Sign ignored; NaN -> 0xFF; 0 -> 0x00;
/// fp32 subnormals: (2^-127, 2^-126) -> 0x01, (0, 2^-127] -> 0x00; > 2^127 or Inf -> 0xFE.
MXV_HD MXV_FORCEINLINE std::uint8_t e8m0_rp_from_f32_sw(float x) {
  const std::uint32_t a = bits_of(x) & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return 0xFFu;
  const std::uint32_t e = a >> 23;
  if (e == 0u) return static_cast<std::uint8_t>(a > 0x00400000u ? 1u : 0u);
  const std::uint32_t up = e + ((a & 0x7FFFFFu) != 0u ? 1u : 0u);
  return static_cast<std::uint8_t>(up < 0xFEu ? up : 0xFEu);
}

/// E8M0's two rounding directions: toward zero (floor log2) and up (ceil log2).
enum class E8m0Rounding : std::uint8_t { kTowardZero, kUp };

/// Two fp32 -> two E8M0 codes (`hi` in [15:8]), rounded as kRounding, satfinite.
template <E8m0Rounding kRounding>
MXV_HD MXV_FORCEINLINE std::uint16_t e8m0x2_from_f32(float hi, float lo) {
  constexpr bool kUp = kRounding == E8m0Rounding::kUp;
#if MXV_HW_CVT_FP4_E8M0
  unsigned short r;
  if constexpr (kUp) asm("cvt.rp.satfinite.ue8m0x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
  else asm("cvt.rz.satfinite.ue8m0x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
  return r;
#else
  if constexpr (kUp) return static_cast<std::uint16_t>((unsigned{e8m0_rp_from_f32_sw(hi)} << 8) | e8m0_rp_from_f32_sw(lo));
  return static_cast<std::uint16_t>((unsigned{e8m0_rz_from_f32_sw(hi)} << 8) | e8m0_rz_from_f32_sw(lo));
#endif
}
/// One fp32 -> one E8M0 code, rounded as kRounding.
template <E8m0Rounding kRounding>
MXV_HD MXV_FORCEINLINE std::uint8_t e8m0_from_f32(float x) {
  return static_cast<std::uint8_t>(e8m0x2_from_f32<kRounding>(0.0f, x) & 0xFFu);
}

/// E8M0 code -> fp32: 2^(code-127). 0x00 -> 2^-127 = 0x00400000, an fp32 SUBNORMAL (built from
/// bits, so no flush-to-zero arithmetic can lose it); 0xFF -> +quiet NaN.
MXV_HD MXV_FORCEINLINE float f32_from_e8m0(std::uint8_t code) {
  if (code == 0xFFu) return float_of(kQuietNanBits);
  return float_of(code == 0u ? 0x00400000u : std::uint32_t{code} << 23);
}

// ---- bf16 / fp16 ----------------------------------------------------------------------------

/// bf16 bits -> fp32, exact (bf16 is the top half of an fp32).
MXV_HD MXV_FORCEINLINE float f32_from_bf16(std::uint16_t b) { return float_of(std::uint32_t{b} << 16); }

/// fp16 bits -> fp32, exact. Subnormals are normalised through an fp32 multiply by 2^-24
/// (exact: at most 10 significant bits).
MXV_HD MXV_FORCEINLINE float f32_from_fp16(std::uint16_t h) {
#if defined(__CUDA_ARCH__)
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
#else
  const std::uint32_t sign = (std::uint32_t{h} & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1Fu;
  const std::uint32_t m = h & 0x3FFu;
  std::uint32_t mag;
  if (e == 0x1Fu) {
    mag = 0x7F800000u | (m << 13) | (m != 0u ? 0x00400000u : 0u);  // Inf, or NaN made quiet
  } else if (e == 0u) {
    mag = bits_of(static_cast<float>(m) * 5.9604644775390625e-8f);  // m * 2^-24
  } else {
    mag = ((e + 112u) << 23) | (m << 13);
  }
  return float_of(sign | mag);
#endif
}

/// fp32 -> bf16 bits, RNE; NaN -> quiet NaN keeping sign and top payload. Integer code on every
/// target: the hardware cvt.rn.bf16.f32 canonicalises NaN to 0x7FFF, which would make the GPU
/// and the emulator disagree on NaN outputs; a few integer ops cost nothing in a memory-bound kernel.
MXV_HD MXV_FORCEINLINE std::uint16_t bf16_from_f32(float x) {
  const std::uint32_t u = bits_of(x);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((u | 0x00400000u) >> 16);
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

/// fp32 -> fp16 bits, RNE; overflow -> Inf; NaN -> quiet NaN keeping sign and top payload.
MXV_HD MXV_FORCEINLINE std::uint16_t fp16_from_f32(float x) {
  const std::uint32_t u = bits_of(x);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x3FFu));
  if (a >= 0x38800000u) {  // fp16 normal range or overflow
    const std::uint32_t r = (a + 0xFFFu + ((a >> 13) & 1u)) >> 13;
    const std::uint32_t h = r - (112u << 10);
    return static_cast<std::uint16_t>(sign | (h < 0x7C00u ? h : 0x7C00u));
  }
  // Subnormal range, quantum 2^-24: the fp32 adder rounds to it (2^-24 * 2^23 = 2^-1).
  const float r = (float_of(a) + 0.5f) - 0.5f;
  return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(r * 16777216.0f));
}

/// Two fp32 -> two 16-bit floats in one 32-bit word (`hi` in bits [31:16], `lo` in [15:0]), RNE:
/// bf16 (kBf16) or fp16 (overflow -> Inf), for NON-NaN inputs only: the hardware cvt.rn.bf16x2.f32
/// and cvt.rn.f16x2.f32 make every NaN canonical where bf16_from_f32 / fp16_from_f32 keep sign and
/// payload, so the two agree on every input except NaN, and a NaN still gives a NaN. For callers
/// that have proven their values finite (the dequantize fast path) or that make every NaN
/// canonical afterwards (the fused SwiGLU kernel's bf16 intermediate).
template <bool kBf16>
MXV_HD MXV_FORCEINLINE std::uint32_t half2_from_f32_finite(float hi, float lo) {
#if MXV_HW_CVT_WIDE_X2
  std::uint32_t r;
  if constexpr (kBf16) {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  } else {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  }
  return r;
#else
  if constexpr (kBf16) return std::uint32_t{bf16_from_f32(lo)} | (std::uint32_t{bf16_from_f32(hi)} << 16);
  return std::uint32_t{fp16_from_f32(lo)} | (std::uint32_t{fp16_from_f32(hi)} << 16);
#endif
}

/// fma.rn.bf16x2: per 16-bit half, the exact a * b + c rounded once to bf16 (RNE, overflow to Inf).
/// The host computes a * b + c in fp32 and rounds that to bf16, which is the same value for the
/// operands it is given (fp4_block::pack_e2m1_word_bf16_pow2): finite a, b's halves powers of two
/// and c's in [128, 256). a * b is then an fp32 number with a's 8 significant bits, or overflows to
/// Inf as the hardware result does, or lies below 2^-126, where both results are c. Two 8-bit
/// significands within 2^16 of each other add exactly in fp32; further apart, the fp32 sum stays
/// within an fp32 ulp of the larger one, a bf16 number, so no bf16 tie lies between them and the
/// second rounding gives what one rounding gives.
MXV_HD MXV_FORCEINLINE std::uint32_t bf16x2_fma_pow2(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
#if MXV_HW_CVT_WIDE_X2
  std::uint32_t d;
  asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  const auto half = [](std::uint32_t x, std::uint32_t y, std::uint32_t z) -> std::uint32_t {
    const float sum = f32_from_bf16(static_cast<std::uint16_t>(x)) * f32_from_bf16(static_cast<std::uint16_t>(y)) +
                      f32_from_bf16(static_cast<std::uint16_t>(z));
    return bf16_from_f32(sum);
  };
  return half(a & 0xFFFFu, b & 0xFFFFu, c & 0xFFFFu) | (half(a >> 16, b >> 16, c >> 16) << 16);
#endif
}

/// Per 16-bit half: the bf16 u clamped to [-l, l], a NaN staying a NaN. `l2` holds a positive bf16
/// l in both halves. The value is the fp32 clamp of the widened u (u > l ? l : u < -l ?
/// -l : u) whenever l is a bf16 number, which the caller checks. The GPU takes max.NaN.bf16x2 and
/// min.NaN.bf16x2 (one instruction each for two values), which return the canonical NaN 0x7FFF for
/// a NaN; the host keeps u's NaN (a NaN's payload is the caller's to make canonical).
MXV_HD MXV_FORCEINLINE std::uint32_t bf16x2_clamp_nan(std::uint32_t u, std::uint32_t l2) {
#if MXV_HW_CVT_WIDE_X2
  std::uint32_t at_least, d;
  asm("max.NaN.bf16x2 %0, %1, %2;" : "=r"(at_least) : "r"(u), "r"(l2 ^ 0x80008000u));
  asm("min.NaN.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(at_least), "r"(l2));
  return d;
#else
  const std::uint32_t l_bits = l2 & 0xFFFFu;
  const float l = f32_from_bf16(static_cast<std::uint16_t>(l_bits));
  const auto half = [&](std::uint32_t x) -> std::uint32_t {
    const float v = f32_from_bf16(static_cast<std::uint16_t>(x));
    if (v > l) return l_bits;
    if (v < -l) return l_bits | 0x8000u;
    return x;  // in range, or a NaN
  };
  return half(u & 0xFFFFu) | (half(u >> 16) << 16);
#endif
}

}  // namespace mxv::device::cvt
