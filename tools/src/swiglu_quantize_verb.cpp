// `mxv swiglu-quantize`: options only; the logic is run_swiglu_quantize
// (reference/swiglu_command.h).
#include <iostream>
#include <memory>

#include "mxv/cli/verbs.h"
#include "mxv/cli/vocabulary.h"
#include "mxv/reference/swiglu_command.h"

namespace mxv::cli {

void add_swiglu_quantize_verb(CLI::App& app) {
  const auto [cmd, req] = add_verb<SwigluQuantizeRequest>(
      app, "swiglu-quantize",
      "SwiGLU on a GEMM output [rows, 2I], quantized to NVFP4 (packed elements, block scales, global scale), "
      "fused or as the unfused pair; docs/semantics.md section 6");
  add_input(*cmd, req->input, "GEMM output [rows, 2I], raw little-endian");
  add_dtype(*cmd, req->dtype, "fp32 | bf16", "element type of --input");
  add_text(*cmd, "-I,--intermediate-size", req->intermediate_size, "I: the input has 2*I columns (required)", kInt);
  add_rows(*cmd, req->rows, "rows (default: from the file size; must match it)");
  add_text(*cmd, "--layout", req->layout, "halves | interleaved:G, G divides I (default halves)", "NAME[:INT]");
  add_text(*cmd, "--activation", req->activation, "silu | swiglu-clamped (default silu)", kName);
  add_text(*cmd, "--alpha", req->alpha, "swiglu-clamped only: alpha, finite and > 0 (default 1.702)", kReal);
  add_text(*cmd, "--limit", req->limit, "swiglu-clamped only: limit, finite and > 0 (default 7)", kReal);
  add_text(*cmd, "--activated-dtype", req->activated_dtype,
           "fp32 | bf16: precision of the activated value before quantizing (default fp32)", kName);
  add_recipe(*cmd, req->recipe, "an NVFP4 preset: nvfp4_te | nvfp4_trtllm | nvfp4_cutlass_ref | nvfp4_modelopt | "
                                "nvfp4_torchao");
  add_rows_per_expert(*cmd, req->rows_per_expert);
  add_scale_layout(*cmd, req->scale_layout, "swizzled");
  add_scale_per_expert(*cmd, req->scale_per_expert);
  add_tensor_amax(*cmd, req->tensor_amax, "a first pass over the activated output");
  cmd->add_flag("--unfused", req->unfused, "model the unfused pair: swiglu -> bf16 tensor -> quantize");
  add_quantized_outputs(*cmd, req->out_elements, req->out_scales);
  add_out_global(*cmd, req->out_global);
  add_text(*cmd, "--out-activated", req->out_activated, "optional: the activated fp32 values [rows, I]", kFile);
  add_files_footer(*cmd, swiglu_quantize_file_layouts());
  cmd->callback([req] { run_swiglu_quantize(*req, std::cout); });
}

}  // namespace mxv::cli
