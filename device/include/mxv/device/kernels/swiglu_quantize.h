// The SwiGLU kernel bodies (docs/semantics.md section 6; docs/design.md section 5.4,
// swiglu_quantize): gate/up [rows, 2I] (fp32 or bf16; layouts halves and interleaved(g) for g
// dividing 8 or a multiple of 8) ->
//  - fused ("swiglu_quantize_fused"): the activated row quantized in the same pass to packed E2M1
//    [rows, I/2] + scales (swizzled 128x4 or linear, padding zero; grouped rows as in
//    kernels/quantize.h), optionally rounding each activated value to bf16 first;
//  - unfused first half ("swiglu_bf16"): the activated output [rows, I] as bf16, which the quantize
//    kernel then quantizes (the pair the fused kernel must equal bit for bit when it rounds to bf16).
//
// Mapping: the fused kernel gives each thread one scale block (16 or 32 consecutive activated
// outputs) with bf16 input and each lane pair one block with fp32 input (each lane half of it);
// the unfused activation kernel gives each thread 8 outputs. With interleaved(8) the 8
// gate and 8 up inputs of 8 outputs are adjacent in the GEMM row (one pair of contiguous runs);
// with interleaved(1) they are 16 contiguous alternating values; with halves two runs I apart.
// Loads are 16-byte vectors throughout (I % 16 == 0 is the launcher's gate).
//
// NVFP4 needs the tensor amax of the activated output before any block can be scaled, which one
// pass cannot know: the fused kernel takes it as an input (a calibrated amax, as production
// epilogues do), exactly like quantize's `tensor_amax` path.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernel_family.h"
#include "mxv/device/kernels/fp4_block.h"
#include "mxv/device/kernels/quantize_rules.h"
#include "mxv/device/kernels/scheme_instance.h"
#include "mxv/device/kernels/swiglu_gate_table.h"
#include "mxv/device/kernels/swiglu_math.h"

// Loops over a thread's outputs must unroll fully so their arrays live in registers (nvcc
// declines for bodies this size). Not logic: the host ignores it.
#if defined(__CUDA_ARCH__)
#define MXV_SWIGLU_UNROLL _Pragma("unroll")
#else
#define MXV_SWIGLU_UNROLL
#endif

