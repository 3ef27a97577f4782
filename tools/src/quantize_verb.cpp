// `mxv quantize`: options only; the logic is run_quantize (reference/quantize_command.h).
#include <iostream>
#include <memory>

#include "mxv/cli/verbs.h"
#include "mxv/cli/vocabulary.h"
#include "mxv/reference/quantize_command.h"

namespace mxv::cli {

void add_quantize_verb(CLI::App& app) {
  const auto [cmd, req] = add_verb<QuantizeRequest>(
      app, "quantize",
      "Quantize activations [rows, cols] with a recipe (MXFP4, NVFP4, MXFP8); docs/semantics.md sections 4-5");
  add_input(*cmd, req->input, "activations [rows, cols], raw little-endian");
  add_dtype(*cmd, req->dtype, "fp32 | bf16 | fp16", "element type of --input");
  add_cols(*cmd, req->cols, "K, elements per row (required)");
  add_rows(*cmd, req->rows, "M, rows (default: from the file size; must match it)");
  add_recipe(*cmd, req->recipe, "a preset: nvfp4_te | nvfp4_trtllm | nvfp4_cutlass_ref | nvfp4_modelopt | "
                                "nvfp4_torchao | mxfp4_nvidia | mxfp4_ocp | mxfp8_nvidia | mxfp8_ocp | ort_qmoe");
  add_scale_layout(*cmd, req->scale_layout, "linear");
  add_rows_per_expert(*cmd, req->rows_per_expert);
  add_scale_per_expert(*cmd, req->scale_per_expert);
  add_tensor_amax(*cmd, req->tensor_amax, "max |x|");
  add_text(*cmd, "--rcp-table", req->rcp_table, "nvfp4_trtllm only: the rcp.approx table file", kFile);
  add_quantized_outputs(*cmd, req->out_elements, req->out_scales);
  add_out_global(*cmd, req->out_global);
  add_files_footer(*cmd, quantize_file_layouts());
  cmd->callback([req] { run_quantize(*req, std::cout); });
}

}  // namespace mxv::cli
