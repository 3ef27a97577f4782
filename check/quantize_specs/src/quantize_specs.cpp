// Specs and contexts of quantize_activations' outputs for the check library (quantize_specs.h).
// Layout facts from quantize.h / docs/semantics.md section 5: elements are compact rows (grouping does
// not pad them); scales are linear compact rows or, swizzled, one 128x4-tiled region per expert.
#include "mxv/check/quantize_specs.h"

#include <stdexcept>

namespace mxv::check {
namespace {

std::size_t to_size(std::int64_t v, const char* what) {
  if (v < 0) throw std::invalid_argument(std::string("mxv::check: QuantizedActivations.") + what + " is negative");
  return static_cast<std::size_t>(v);
}

// Rows and batches of `q` as the check library describes them.
void describe_rows(const QuantizedActivations& q, OutputSpec& spec) {
  const auto& counts = q.groups.counts;
  if (counts.size() <= 1) {
    spec.batches = 1;
    spec.rows = to_size(q.rows, "rows");
    return;
  }
  spec.batches = counts.size();
  spec.group_rows.clear();
  for (const std::int64_t c : counts) spec.group_rows.push_back(to_size(c, "groups.counts"));
  spec.axes[0] = "expert";
}

}  // namespace

OutputSpec element_spec(const QuantizedActivations& q, std::string name) {
  OutputSpec spec = q.element_bits == 4 ? OutputSpec::packed_e2m1(std::move(name), 0, to_size(q.cols, "cols"))
                                        : OutputSpec::tensor(std::move(name), CodeKind::kE4M3, 0, to_size(q.cols, "cols"));
  describe_rows(q, spec);
  return spec;
}

OutputSpec scale_spec(const Recipe& recipe, const QuantizedActivations& q, std::string name) {
  const CodeKind kind = recipe.is_nvfp4() ? CodeKind::kUE4M3 : CodeKind::kE8M0;
  const Layout layout = q.scale_layout == ScaleLayout::kSwizzled128x4 ? Layout::kSwizzled128x4 : Layout::kRowMajor;
  OutputSpec spec = OutputSpec::scales(std::move(name), kind, 0, to_size(q.scale_cols, "scale_cols"), layout);
  describe_rows(q, spec);
  return spec;
}

Context element_context(const Recipe& recipe, const QuantizedActivations& q, std::span<const std::uint32_t> input_bits,
                        InputKind input_kind) {
  Context ctx;
  if (!input_bits.empty()) {
    ctx.input_kind = input_kind;
    ctx.input_bits = input_bits;
  }
  ctx.pre_rounding = q.prescaled;
  ctx.block_size = static_cast<std::size_t>(recipe.block_size);
  ctx.block_amax = q.block_amax;
  ctx.block_scale = q.scale_input;
  return ctx;
}

Context scale_context(const QuantizedActivations& q) {
  Context ctx;
  ctx.pre_rounding = q.scale_input;
  ctx.block_size = 1;
  ctx.block_amax = q.block_amax;
  ctx.block_scale = q.scale_input;
  return ctx;
}

}  // namespace mxv::check
