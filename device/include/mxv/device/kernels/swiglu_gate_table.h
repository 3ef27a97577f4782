// The gate-factor table of the fused SwiGLU kernel for bf16 inputs (docs/design.md section 5.4,
// "swiglu_quantize"; docs/semantics.md section 6.2).
//
// Both activations are (a factor of the gate alone) * (a factor of up alone), one correctly
// rounded product (kernels/swiglu_math.h). The gate factor costs a portable exp and an IEEE
// division, about 40 instructions, and depends on g only. A bf16 gate takes 65,536 values, so the
// factor of every bf16 gate whose magnitude lies in [2^-16, 2^16) (both signs, 8,192 values, 32 KiB)
// is computed once per launch by this kernel, with the same swiglu_math functions, and the fused
// kernel stages the table in shared memory and reads each factor with one shared load. Gates
// outside the table (zero, tiny, huge, Inf, NaN) take the arithmetic path. The results are the
// same bits either way, by construction; the device tests hold the fused kernel to the reference
// over every bf16 gate pattern.
//
// Slot order: slot = rot(b) - 2 * (kGateTableExpLo << 7), where rot(b) moves bf16 bit pattern b's
// sign to bit 0 (magnitude bits 14..0 to bits 15..1), so one unsigned compare tells whether a
// gate is in the table and the slot needs no select. With 2^13 entries a slot is in the table
// exactly when its bits 15..13 are clear, so the slots of two gates packed in one word are
// computed and tested together (gate_table_slots2).
#pragma once

#include <cstdint>
#include <string_view>

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernel_family.h"
#include "mxv/device/kernels/swiglu_math.h"

namespace mxv::device {

inline constexpr unsigned kGateTableBlockThreads = 256;
/// The lowest biased exponent in the table (2^-16) and the number of binades (up to 2^16).
inline constexpr std::uint32_t kGateTableExpLo = 111;
inline constexpr std::uint32_t kGateTableBinades = 32;
/// 128 mantissas per binade, two signs: 8,192 fp32 factors (32 KiB, a multiple of 16 bytes).
inline constexpr std::uint32_t kGateTableEntries = 2u * 128u * kGateTableBinades;
static_assert(kGateTableEntries == 0x2000u, "gate_table_slots2 tests bits 15..13 of each slot");
/// The bits of a packed slot pair (gate_table_slots2) that are clear when both gates are in the table.
inline constexpr std::uint32_t kGateTableOutside2 = 0xE000E000u;

/// The table slot of bf16 pattern `b` (16 bits); >= kGateTableEntries when b is outside the table.
MXV_HD MXV_FORCEINLINE std::uint32_t gate_table_slot(std::uint32_t b) {
  const std::uint32_t rot = ((b << 1) & 0xFFFEu) | ((b >> 15) & 1u);
  return rot - 2u * (kGateTableExpLo << 7);
}

/// (a & ~mask) | (b & mask): one LOP3 with the mask as its immediate on the GPU (nvcc splits the
/// C++ form into two, one per constant).
MXV_HD MXV_FORCEINLINE std::uint32_t select_bits(std::uint32_t a, std::uint32_t b, std::uint32_t mask) {
#if defined(__CUDA_ARCH__)
  std::uint32_t d;
  asm("lop3.b32 %0, %1, %2, %3, 0xCA;" : "=r"(d) : "r"(mask), "r"(b), "r"(a));
  return d;
#else
  return (a & ~mask) | (b & mask);
#endif
}

/// The table slots of the two bf16 gates packed in `w` (low half first), packed the same way: the
/// low half is gate_table_slot(w & 0xFFFF) mod 2^16, and the high half gate_table_slot(w >> 16)
/// mod 2^16 whenever the low gate is in the table. Both gates are in the table exactly when
/// `slots & kGateTableOutside2` is 0.
///
/// Three instructions for two gates: 2w - 2 * (kGateTableExpLo << 7) in each half moves every
/// magnitude into place and subtracts the table's start at once (the constant's bits 0 and 16 are
/// clear, so neither subtraction touches them), then one bit select puts each half's sign in its
/// bit 0 (bit 16 held the low gate's sign). A low gate below the table borrows from the high half
/// and leaves 0x9100 or more in the low half, which the mask sees; then the high half does not
/// matter.
MXV_HD MXV_FORCEINLINE std::uint32_t gate_table_slots2(std::uint32_t w) {
  constexpr std::uint32_t kStart = 0x00010001u * (2u * (kGateTableExpLo << 7));
  return select_bits(2u * w - kStart, w >> 15, 0x00010001u);
}

/// The bf16 pattern of table slot `slot` (the inverse of gate_table_slot).
MXV_HD MXV_FORCEINLINE std::uint32_t gate_table_bits(std::uint32_t slot) {
  const std::uint32_t rot = slot + 2u * (kGateTableExpLo << 7);
  return ((rot & 1u) << 15) | (rot >> 1);
}

/// The activation's gate factor of `g` (kernels/swiglu_math.h): what the table holds.
MXV_HD MXV_FORCEINLINE float gate_factor(float g, bool clamped, float alpha, float limit) {
  return clamped ? swiglu_math::clamped_gate(g, alpha, limit) : swiglu_math::silu_gate(g);
}

/// Arguments of one table fill (built by swiglu_quantize.cpp beside the fused launch).
struct SwigluGateTableParams {
  bool clamped = false;  ///< Activation::kSwigluClamped, else silu
  float alpha = 1.702f;
  float limit = 7.0f;
  GlobalPtr<float> table{};  ///< kGateTableEntries factors (written)
};

enum class SwigluGateTableVariant : std::uint8_t { kFill };
constexpr std::string_view to_string(SwigluGateTableVariant) { return "swiglu_gate_table"; }

/// The table fill as both backends run it (kernel_family.h): one thread per slot.
struct SwigluGateTableKernel : KernelOf<SwigluGateTableParams, kGateTableBlockThreads> {
  template <class Ctx>
  static MXV_HD MXV_FORCEINLINE void run(Ctx& ctx, const SwigluGateTableParams& p) {
    const std::uint32_t slot = ctx.block_idx().x * ctx.block_dim().x + ctx.thread_idx().x;
    if (slot >= kGateTableEntries) return;
    const float g = cvt::f32_from_bf16(static_cast<std::uint16_t>(gate_table_bits(slot)));
    ctx.store(p.table, slot, gate_factor(g, p.clamped, p.alpha, p.limit));
  }
};
using SwigluGateTableFamily = OneKernelFamily<SwigluGateTableKernel, SwigluGateTableVariant::kFill>;

}  // namespace mxv::device
