// The SwiGLU kernel bodies (SEMANTICS.md section 6; DESIGN.md "Production kernels",
// swiglu_quantize): gate/up [rows, 2I] (fp32 or bf16; layouts halves and interleaved(g) for g
// dividing 8 or a multiple of 8) ->
//  - fused ("swiglu_quantize_fused"): the activated row quantized in the same pass to packed E2M1
//    [rows, I/2] + scales (swizzled 128x4 or linear, padding zero; grouped rows as in
//    kernels/quantize.h), optionally rounding each activated value to bf16 first;
//  - unfused first half ("swiglu_bf16"): the activated output [rows, I] as bf16, which the quantize
//    kernel then quantizes (the pair the fused kernel must equal bit for bit when it rounds to bf16).
//
// Lane mapping: each lane owns 8 consecutive activated outputs (j0 = 8 * lane slot), so an NVFP4
// block of 16 is 2 lanes (MX: 4) and its amax meets through butterfly shuffles. With
// interleaved(8) the 8 gate and 8 up inputs of a lane are adjacent in the GEMM row (one pair of
// contiguous runs); with interleaved(1) they are 16 contiguous alternating values; with halves two
// runs I apart. Loads are 16-byte vectors throughout (I % 16 == 0 is the launcher's gate).
//
// NVFP4 needs the tensor amax of the activated output before any block can be scaled, which one
// pass cannot know: the fused kernel takes it as an input (a calibrated amax, as production
// epilogues do), exactly like quantize's `tensor_amax` path.
#pragma once

#include <cstdint>

#include "mxv/device/cvt.h"
#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernels/fp4_block.h"
#include "mxv/device/kernels/quantize_rules.h"
#include "mxv/device/kernels/swiglu_math.h"

namespace mxv::device {

inline constexpr unsigned kSwigluBlockThreads = 256;

/// Where gate and up sit in a row of 2I columns: halves (group == 0) or interleaved(group).
struct GateUpPlacement {
  std::uint32_t group = 0;
};

enum class SwigluActivationKind : std::uint8_t { kSilu, kSwigluClamped };

/// What both SwiGLU kernels read.
struct SwigluInput {
  bool input_bf16 = false;
  GateUpPlacement placement{};
  SwigluActivationKind activation = SwigluActivationKind::kSilu;
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
  qrules::ScaleLayoutKind layout = qrules::ScaleLayoutKind::kSwizzled128x4;
  bool round_to_bf16 = false;    ///< Intermediate::kBf16: quantize bf16(activated)
  bool nan_propagates = false;
  std::uint64_t kb = 0;          ///< I / block
  std::uint64_t kb_slots = 0;    ///< kb, or round_up(kb, 4) swizzled
  std::uint64_t scale_rows = 0;  ///< rows, or padded to 128 per group
  std::uint64_t items = 0;       ///< scale_rows * kb_slots
  GlobalPtr<std::uint8_t> elements{};  ///< [rows, I/2]
  GlobalPtr<std::uint8_t> scales{};
  GlobalPtr<std::uint32_t> tile_rows{};  ///< as QuantizeParams::tile_rows
  GlobalPtr<std::uint32_t> amax_bits{};  ///< NVFP4: the tensor amax of the activated output (read)
  GlobalPtr<float> s_dec_out{};
};

namespace swiglu_detail {

/// `n` (8 or 16) consecutive inputs of a row starting at column `col`, widened to fp32.
template <class Ctx>
MXV_HD MXV_FORCEINLINE void load_run(Ctx& ctx, const SwigluInput& in, std::uint64_t row, std::uint64_t col,
                                     unsigned n, float* dst) {
  const unsigned per_vec = in.input_bf16 ? 8u : 4u;
  const std::uint64_t esize = in.input_bf16 ? 2u : 4u;
  const std::uint64_t base = row * 2u * in.inter + col;
  for (unsigned v = 0; v < n / per_vec; ++v) {
    const Vec16 x = ctx.load16(in.gate_up, (base + std::uint64_t{v} * per_vec) * esize);
    for (unsigned j = 0; j < per_vec; ++j) dst[v * per_vec + j] = fp4_block::vec16_element(x, j, in.input_bf16);
  }
}

/// The 8 activated outputs j0 .. j0+7 of `row` (j0 a multiple of 8), in fp32.
template <class Ctx>
MXV_HD MXV_FORCEINLINE void activate8(Ctx& ctx, const SwigluInput& in, std::uint64_t row, std::uint64_t j0,
                                      float* out) {
  float gate[8];
  float up[8];
  const std::uint32_t g = in.placement.group;
  if (g == 0u) {  // halves: gate = [0, I), up = [I, 2I)
    load_run(ctx, in, row, j0, 8, gate);
    load_run(ctx, in, row, in.inter + j0, 8, up);
  } else if (g % 8u == 0u) {  // interleaved(8k): 8 gates then, g columns later, 8 ups
    const std::uint64_t gcol = (j0 / g) * 2u * g + j0 % g;
    load_run(ctx, in, row, gcol, 8, gate);
    load_run(ctx, in, row, gcol + g, 8, up);
  } else {  // interleaved(g), g | 8: 16 contiguous columns hold 8/g (gate run, up run) pairs
    float raw[16];
    load_run(ctx, in, row, 2u * j0, 16, raw);
    for (unsigned t = 0; t < 16; ++t) {
      const unsigned pair = t / (2u * g);
      const unsigned r = t % (2u * g);
      if (r < g) gate[pair * g + r] = raw[t];
      else up[pair * g + r - g] = raw[t];
    }
  }
  for (unsigned j = 0; j < 8; ++j) {
    out[j] = in.activation == SwigluActivationKind::kSilu ? swiglu_math::silu_mul(gate[j], up[j])
                                                         : swiglu_math::swiglu_clamped(gate[j], up[j], in.alpha, in.limit);
  }
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
      o.w[j] = std::uint32_t{cvt::bf16_from_f32(act[2 * j])} | (std::uint32_t{cvt::bf16_from_f32(act[2 * j + 1])} << 16);
    }
    ctx.store16(p.out, row * p.in.inter + j0, o);
  }
}

