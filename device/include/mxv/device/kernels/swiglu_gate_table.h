// The gate-factor table of the fused SwiGLU kernel for bf16 inputs (docs/design.md section 5.4,
// "swiglu_quantize"; docs/semantics.md section 6.2).
//
// Both activations are (a factor of the gate alone) * (a factor of up alone), one correctly
// rounded product (kernels/swiglu_math.h). The gate factor costs a portable exp and an IEEE
// division, about 60 instructions, and depends on g only. A bf16 gate takes 65,536 values, so the
// factor of every bf16 gate whose magnitude lies in [2^-16, 2^8) (both signs, 6,144 values, 24 KiB)
// is computed once per launch by this kernel, with the same swiglu_math functions, and the fused
// kernel stages the table in shared memory and reads each factor with one shared load. Gates
// outside the table (zero, tiny, huge, Inf, NaN) take the arithmetic path. The results are the
// same bits either way, by construction; the device tests hold the fused kernel to the reference
// over every bf16 gate pattern.
//
// Slot order: slot = rot(b) - 2 * (kGateTableExpLo << 7), where rot(b) moves bf16 bit pattern b's
// sign to bit 0 (magnitude bits 14..0 to bits 15..1), so one unsigned compare tells whether a
// gate is in the table and the slot needs no select.
#pragma once

#include <cstdint>
#include <string_view>

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernel_family.h"
#include "mxv/device/kernels/swiglu_math.h"

namespace mxv::device {

inline constexpr unsigned kGateTableBlockThreads = 256;
/// The lowest biased exponent in the table (2^-16) and the number of binades (up to 2^8).
inline constexpr std::uint32_t kGateTableExpLo = 111;
inline constexpr std::uint32_t kGateTableBinades = 24;
/// 128 mantissas per binade, two signs: 6,144 fp32 factors (24 KiB, a multiple of 16 bytes).
inline constexpr std::uint32_t kGateTableEntries = 2u * 128u * kGateTableBinades;

/// The table slot of bf16 pattern `b` (16 bits); >= kGateTableEntries when b is outside the table.
MXV_HD MXV_FORCEINLINE std::uint32_t gate_table_slot(std::uint32_t b) {
  const std::uint32_t rot = ((b << 1) & 0xFFFEu) | ((b >> 15) & 1u);
  return rot - 2u * (kGateTableExpLo << 7);
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