namespace mxv::device {

inline constexpr unsigned kSwigluBlockThreads = 256;

/// Where gate and up sit in a row of 2I columns: halves (group == 0) or interleaved(group).
struct GateUpPlacement {
  std::uint32_t group = 0;
};

/// What both SwiGLU kernels read.
/// (Members ordered for size: the fused kernel's parameters must stay within 128 bytes, past which
/// nvcc reads them through a computed address, about 240 more PTX instructions in the fp32 kernels.)
struct SwigluInput {
  bool input_bf16 = false;
  Activation activation = Activation::kSilu;  ///< kSilu or kSwigluClamped (never kNone)
  GateUpPlacement placement{};
  float alpha = 1.702f;
  float limit = 7.0f;
  std::uint64_t rows = 0;
  std::uint64_t inter = 0;  ///< I: activated columns per row (a multiple of 16)
  GlobalPtr<std::uint8_t> gate_up{};
};

/// The unfused activation kernel: writes bf16 [rows, I].
struct SwigluParams {
  SwigluInput in{};
  std::uint64_t vectors = 0;  ///< rows * I / 8: one 16-byte bf16 store each
  GlobalPtr<std::uint16_t> out{};
};

/// The fused kernel: activation + block quantization in one pass.
struct SwigluQuantizeParams {
  SwigluInput in{};
  qrules::Scheme scheme = qrules::Scheme::kNvfp4Te;
  ScaleLayout layout = ScaleLayout::kSwizzled128x4;
  bool round_to_bf16 = false;    ///< Intermediate::kBf16: quantize bf16(activated)
  bool nan_propagates = false;
  /// Every byte offset and slot index of the launch fits in 32 bits (the launcher checks).
  bool narrow_index = false;
  std::uint64_t kb = 0;          ///< I / block
  std::uint64_t kb_slots = 0;    ///< kb, or round_up(kb, 4) swizzled
  std::uint64_t scale_rows = 0;  ///< rows, or padded to 128 per group
  std::uint64_t items = 0;       ///< scale_rows * kb_slots
  GlobalPtr<std::uint8_t> elements{};  ///< [rows, I/2]
  GlobalPtr<std::uint8_t> scales{};
  GlobalPtr<std::uint32_t> tile_rows{};  ///< as QuantizeParams::tile_rows
  GlobalPtr<std::uint32_t> amax_bits{};  ///< NVFP4: the tensor amax of the activated output (read)
  GlobalPtr<float> s_dec_out{};
  GlobalPtr<float> gate_table{};  ///< bf16 input: the swiglu_gate_table launch's factors (read)
};

namespace swiglu_detail {

/// `n` (8 or 16) consecutive inputs of a row starting at column `col`, widened to fp32. `kBf16`
/// is the input type when the caller knows it at compile time; otherwise `in.input_bf16` decides.
template <int kBf16 = -1, class Index = std::uint64_t, class Ctx>
MXV_HD MXV_FORCEINLINE void load_run(Ctx& ctx, const SwigluInput& in, Index row, Index col, unsigned n, float* dst) {
  const bool bf16 = kBf16 < 0 ? in.input_bf16 : kBf16 == 1;
  const unsigned per_vec = bf16 ? 8u : 4u;
  const Index esize = bf16 ? 2u : 4u;
  const Index base = row * 2u * static_cast<Index>(in.inter) + col;
  MXV_SWIGLU_UNROLL
  for (unsigned v = 0; v < n / per_vec; ++v) {
    const Vec16 x = ctx.load16(in.gate_up, std::size_t{(base + Index{v} * per_vec) * esize});
    MXV_SWIGLU_UNROLL
    for (unsigned j = 0; j < per_vec; ++j) dst[v * per_vec + j] = fp4_block::vec16_element(x, j, bf16);
  }
}

/// Splits 16 contiguous interleaved(kG) columns into their 8 gates and 8 ups.
template <unsigned kG>
MXV_HD MXV_FORCEINLINE void deinterleave(const float* raw, float* gate, float* up) {
  MXV_SWIGLU_UNROLL
  for (unsigned t = 0; t < 16; ++t) {
    const unsigned pair = t / (2u * kG);
    const unsigned r = t % (2u * kG);
    if (r < kG) gate[pair * kG + r] = raw[t];
    else up[pair * kG + r - kG] = raw[t];
  }
}

/// The gate column of activated output `j` (a multiple of 8) when gate and up lie in two runs of
/// 8 (group g % 8 == 0): halves (g == 0) j, interleaved(g) (j / g) * 2g + j % g (interleaved(8), the
/// common layout, without the runtime division). The up column is g (halves: I) columns later.
template <class Index>
MXV_HD MXV_FORCEINLINE Index gate_column(std::uint32_t g, Index j) {
  if (g == 0u) return j;
  if (g == 8u) return static_cast<Index>(2u * j);
  return static_cast<Index>((j / g) * 2u * g + j % g);
}

/// The 8 gates and 8 ups of activated outputs j0 .. j0+7 of `row` (j0 a multiple of 8), widened
/// to fp32. `kBf16` fixes the input type at compile time (-1: read it from `in`).
template <int kBf16 = -1, class Index = std::uint64_t, class Ctx>
MXV_HD MXV_FORCEINLINE void load_gate_up8(Ctx& ctx, const SwigluInput& in, Index row, Index j0, float* gate, float* up) {
  const std::uint32_t g = in.placement.group;
  const auto inter = static_cast<Index>(in.inter);
  if (g % 8u == 0u) {  // two runs of 8: halves (g == 0) or interleaved(8k)
    // One load sequence for both, so neither pays for moving its values into the other's registers.
    const Index gcol = gate_column<Index>(g, j0);
    const Index ucol = static_cast<Index>(gcol + (g == 0u ? inter : Index{g}));
    load_run<kBf16>(ctx, in, row, gcol, 8, gate);
    load_run<kBf16>(ctx, in, row, ucol, 8, up);
  } else {  // interleaved(g), g | 8: 16 contiguous columns hold 8/g (gate run, up run) pairs
    float raw[16];
    load_run<kBf16>(ctx, in, row, static_cast<Index>(2u * j0), 16, raw);
    // One constant-index copy per g, so the arrays stay in registers (a runtime g would index
    // them dynamically and put them in local memory).
    switch (g) {
      case 1u: deinterleave<1>(raw, gate, up); break;
      case 2u: deinterleave<2>(raw, gate, up); break;
      case 4u: deinterleave<4>(raw, gate, up); break;
      default: deinterleave<8>(raw, gate, up); break;
    }
  }
}

/// The activation of 8 loaded gate/up pairs by the arithmetic of swiglu_math, every division by
/// div_rn (a NaN gives some NaN).
MXV_HD MXV_FORCEINLINE void activate_loaded8_checked(const SwigluInput& in, bool clamped, const float* gate,
                                                     const float* up, float* out) {
  MXV_SWIGLU_UNROLL
  for (unsigned j = 0; j < 8; ++j) {
    out[j] = clamped ? swiglu_math::clamped_product(gate[j], up[j], in.alpha, in.limit)
                     : swiglu_math::silu_product(gate[j], up[j]);
  }
}

/// activate_loaded8_checked's values, with the quick gate factors (swiglu_math: on sm_90 no
/// per-division check) when every gate of the 8 lies in their range, which one test per 8 says.
/// On the H200 this took the fp32 fused kernel from 77.0-77.2 / 78.2-79.0% of copy to 78.8-79.3 /
/// 80.0-80.7% with silu (interleaved:8 / halves) and from 69.3-69.5 / 70.3-70.5% to 70.0-70.1 /
/// 70.9-71.2% clamped (BENCHMARKS.md, run 64).
MXV_HD MXV_FORCEINLINE void activate_loaded8(const SwigluInput& in, bool clamped, const float* gate, const float* up,
                                             float* out) {
  if (clamped) {
    // The exp argument is monotone in the gate (a min, then a correctly rounded product by alpha,
    // either sign), so its largest over the run is at the run's smallest or largest gate.
    float g_min = gate[0];
    float g_max = gate[0];
    MXV_SWIGLU_UNROLL
    for (unsigned j = 1; j < 8; ++j) {
      g_min = swiglu_math::extreme_dropping_nan<false>(g_min, gate[j]);
      g_max = swiglu_math::extreme_dropping_nan<true>(g_max, gate[j]);
    }
    const float arg_max = swiglu_math::extreme_dropping_nan<true>(swiglu_math::clamped_exp_arg(g_min, in.alpha, in.limit),
                                                                  swiglu_math::clamped_exp_arg(g_max, in.alpha, in.limit));
    if (!(arg_max > swiglu_math::kClampedQuickMaxExpArg)) {
      MXV_SWIGLU_UNROLL
      for (unsigned j = 0; j < 8; ++j) {
        out[j] = swiglu_math::mul_rn(swiglu_math::clamped_gate_quick(gate[j], in.alpha, in.limit),
                                     swiglu_math::clamped_up(up[j], in.limit));
      }
      return;
    }
  } else {
    std::uint32_t key = 0;
    MXV_SWIGLU_UNROLL
    for (unsigned j = 0; j < 8; ++j) key = qrules::max_u32(key, swiglu_math::silu_quick_key(gate[j]));
    if (key <= swiglu_math::kSiluQuickKeyMax) {
      MXV_SWIGLU_UNROLL
      for (unsigned j = 0; j < 8; ++j) out[j] = swiglu_math::mul_rn(swiglu_math::silu_gate_quick(gate[j]), up[j]);
      return;
    }
  }
  activate_loaded8_checked(in, clamped, gate, up, out);
}

/// The 8 activated outputs j0 .. j0+7 of `row` (j0 a multiple of 8), in fp32, a NaN of any payload
/// (swiglu_math::canonical is the caller's). The template
/// parameters fix the input type and the activation at compile time (-1: read them from `in`).
template <int kBf16 = -1, int kClamped = -1, class Index = std::uint64_t, class Ctx>
MXV_HD MXV_FORCEINLINE void activate8(Ctx& ctx, const SwigluInput& in, Index row, Index j0, float* out) {
  float gate[8];
  float up[8];
  load_gate_up8<kBf16>(ctx, in, row, j0, gate, up);
  activate_loaded8(in, kClamped < 0 ? in.activation == Activation::kSwigluClamped : kClamped == 1, gate, up, out);
}

/// The transaction barrier that says the block's copy of the gate-factor table has landed: a
/// static shared word, whose address is a constant wherever the kernels name it.
template <class Ctx>
MXV_HD MXV_FORCEINLINE SharedPtr<std::uint64_t> gate_table_landed(Ctx& ctx) {
  return ctx.template shared_array<std::uint64_t, 1, 0>();
}

/// Starts the block's copy of the table: thread 0 issues one asynchronous bulk copy of its 32 KiB
/// (kernel_ctx.h, "Async"), and the block meets once so that every thread sees the barrier
/// initialised. The copy then lands while the threads issue their first loads; each waits for it
/// (wait_gate_table) before its first table read. On the H200 this took the fused bf16 kernel
/// from 72-73% to 74-76% of copy, against every thread copying 16-byte pieces and the block
/// meeting before any load (BENCHMARKS.md, runs 43-46). Every thread of the block must call it.
template <class Ctx>
MXV_HD MXV_FORCEINLINE SharedPtr<float> start_gate_table(Ctx& ctx, GlobalPtr<float> table) {
  constexpr std::uint32_t kBytes = kGateTableEntries * sizeof(float);
  const SharedPtr<Vec16> staged = ctx.template shared_array<Vec16, kBytes / 16u, 0>();
  const SharedPtr<std::uint64_t> landed = gate_table_landed(ctx);
  if (ctx.thread_idx().x == 0u) {
    ctx.barrier_init(landed, 1u);
    ctx.barrier_arrive_expect(landed, kBytes);
    ctx.bulk_copy(SharedPtr<std::uint8_t>{reinterpret_cast<std::uint8_t*>(staged.raw)},
                  GlobalPtr<const std::uint8_t>{reinterpret_cast<const std::uint8_t*>(table.raw)}, kBytes, landed);
  }
  ctx.syncthreads();
  return {reinterpret_cast<float*>(staged.raw)};
}

/// Returns once the table start_gate_table began copying has landed (one test of the barrier
/// after the first time).
template <class Ctx>
MXV_HD MXV_FORCEINLINE void wait_gate_table(Ctx& ctx) {
  ctx.barrier_wait(gate_table_landed(ctx), 0u);
}

/// Splits the 8 words (16 contiguous columns) of interleaved(kG) bf16 input, kG dividing 8, into
/// the packed gate and up pairs of its 8 outputs (word i: outputs 2i, 2i + 1, low half first).
template <unsigned kG>
MXV_HD MXV_FORCEINLINE void split_bf16_words(const std::uint32_t* w, std::uint32_t* gate, std::uint32_t* up) {
  MXV_SWIGLU_UNROLL
  for (unsigned i = 0; i < 4; ++i) {
    if constexpr (kG == 1u) {  // g0 u0 g1 u1: word t holds (g_t, u_t)
      gate[i] = fp4_block::byte_perm(w[2u * i], w[2u * i + 1u], 0x5410u);
      up[i] = fp4_block::byte_perm(w[2u * i], w[2u * i + 1u], 0x7632u);
    } else if constexpr (kG == 2u) {  // g0 g1 u0 u1: words alternate gate pair, up pair
      gate[i] = w[2u * i];
      up[i] = w[2u * i + 1u];
    } else {  // kG == 4: g0..g3 u0..u3 g4..g7 u4..u7
      gate[i] = w[(i / 2u) * 4u + i % 2u];
      up[i] = w[(i / 2u) * 4u + 2u + i % 2u];
    }
  }
}

/// The four 16-byte vectors that hold the gate and up inputs of 16 bf16 outputs j0 .. j0 + 15 of
/// `row` (j0 a multiple of 16): for halves and interleaved(8k) gate run, up run, gate run, up run
/// (8 outputs each); for interleaved(g), g | 8, the 32 contiguous columns. halves and every
/// interleaved(g) but g = 8k >= 16 address them from one or two block pointers with constant
/// offsets. The caller issues all four before using any (64 bytes in flight together).
template <class Index, class Ctx>
MXV_HD MXV_FORCEINLINE void load_bf16_vectors16(Ctx& ctx, const SwigluInput& in, Index row, Index j0, Vec16* v) {
  const std::uint32_t g = in.placement.group;
  const auto inter = static_cast<Index>(in.inter);
  const auto at = [&](Index col) {  // the input from column `col` of the row on, as bytes
    return GlobalPtr<std::uint8_t>{in.gate_up.raw + std::size_t{static_cast<Index>((row * 2u * inter + col) * 2u)}};
  };
  if (g == 0u) {
    const auto gates = at(j0);
    const auto ups = at(static_cast<Index>(inter + j0));
    v[0] = ctx.load16(gates, 0);
    v[1] = ctx.load16(ups, 0);
    v[2] = ctx.load16(gates, 16);
    v[3] = ctx.load16(ups, 16);
  } else if (g % 8u == 0u && g != 8u) {
    MXV_SWIGLU_UNROLL
    for (unsigned q = 0; q < 2; ++q) {
      const auto gates = at(gate_column<Index>(g, static_cast<Index>(j0 + 8u * q)));
      v[2u * q] = ctx.load16(gates, 0);
      v[2u * q + 1u] = ctx.load16(gates, 2u * g);
    }
  } else {
    const auto run = at(static_cast<Index>(2u * j0));
    MXV_SWIGLU_UNROLL
    for (unsigned t = 0; t < 4; ++t) v[t] = ctx.load16(run, 16u * t);
  }
}

/// load_bf16_vectors16's vectors as packed pairs: gate[i] holds the gates of outputs j0 + 2i (low
/// half) and j0 + 2i + 1, up[i] their ups. The words stay packed: the table path needs no gate in
/// fp32.
MXV_HD MXV_FORCEINLINE void split_bf16_vectors16(std::uint32_t g, const Vec16* v, std::uint32_t* gate,
                                                 std::uint32_t* up) {
  if (g % 8u == 0u) {  // gate and up runs alternate
    MXV_SWIGLU_UNROLL
    for (unsigned q = 0; q < 2; ++q) {
      MXV_SWIGLU_UNROLL
      for (unsigned i = 0; i < 4; ++i) {
        gate[4u * q + i] = v[2u * q].w[i];
        up[4u * q + i] = v[2u * q + 1u].w[i];
      }
    }
    return;
  }
  MXV_SWIGLU_UNROLL
  for (unsigned q = 0; q < 2; ++q) {
    const std::uint32_t w[8] = {v[2u * q].w[0],      v[2u * q].w[1],      v[2u * q].w[2],      v[2u * q].w[3],
                                v[2u * q + 1u].w[0], v[2u * q + 1u].w[1], v[2u * q + 1u].w[2], v[2u * q + 1u].w[3]};
    // One constant-index split per g, so the words stay in registers.
    switch (g) {
      case 1u: split_bf16_words<1>(w, gate + 4u * q, up + 4u * q); break;
      case 2u: split_bf16_words<2>(w, gate + 4u * q, up + 4u * q); break;
      default: split_bf16_words<4>(w, gate + 4u * q, up + 4u * q); break;
    }
  }
}

/// The 16 activated outputs of split_bf16_vectors16's words: when every gate is in the staged
/// gate-factor table (one mask test for all 16, gate_table_slots2), each output is one shared load
/// times its up factor; otherwise all 16 take the arithmetic. The activation is uniform, so its
/// branch costs one test per 16 outputs.
template <class Ctx>
MXV_HD MXV_FORCEINLINE void activate_bf16_pairs16(Ctx& ctx, const SwigluInput& in, SharedPtr<float> table,
                                                  const std::uint32_t* gate, const std::uint32_t* up, float* out) {
  std::uint32_t slots[8];
  std::uint32_t outside = 0;
  MXV_SWIGLU_UNROLL
  for (unsigned i = 0; i < 8; ++i) {
    slots[i] = gate_table_slots2(gate[i]);
    outside |= slots[i];
  }
  const bool clamped = in.activation == Activation::kSwigluClamped;
  if ((outside & kGateTableOutside2) == 0u) {
    // The factor of slot s lies 4s bytes into the table. With every low slot below 2^13, a word's
    // high slot times 4 is its slots shifted right by 14 (one instruction). The low slot is taken
    // by a byte permute (low half, zeros above): written as a mask, nvcc moved the mask after the
    // shift and added the table's base separately, three instructions where the permute and one
    // shift-add are two (sm_90 SASS: 387 -> 379 per slot with interleaved(8), 390 -> 382 halves;
    // on the H200 78.5 -> 78.8 / 80.1 -> 80.9% alone, BENCHMARKS.md, run 79).
    unsigned char* const table_bytes = reinterpret_cast<unsigned char*>(table.raw);
    const auto factor_at = [&](std::uint32_t byte_offset) {
      return ctx.load(SharedPtr<float>{reinterpret_cast<float*>(table_bytes + byte_offset)}, 0);
    };
    const auto tabled = [&](auto up_factor) {
      MXV_SWIGLU_UNROLL
      for (unsigned i = 0; i < 8; ++i) {
        out[2u * i] = swiglu_math::mul_rn(factor_at(fp4_block::byte_perm(slots[i], 0u, 0x4410u) * 4u),
                                          up_factor(fp4_block::bf16_pair_element(up, 2u * i)));
        out[2u * i + 1u] =
            swiglu_math::mul_rn(factor_at(slots[i] >> 14), up_factor(fp4_block::bf16_pair_element(up, 2u * i + 1u)));
      }
    };
    if (!clamped) {
      tabled([](float u) { return u; });
    } else if (const std::uint32_t l = cvt::bf16_from_f32(in.limit);
               cvt::f32_from_bf16(static_cast<std::uint16_t>(l)) == in.limit) {
      // The limit is a bf16 number (gpt-oss's 7 is), so the up clamp is exact on the packed pairs:
      // two values per instruction pair instead of two compares and two selects per value. On the
      // H200 this alone took the clamped bf16 kernel from 62.4-63.5% to 67.6-68.9% of copy, and
      // with the slot loop per placement from 62.7-63.5% to 71.5-72.1% (BENCHMARKS.md, runs 65-66).
      std::uint32_t up_clamped[8];
      MXV_SWIGLU_UNROLL
      for (unsigned i = 0; i < 8; ++i) up_clamped[i] = cvt::bf16x2_clamp_nan(up[i], l | (l << 16));
      up = up_clamped;
      tabled([](float u) { return swiglu_math::add_rn(u, 1.0f); });
    } else {
      tabled([&](float u) { return swiglu_math::clamped_up(u, in.limit); });
    }
  } else {
    float g[16];
    float u[16];
    MXV_SWIGLU_UNROLL
    for (unsigned j = 0; j < 16; ++j) {
      g[j] = fp4_block::bf16_pair_element(gate, j);
      u[j] = fp4_block::bf16_pair_element(up, j);
    }
    // The checked forms: this branch is rare, and the quick forms' code in it took the kernel from
    // 74.3-74.5 / 76.0-76.4% of copy to 72.2-72.5 / 73.0-73.3% on the H200 (BENCHMARKS.md, run 64).
    activate_loaded8_checked(in, clamped, g, u, out);
    activate_loaded8_checked(in, clamped, g + 8, u + 8, out + 8);
  }
}

/// Rounds the block's values to bf16 (Intermediate::kBf16), two per hardware conversion, into
/// `words` (word i: value 2i in bits [15:0], 2i+1 in [31:16]) and returns the rounded block's
/// largest magnitude from the packed pairs (as fp32 bits: a NaN's exceed Inf's). `v` is left as it
/// was: finite blocks encode straight from the words, and only blocks with an Inf or a NaN widen
/// them back (fp4_block::bf16_pair_element). half2_from_f32_finite equals bf16_from_f32 on every
/// non-NaN value and turns a NaN into some NaN (the payload differs between the hardware and the
/// software path); the caller makes every NaN canonical before using it, so the payload never
/// shows.
template <unsigned kN>
MXV_HD MXV_FORCEINLINE std::uint32_t round_block_to_bf16(const float* v, std::uint32_t* words) {
  MXV_SWIGLU_UNROLL
  for (unsigned i = 0; i < kN / 2u; ++i) words[i] = cvt::half2_from_f32_finite<true>(v[2u * i + 1u], v[2u * i]);
  return fp4_block::bf16_pairs_abs_max_bits<kN / 2u>([&](unsigned i) { return words[i]; });
}

}  // namespace swiglu_detail

/// Unfused first half: one lane per 8 outputs, one 16-byte bf16 store each.
template <class Ctx>
MXV_HD void swiglu_bf16_body(Ctx& ctx, const SwigluParams& p) {
  const std::uint64_t tid = std::uint64_t{ctx.block_idx().x} * ctx.block_dim().x + ctx.thread_idx().x;
  const std::uint64_t stride = std::uint64_t{ctx.grid_dim().x} * ctx.block_dim().x;
  const std::uint64_t per_row = p.in.inter / 8u;
  for (std::uint64_t v = tid; v < p.vectors; v += stride) {
    const std::uint64_t row = v / per_row;
    const std::uint64_t j0 = (v - row * per_row) * 8u;
    float act[8];
    swiglu_detail::activate8(ctx, p.in, row, j0, act);
    Vec16 o{};
    for (unsigned j = 0; j < 4; ++j) {
      const float lo = swiglu_math::canonical(act[2 * j]);
      const float hi = swiglu_math::canonical(act[2 * j + 1]);
      o.w[j] = std::uint32_t{cvt::bf16_from_f32(lo)} | (std::uint32_t{cvt::bf16_from_f32(hi)} << 16);
    }
    ctx.store16(p.out, row * p.in.inter + j0, o);
  }
}

namespace swiglu_detail {

/// What a thread's part of a scale block quantizes to: the scale byte and the part's E2M1 words.
template <unsigned kWords>
struct QuantizedPart {
  std::uint8_t code = 0;
  std::uint32_t words[kWords] = {};
};

/// The slot a cursor stands on (item = scale byte: fp4_block::SlotCursor): its activation row and
/// block column, and whether it holds outputs (a padding slot holds none and stores a zero scale).
template <class Index>
struct TakenSlot {
  Index row = 0;
  Index k = 0;
  bool real = false;
};

/// The cursor's slot, then the cursor (fp4_block::SlotCursor or WholeAtomCursor) advanced by the
/// launch's stride.
template <class Index, class Ctx, class Cursor>
MXV_HD MXV_FORCEINLINE TakenSlot<Index> take_slot(Ctx& ctx, const SwigluQuantizeParams& p, Cursor& cursor) {
  const Index scale_row = cursor.row();
  const Index k = cursor.k();
  cursor.advance();
  const fp4_block::RowSlot<Index> slot = fp4_block::resolve_row<Index>(ctx, p.tile_rows, p.in.rows, scale_row);
  return {slot.row, k, slot.valid && k < static_cast<Index>(p.kb)};
}

/// Quantizes `kN` activated outputs (fp32 values, a NaN of any payload) that are one scale block
/// or, when a lane pair shares the block, its half: `pair_max` turns this thread's 32-bit maximum
/// into the block's (the identity for a whole block, one shuffle for a pair), so both lanes of a
/// pair choose the same scale. Finite blocks take the non-NaN encoder (with a bf16 intermediate the
/// one that reads the signs from the packed bf16 pairs); a block with a NaN or an Inf makes each
/// NaN canonical and takes the recipe's NaN policy for the amax and the general encoder.
template <qrules::Scheme kScheme, unsigned kN, bool kQuick, class PairMax>
MXV_HD MXV_FORCEINLINE QuantizedPart<kN / 8u> quantize_part(const SwigluQuantizeParams& p,
                                                            const qrules::Nvfp4TensorScale& ts, float* act,
                                                            PairMax pair_max) {
  std::uint32_t bf16_words[kN / 2u];
  const auto act_bits = [&](unsigned j) { return cvt::bits_of(act[j]); };
  const std::uint32_t raw = pair_max(p.round_to_bf16 ? round_block_to_bf16<kN>(act, bf16_words)
                                                     : fp4_block::f32_abs_max_bits<kN>(act_bits));
  const bool finite = raw < qrules::kInfBits;  // the same on both lanes of a pair
  std::uint32_t key = raw;
  if (!finite) {  // an Inf or a NaN: the contract's NaN payload, the recipe's NaN policy for the amax
    if (p.round_to_bf16) {
      MXV_SWIGLU_UNROLL
      for (unsigned j = 0; j < kN; ++j) act[j] = fp4_block::bf16_pair_element(bf16_words, j);
    }
    key = 0;
    MXV_SWIGLU_UNROLL
    for (unsigned j = 0; j < kN; ++j) {
      act[j] = swiglu_math::canonical(act[j]);
      key = qrules::max_u32(key, qrules::amax_key(act[j], p.nan_propagates));
    }
    key = pair_max(key);
  }
  const qrules::BlockChoice c = qrules::choose_block<kQuick>(kScheme, key, ts);
  // Every block takes the saturating E2M1 form. Choosing per block (fp4_block::e2m1_may_saturate)
  // saves one instruction per output, but a calibrated amax under the data saturates some blocks
  // of a warp and not others, and the warp runs both encoders: on the H200 the bf16 kernel fell
  // from 78-79% of copy to 67-68% (BENCHMARKS.md, run 71; per word it had cost 6-13%, "E2M1 in
  // three roundings").
  constexpr bool saturate = true;
  const fp4_block::Bf16BlockEncoding encoding = fp4_block::bf16_block_encoding(kScheme, c, saturate);
  QuantizedPart<kN / 8u> part;
  part.code = static_cast<std::uint8_t>(c.code);
  // The block's encoder chosen once, not per word (a branch and a convergence barrier each).
  const auto value = [&](unsigned j) { return act[j]; };
  if (!finite) {
    fp4_block::pack_e2m1_words<kN / 8u>(value, c.multiplier, part.words);
  } else if (p.round_to_bf16) {  // the signs straight from the bf16 pairs (the multiplier is positive)
    fp4_block::pack_e2m1_words_bf16_block<kN / 8u>([&](unsigned i) { return bf16_words[i]; }, encoding, part.words);
  } else {
    fp4_block::pack_e2m1_words_non_nan<kN / 8u>(value, c.multiplier, saturate, part.words);
  }
  return part;
}

}  // namespace swiglu_detail

/// Fused, bf16 input: activation + block amax + scale + packed E2M1 in one pass, one thread per
/// scale slot (kernels/quantize.h's vector variant applied to computed values): the thread
/// activates its block's 16 or 32 outputs, keeps them in registers, picks the scale once and
/// stores the packed codes (8 bytes in one store for NVFP4, 16 bytes as one vector for MX) and the
/// scale byte. The block first starts copying the gate-factor table
/// (kernels/swiglu_gate_table.h), and most gates cost one shared load.
template <qrules::Scheme kScheme, bool kQuick, class Index, class Ctx>
MXV_HD MXV_FORCEINLINE void swiglu_quantize_bf16_slots(Ctx& ctx, const SwigluQuantizeParams& p,
                                                       const qrules::Nvfp4TensorScale& ts) {
  constexpr unsigned kBlock = kScheme == qrules::Scheme::kNvfp4Te ? 16u : 32u;
  const Index tid = static_cast<Index>(Index{ctx.block_idx().x} * ctx.block_dim().x + ctx.thread_idx().x);
  const Index stride = static_cast<Index>(Index{ctx.grid_dim().x} * ctx.block_dim().x);
  const auto items = static_cast<Index>(p.items);
  const auto row_bytes = static_cast<Index>(p.in.inter / 2u);
  fp4_block::SlotCursor<Index> cursor = fp4_block::slot_cursor<Index>(
      tid, stride, static_cast<Index>(p.kb_slots), p.layout == ScaleLayout::kSwizzled128x4);
  // Each thread waits for the table's copy in its first real slot, before its first table read.
  // No block may end with the copy in flight, and a block may hold only padding slots, so thread 0
  // also waits after the loop (the emulator reports a block that ends before any thread waited).
  // A wait in the padding branch instead put a YIELD at the head of the slot loop and cost the
  // NVFP4 bf16 kernel about one point of copy on the H200 (BENCHMARKS.md, runs 47-48).
  const SharedPtr<float> gate_table = swiglu_detail::start_gate_table(ctx, p.gate_table);
  // One copy of the slot loop per common placement (halves, interleaved(8)) with the group a
  // constant, so the loads' and the split's tests of it fold away, and one that reads it. On the
  // H200 this took the NVFP4 bf16 kernel from 75.0-75.5 / 76.2-76.7% of copy to 77.5-78.3 /
  // 78.2-78.9% (interleaved:8 / halves; BENCHMARKS.md, run 65; run 66 on another H200: 74.2-74.4 /
  // 75.6-75.9% to 76.6-76.9 / 77.0-77.4%).
  const auto slot_loop = [&](auto known_group, auto walk) {
    SwigluInput in = p.in;
    if constexpr (decltype(known_group)::value >= 0) in.placement.group = decltype(known_group)::value;
    for (Index i = tid; i < items; i += stride) {
      const auto slot = swiglu_detail::take_slot<Index>(ctx, p, walk);
      const Index k = slot.k;
      if (!slot.real) {
        ctx.store(p.scales, i, std::uint8_t{0});  // padding slot
        continue;
      }
      float act[kBlock];
      MXV_SWIGLU_UNROLL
      for (unsigned h = 0; h < kBlock / 16u; ++h) {
        Vec16 loaded[4];
        swiglu_detail::load_bf16_vectors16<Index>(ctx, in, slot.row, static_cast<Index>(k * kBlock + 16u * h), loaded);
        std::uint32_t gate_w[8];
        std::uint32_t up_w[8];
        swiglu_detail::split_bf16_vectors16(in.placement.group, loaded, gate_w, up_w);
        if (h == 0u) swiglu_detail::wait_gate_table(ctx);  // after the slot's first loads
        swiglu_detail::activate_bf16_pairs16(ctx, in, gate_table, gate_w, up_w, act + 16u * h);
      }
      const auto part = swiglu_detail::quantize_part<kScheme, kBlock, kQuick>(p, ts, act, [](std::uint32_t m) { return m; });
      fp4_block::store_code_words<kBlock / 8u>(ctx, p.elements, static_cast<Index>(slot.row * row_bytes + k * (kBlock / 2u)),
                                               part.words);
      ctx.store(p.scales, i, part.code);
    }
  };
  // The common placements also take the cheaper cursor when the stride allows it (always on a GPU
  // with an even number of SMs: a one-wave grid of 256-thread blocks); every other launch takes the
  // general loop, so the number of loop copies stays three. With the gate table's byte permute
  // this took the NVFP4 bf16 kernel from 78.5 / 80.1% of copy to 80.6 / 81.8% on the H200
  // (interleaved:8 / halves; BENCHMARKS.md, run 79).
  const bool whole_atoms = cursor.d_o == 0u;
  if (whole_atoms && p.in.placement.group == 0u) {
    slot_loop(std::integral_constant<int, 0>{}, fp4_block::whole_atom_cursor(cursor));
  } else if (whole_atoms && p.in.placement.group == 8u) {
    slot_loop(std::integral_constant<int, 8>{}, fp4_block::whole_atom_cursor(cursor));
  } else {
    slot_loop(std::integral_constant<int, -1>{}, cursor);
  }
  if (ctx.thread_idx().x == 0u) swiglu_detail::wait_gate_table(ctx);  // see above
}

/// Fused, fp32 input: a lane pair per scale slot, each lane half the block (8 or 16 outputs). A
/// slot's inputs are 128 (NVFP4) or 256 contiguous bytes per run pair, so one lane per slot put each
/// lane of a 16-byte load instruction in its own 128-byte line (32 lines per instruction with
/// interleaved(8)); in pairs the two lanes read neighbouring 64-byte pieces and an instruction
/// meets half as many lines. The block amax is one shuffle (fp4_block::lane_pair_max, as quantize's
/// MX fp32 pairs); both lanes choose the scale, each stores its codes (4 or 8 bytes) and the even
/// lane the scale byte.
template <qrules::Scheme kScheme, bool kQuick, class Index, class Ctx>
MXV_HD MXV_FORCEINLINE void swiglu_quantize_f32_pairs(Ctx& ctx, const SwigluQuantizeParams& p,
                                                      const qrules::Nvfp4TensorScale& ts) {
  constexpr unsigned kBlock = kScheme == qrules::Scheme::kNvfp4Te ? 16u : 32u;
  constexpr unsigned kHalf = kBlock / 2u;
  const Index tid = static_cast<Index>(Index{ctx.block_idx().x} * ctx.block_dim().x + ctx.thread_idx().x);
  const Index pair = tid >> 1;
  const unsigned half = ctx.thread_idx().x & 1u;
  const unsigned pair_mask = fp4_block::lane_pair_mask(ctx.thread_idx().x);
  const Index stride = static_cast<Index>((Index{ctx.grid_dim().x} * ctx.block_dim().x) >> 1);
  const auto items = static_cast<Index>(p.items);
  const auto row_bytes = static_cast<Index>(p.in.inter / 2u);
  fp4_block::SlotCursor<Index> cursor = fp4_block::slot_cursor<Index>(
      pair, stride, static_cast<Index>(p.kb_slots), p.layout == ScaleLayout::kSwizzled128x4);
  const auto pair_max = [&](std::uint32_t m) { return fp4_block::lane_pair_max(ctx, pair_mask, m); };
  for (Index i = pair; i < items; i += stride) {
    const auto slot = swiglu_detail::take_slot<Index>(ctx, p, cursor);
    const Index k = slot.k;
    if (!slot.real) {
      if (half == 0u) ctx.store(p.scales, i, std::uint8_t{0});  // padding slot
      continue;
    }
    const Index j0 = static_cast<Index>(k * kBlock + half * kHalf);
    float act[kHalf];
    MXV_SWIGLU_UNROLL
    for (unsigned q = 0; q < kHalf / 8u; ++q) {
      swiglu_detail::activate8<0, -1, Index>(ctx, p.in, slot.row, static_cast<Index>(j0 + 8u * q), act + 8u * q);
    }
    const auto part = swiglu_detail::quantize_part<kScheme, kHalf, kQuick>(p, ts, act, pair_max);
    fp4_block::store_code_words<kHalf / 8u>(ctx, p.elements, static_cast<Index>(slot.row * row_bytes + j0 / 2u),
                                            part.words);
    if (half == 0u) ctx.store(p.scales, i, part.code);
  }
}

/// The fused kernel body: bf16 input one thread per scale slot, fp32 input a lane pair per slot
/// (the two functions above). The scheme and input type are template parameters, so each kernel
/// is straight-line code: with fp32 input the portable exp and the IEEE division are most of the
/// per-output cost, and runtime selects around them would add to it. The activation stays a
/// runtime choice (a uniform branch per 8 outputs, 16 with bf16 input), which halves the number
/// of kernels to compile.
template <qrules::Scheme kScheme, bool kBf16, class Index, class Ctx>
MXV_HD void swiglu_quantize_body(Ctx& ctx, const SwigluQuantizeParams& p) {
  const qrules::Nvfp4TensorScale ts = fp4_block::tensor_scale(ctx, kScheme, p.amax_bits, p.s_dec_out);
  // NVFP4 with bf16 input: one copy of the slot loop per block reciprocal
  // (fp4_block::with_block_reciprocal). With fp32 input the second copy spilled 52 bytes at the
  // kernel's 48-register bound, so it keeps div_rn.
  fp4_block::with_block_reciprocal<kScheme == qrules::Scheme::kNvfp4Te && kBf16>(ts, [&](auto quick) {
    if constexpr (kBf16) {
      swiglu_quantize_bf16_slots<kScheme, decltype(quick)::value, Index>(ctx, p, ts);
    } else {
      swiglu_quantize_f32_pairs<kScheme, decltype(quick)::value, Index>(ctx, p, ts);
    }
  });
}

enum class SwigluVariant : std::uint8_t { kBf16 };
constexpr std::string_view to_string(SwigluVariant) { return "swiglu_bf16"; }
enum class SwigluQuantizeVariant : std::uint8_t { kFused };
constexpr std::string_view to_string(SwigluQuantizeVariant) { return "swiglu_quantize_fused"; }

/// The SwiGLU kernels as both backends run them (kernel_family.h).
struct SwigluBf16Kernel : KernelOf<SwigluParams, kSwigluBlockThreads> {
  template <class Ctx>
  static MXV_HD MXV_FORCEINLINE void run(Ctx& ctx, const SwigluParams& p) { swiglu_bf16_body(ctx, p); }
};
/// Resident blocks the NVFP4 kernels with 32-bit indexing declare (nvcc 13.0 figures). bf16 input:
/// four; its wait after the slot loop (swiglu_quantize_bf16_slots) would otherwise take it from 64
/// to 70 registers, three blocks per SM, and under the bound it keeps 64 without spilling. fp32
/// input: five; its lane pairs need 49 registers, which still leaves four blocks, and at 48 one
/// word (the tensor scale's s_dec, read once per slot) goes to local memory. Five blocks with that
/// word took the kernel from 72 / 73.5% to 77 / 78.3% of copy on the H200, interleaved:8 / halves
/// (BENCHMARKS.md, run 60); tests/device/kernel_registers_test.cpp holds both budgets.
template <qrules::Scheme kScheme, bool kBf16, class Index>
inline constexpr unsigned kSwigluFusedMinBlocks =
    kScheme == qrules::Scheme::kNvfp4Te && sizeof(Index) == 4 ? (kBf16 ? 4u : 5u) : 1u;

template <qrules::Scheme kScheme, bool kBf16, class Index>
struct SwigluQuantizeFusedKernel
    : KernelOf<SwigluQuantizeParams, kSwigluBlockThreads, kSwigluFusedMinBlocks<kScheme, kBf16, Index>> {
  template <class Ctx>
  static MXV_HD MXV_FORCEINLINE void run(Ctx& ctx, const SwigluQuantizeParams& p) {
    swiglu_quantize_body<kScheme, kBf16, Index>(ctx, p);
  }
};

/// The unfused activation (to bf16).
using SwigluFamily = OneKernelFamily<SwigluBf16Kernel, SwigluVariant::kBf16>;

/// The fused activation + quantize: the kernel of the launch's scheme, input type and index width.
struct SwigluQuantizeFamily : FamilyOf<SwigluQuantizeParams, SwigluQuantizeVariant::kFused> {
  template <class Visitor>
  static void visit(SwigluQuantizeVariant, const LaunchPlan&, const SwigluQuantizeParams& p, Visitor&& visitor) {
    visit_scheme_kernel<SwigluQuantizeFusedKernel>(p.scheme, p.in.input_bf16, p.narrow_index, visitor);
  }
};

}  // namespace mxv::device