/// Fused: activation + amax over each block across lanes + scale + packed E2M1, one pass.
template <class Ctx>
MXV_HD void swiglu_quantize_body(Ctx& ctx, const SwigluQuantizeParams& p) {
  const unsigned block = qrules::block_size(p.scheme);
  const unsigned lanes = block / 8u;  // 2 (NVFP4) or 4 (MX)
  const unsigned shift = lanes == 2u ? 1u : 2u;
  const std::uint64_t total = p.items << shift;
  const std::uint64_t tid = std::uint64_t{ctx.block_idx().x} * ctx.block_dim().x + ctx.thread_idx().x;
  const std::uint64_t stride = std::uint64_t{ctx.grid_dim().x} * ctx.block_dim().x;  // multiple of 32
  const qrules::Nvfp4TensorScale ts = fp4_block::tensor_scale(ctx, p.scheme, p.amax_bits, p.s_dec_out);
  const std::uint64_t row_bytes = p.in.inter / 2u;
  // (scale_row, k) of item i / lanes, stepped by the item stride (stride / lanes, exact).
  fp4_block::SlotCursor<> cursor = fp4_block::slot_cursor<std::uint64_t>(tid >> shift, stride >> shift, p.kb_slots);

  // Warp-uniform trip count (as in quantize_vector_body): every lane reaches every shuffle.
  for (std::uint64_t i = tid; (i & ~std::uint64_t{31}) < total; i += stride) {
    const bool active = i < total;
    const unsigned sub = static_cast<unsigned>(i & (lanes - 1u));
    const std::uint64_t scale_row = cursor.row;
    const std::uint64_t k = cursor.k;
    cursor.advance();
    bool valid = false;
    std::uint64_t row = scale_row;
    if (active) {
      if (p.tile_rows.raw == nullptr) {
        valid = scale_row < p.in.rows;
      } else {
        const std::uint64_t tile = scale_row >> 7;
        const std::uint64_t local = scale_row & 127u;
        valid = local < ctx.load(p.tile_rows, 2u * tile + 1u);
        row = std::uint64_t{ctx.load(p.tile_rows, 2u * tile)} + local;
      }
    }
    const bool has_data = valid && k < p.kb;
    const std::uint64_t j0 = k * block + std::uint64_t{sub} * 8u;

    float act[8] = {};
    std::uint32_t key = 0;
    if (has_data) {
      swiglu_detail::activate8(ctx, p.in, row, j0, act);
      for (unsigned j = 0; j < 8; ++j) {
        if (p.round_to_bf16) act[j] = cvt::f32_from_bf16(cvt::bf16_from_f32(act[j]));
        key = qrules::max_u32(key, qrules::amax_key(act[j], p.nan_propagates));
      }
    }
    key = fp4_block::block_amax(ctx, key, lanes);

    if (has_data) {
      const qrules::BlockChoice c = qrules::choose_block(p.scheme, key, ts);
      const std::uint32_t word = fp4_block::pack_e2m1_word<8>([&](unsigned j) { return act[j]; }, c.multiplier);
      ctx.store(GlobalPtr<std::uint32_t>{reinterpret_cast<std::uint32_t*>(p.elements.raw)},
                (row * row_bytes + j0 / 2u) / 4u, word);
      if (sub == 0u) ctx.store(p.scales, qrules::scale_offset(p.layout, scale_row, k, p.kb), static_cast<std::uint8_t>(c.code));
    } else if (active && sub == 0u) {
      ctx.store(p.scales, qrules::scale_offset(p.layout, scale_row, k, p.kb), std::uint8_t{0});  // padding slot
    }
  }
}

}  // namespace mxv::device
