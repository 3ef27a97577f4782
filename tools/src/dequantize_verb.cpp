// `mxv dequantize`: options only; the logic is run_dequantize (reference/quantize_command.h).
#include <iostream>
#include <memory>

#include "mxv/cli/verbs.h"
#include "mxv/cli/vocabulary.h"
#include "mxv/reference/quantize_command.h"

namespace mxv::cli {

void add_dequantize_verb(CLI::App& app) {
  const auto [cmd, req] = add_verb<DequantizeRequest>(
      app, "dequantize", "Dequantize activations or MoE weights (k-packed / n-packed) to fp32 / bf16 / fp16");
  add_text(*cmd, "--kind", req->kind, "activations | weights (default activations)", kName);
  add_recipe(*cmd, req->recipe, "a preset (as for quantize)");
  add_text(*cmd, "--elements", req->elements, "packed elements, as quantize --out-elements writes them (required)", kFile);
  add_text(*cmd, "--scales", req->scales, "block scales, as quantize --out-scales writes them (required)", kFile);
  add_text(*cmd, "--global", req->global, "NVFP4 only (required there): fp32 [G] s_dec, as --out-global writes it",
           kFile);
  add_rows(*cmd, req->rows, "activations: M; weights: N, output features per expert (required)");
  add_cols(*cmd, req->cols, "K, the reduction axis (required)");
  add_scale_layout(*cmd, req->scale_layout, "linear");
  add_rows_per_expert(*cmd, req->rows_per_expert);
  add_text(*cmd, "-E,--experts", req->experts, "weights only: E, the number of experts (required there)", kInt);
  add_text(*cmd, "--packing", req->packing, "weights only: k-packed | n-packed (default k-packed)", kName);
  add_output(*cmd, req->output, "dequantized values");
  add_out_dtype(*cmd, req->out_dtype, "element type of --output");
  add_files_footer(*cmd, dequantize_file_layouts());
  cmd->callback([req] { run_dequantize(*req, std::cout); });
}

}  // namespace mxv::cli
