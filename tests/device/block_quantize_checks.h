// How the block-quantizing kernels' outputs (quantize, fused SwiGLU + quantize) are held to the
// reference model (reference/quantize.h) through the check library: the scale buffer's spec for
// a scale layout and grouped rows, the contexts that explain a mismatching element or scale
// (docs/verification.md section 4), and the comparison of a run's outputs with the model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mxv/check/check.h"
#include "mxv/check/gtest.h"
#include "mxv/device/block_quantize_buffers.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/recipe.h"
#include "mxv/reference/scale_layout.h"

namespace mxv::test {

inline check::CodeKind scale_kind(const Recipe& r) {
  return r.is_nvfp4() ? check::CodeKind::kUE4M3 : check::CodeKind::kE8M0;
}

/// The scale buffer of `rows` rows with `kb` scale columns: row-major, or swizzled 128x4 (per
/// group of rows when `groups` is not empty), padding included.
inline check::OutputSpec scale_spec(ScaleLayout layout, const std::vector<std::int64_t>& groups, std::int64_t rows,
                                    std::size_t kb, const Recipe& r) {
  const bool swizzled = layout == ScaleLayout::kSwizzled128x4;
  const check::Layout l = swizzled ? check::Layout::kSwizzled128x4 : check::Layout::kRowMajor;
  if (swizzled && !groups.empty()) {
    check::OutputSpec s = check::OutputSpec::scales("scales", scale_kind(r), 0, kb, l, groups.size());
    for (const auto g : groups) s.group_rows.push_back(static_cast<std::size_t>(g));
    return s;
  }
  return check::OutputSpec::scales("scales", scale_kind(r), static_cast<std::size_t>(rows), kb, l);
}

/// The context of the elements: each element's pre-rounding value, its block's amax and scale.
inline check::Context element_context(const QuantizedActivations& ref, std::int64_t block_size) {
  check::Context c;
  c.pre_rounding = ref.prescaled;
  c.block_size = static_cast<std::size_t>(block_size);
  c.block_amax = ref.block_amax;
  c.block_scale = ref.scale_input;
  return c;
}

/// The context of the scales: one block per scale, its amax and its value before the rounding.
inline check::Context scale_context(const QuantizedActivations& ref) {
  check::Context c;
  c.block_size = 1;
  c.block_amax = ref.block_amax;
  c.pre_rounding = ref.scale_input;
  return c;
}

/// What a block-quantizing run wrote, downloaded for a second comparison.
struct QuantizedBytes {
  std::vector<std::uint8_t> elements;
  std::vector<std::uint8_t> scales;
};

/// Holds the outputs in `out` to the reference `ref`, byte for byte through the check library:
/// the elements (explained with `ectx`), the scales with their padding (laid out as `layout` and
/// `groups` say), and, for NVFP4, the global decode scale and, with `with_amax`, the tensor amax.
inline QuantizedBytes expect_block_quantized(device::Backend& be, const Recipe& recipe, const QuantizedActivations& ref,
                                             const check::Context& ectx, ScaleLayout layout,
                                             const std::vector<std::int64_t>& groups,
                                             const device::BlockQuantizeBuffers& out, bool with_amax,
                                             const check::Options& copt) {
  QuantizedBytes got{be.download<std::uint8_t>(out.elements), be.download<std::uint8_t>(out.scales)};
  const auto espec = check::OutputSpec::packed_e2m1("elements", static_cast<std::size_t>(ref.rows),
                                                    static_cast<std::size_t>(ref.cols));
  MXV_EXPECT_BYTE_EXACT(espec, ref.elements, got.elements, ectx, copt);
  const check::OutputSpec sspec =
      scale_spec(layout, groups, ref.rows, static_cast<std::size_t>(ref.scale_cols), recipe);
  EXPECT_EQ(got.scales.size(), ref.scales.size());
  MXV_EXPECT_BYTE_EXACT(sspec, ref.scales, got.scales, scale_context(ref), copt);
  if (recipe.is_nvfp4()) {
    const std::vector<float> want_s_dec = {ref.tensor.at(0).s_dec};
    MXV_EXPECT_BYTE_EXACT(check::OutputSpec::scalar("s_dec"), check::bytes_of(want_s_dec),
                          check::bytes_of(be.download<float>(out.s_dec)), {}, copt);
    if (with_amax) {
      const std::vector<float> want_amax = {ref.tensor.at(0).amax};
      MXV_EXPECT_BYTE_EXACT(check::OutputSpec::scalar("amax"), check::bytes_of(want_amax),
                            check::bytes_of(be.download<float>(out.amax)), {}, copt);
    }
  }
  return got;
}

}  // namespace mxv::test
