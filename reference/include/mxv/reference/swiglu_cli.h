// Registers `mxv swiglu-quantize` with the CLI11 program in tools/main.cpp: option parsing only;
// the verb's logic is run_swiglu_quantize (swiglu_command.h). Header-only so that mxv::reference
// itself does not depend on CLI11; include it only from tools/.
#pragma once

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "mxv/reference/swiglu_command.h"

namespace mxv {

/// Adds the `swiglu-quantize` subcommand; errors surface as exceptions (main prints them, exit
/// code 2). Every option is a plain string: run_swiglu_quantize validates it and names the rule
/// a bad value breaks.
inline void add_swiglu_quantize_command(CLI::App& app) {
  auto req = std::make_shared<SwigluQuantizeRequest>();
  CLI::App* cmd = app.add_subcommand(
      "swiglu-quantize",
      "SwiGLU on a GEMM output [rows, 2I], quantized to NVFP4 (packed codes, block scales, "
      "global scale), fused or as the unfused pair; SEMANTICS.md section 6");
  cmd->add_option("--input,-i", req->input, "GEMM output [rows, 2I], raw little-endian (required)");
  cmd->add_option("--dtype", req->dtype, "fp32 | bf16: element type of the input")->capture_default_str();
  cmd->add_option("--intermediate-size,-I", req->intermediate_size, "I: the input has 2*I columns (required)");
  cmd->add_option("--rows", req->rows, "rows (default: from the file size; must match it)");
  cmd->add_option("--layout", req->layout, "halves | interleaved:G (G divides I)")->capture_default_str();
  cmd->add_option("--activation", req->activation, "silu | swiglu-clamped")->capture_default_str();
  cmd->add_option("--alpha", req->alpha, "swiglu-clamped alpha (default 1.702)");
  cmd->add_option("--limit", req->limit, "swiglu-clamped limit (default 7)");
  cmd->add_option("--intermediate", req->intermediate,
                  "fp32 | bf16: precision of the activated value before quantizing")
      ->capture_default_str();
  cmd->add_option("--recipe", req->recipe,
                  "NVFP4 preset: nvfp4_te | nvfp4_trtllm | nvfp4_cutlass_ref | nvfp4_modelopt | "
                  "nvfp4_torchao")
      ->capture_default_str();
  cmd->add_option("--rows-per-expert", req->rows_per_expert,
                  "a,b,c: grouped (MoE) rows per expert, summing to rows");
  cmd->add_option("--scale-layout", req->scale_layout, "swizzled | linear")->capture_default_str();
  cmd->add_flag("--scale-per-expert", req->scale_per_expert, "one global scale per expert");
  cmd->add_option("--tensor-amax", req->tensor_amax,
                  "given tensor amax (default: first pass over the activated output)");
  cmd->add_flag("--unfused", req->unfused,
                "model the unfused pair: swiglu -> bf16 tensor -> quantize (ignores --intermediate)");
  cmd->add_option("--out-codes", req->out_codes, "packed E2M1 codes (required)");
  cmd->add_option("--out-scales", req->out_scales, "block scales (required)");
  cmd->add_option("--out-global", req->out_global, "global scales (required)");
  cmd->add_option("--out-activated", req->out_activated, "optional: the activated fp32 values");
  cmd->footer(std::string(swiglu_quantize_file_layouts()));
  cmd->callback([req] { run_swiglu_quantize(*req, std::cout); });
}

}  // namespace mxv
