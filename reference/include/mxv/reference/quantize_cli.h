// Registers `mxv quantize` and `mxv dequantize` with the CLI11 program in tools/main.cpp: option
// parsing only; the logic is run_quantize / run_dequantize (quantize_command.h). Header-only so
// that mxv::reference does not depend on CLI11; include it only from tools/ (and its tests).
#pragma once

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "mxv/reference/quantize_command.h"

namespace mxv {

/// Adds `quantize`; errors surface as exceptions (main prints them, exit code 2).
inline void add_quantize_command(CLI::App& app) {
  auto req = std::make_shared<QuantizeRequest>();
  CLI::App* cmd = app.add_subcommand(
      "quantize", "quantize activations [rows, cols] with a recipe (MXFP4, NVFP4, MXFP8); SEMANTICS.md 4-5");
  cmd->add_option("--input,-i", req->input, "activations [rows, cols], raw little-endian (required)");
  cmd->add_option("--dtype", req->dtype, "fp32 | bf16 | fp16")->capture_default_str();
  cmd->add_option("--cols,-K", req->cols, "K, elements per row (required)");
  cmd->add_option("--rows,-M", req->rows, "rows (default: from the file size; must match it)");
  cmd->add_option("--recipe", req->recipe, "a preset (nvfp4_te, nvfp4_trtllm, ..., mxfp4_ocp, ort_qmoe)")
      ->capture_default_str();
  cmd->add_option("--scale-layout", req->scale_layout, "linear | swizzled")->capture_default_str();
  cmd->add_option("--rows-per-expert", req->rows_per_expert, "a,b,c: grouped rows per expert, summing to rows");
  cmd->add_flag("--scale-per-expert", req->scale_per_expert, "NVFP4: one global scale per expert");
  cmd->add_option("--tensor-amax", req->tensor_amax, "NVFP4: given tensor amax (default max |x|)");
  cmd->add_option("--rcp-table", req->rcp_table, "rcp.approx table file (nvfp4_trtllm)");
  cmd->add_option("--out-elements", req->out_elements, "packed elements (required)");
  cmd->add_option("--out-scales", req->out_scales, "block scales (required)");
  cmd->add_option("--out-global", req->out_global, "NVFP4 global decode scales (required for NVFP4)");
  cmd->footer(std::string(quantize_file_layouts()));
  cmd->callback([req] { run_quantize(*req, std::cout); });
}

/// Adds `dequantize`.
inline void add_dequantize_command(CLI::App& app) {
  auto req = std::make_shared<DequantizeRequest>();
  CLI::App* cmd = app.add_subcommand(
      "dequantize", "dequantize activations or MoE weights (k-packed / n-packed) to fp32/bf16/fp16");
  cmd->add_option("--kind", req->kind, "activations | weights")->capture_default_str();
  cmd->add_option("--recipe", req->recipe, "a preset")->capture_default_str();
  cmd->add_option("--elements", req->elements, "packed elements (required)");
  cmd->add_option("--scales", req->scales, "block scales (required)");
  cmd->add_option("--global", req->global, "NVFP4: fp32 s_dec file (one, or one per group/expert)");
  cmd->add_option("--rows,-M", req->rows, "activations: rows");
  cmd->add_option("--cols,-K", req->cols, "activations: cols");
  cmd->add_option("--scale-layout", req->scale_layout, "activations: linear | swizzled")->capture_default_str();
  cmd->add_option("--rows-per-expert", req->rows_per_expert, "activations: a,b,c grouped rows");
  cmd->add_option("--experts", req->experts, "weights: E");
  cmd->add_option("--n", req->n, "weights: N (output features)");
  cmd->add_option("--k", req->k, "weights: K (reduction axis)");
  cmd->add_option("--packing", req->packing, "weights: k-packed | n-packed")->capture_default_str();
  cmd->add_option("--out,-o", req->out, "output file (required)");
  cmd->add_option("--out-dtype", req->out_dtype, "fp32 | bf16 | fp16")->capture_default_str();
  cmd->footer(std::string(dequantize_file_layouts()));
  cmd->callback([req] { run_dequantize(*req, std::cout); });
}

}  // namespace mxv
