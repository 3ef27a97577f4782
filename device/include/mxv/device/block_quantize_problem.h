// What the quantize and the fused SwiGLU + quantize problems share: both kernels quantize the rows
// of one activation through the same block walk (kernels/fp4_block.h, docs/design.md sections
// 5.3 and 5.4), so the recipe, the input type, the rows, their grouping and the tensor amax are
// one struct that each problem extends with its own shape and its own default scale layout.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "mxv/reference/recipe.h"
#include "mxv/reference/vocabulary.h"

namespace mxv::device {

struct BlockQuantizeProblem {
  Recipe recipe = Recipe::nvfp4_te();
  mxv::WideType input_type = mxv::WideType::kFp32;  ///< fp32 or bf16 (fp16 is rejected)
  std::int64_t rows = 0;                            ///< M >= 1 (compact rows)
  /// Grouped (MoE) rows: per-expert counts (>= 0) summing to rows; empty = one group.
  std::vector<std::int64_t> group_counts;
  /// NVFP4: a calibrated tensor amax used as given (quantize: absent = the amax kernel runs
  /// first; fused SwiGLU: required). MX ignores it.
  std::optional<float> tensor_amax;
};

}  // namespace mxv::device
