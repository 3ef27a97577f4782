// One golden case: a kernel call written down completely (what it computes, every recipe field and
// option, its inputs) together with what the reference model says it must produce. The schema
// these values are stored in is docs/golden-files.md; golden_file.h reads and writes it.
//
// Writing a case from C++ (a fuzzer saving a failure, a test pinning an input):
//
//   mxv::golden::GoldenCase c = mxv::golden::make_case("fuzz/quantize/seed-42", params, {input});
//   mxv::golden::write_golden_file("failure.h5",
//       mxv::golden::Provenance::current("mxv fuzz", "mxv fuzz --seed 42", 42), {c});
//
// make_case computes the expected outputs with the reference (reference_outputs below), so a case
// is always self-consistent; `mxv golden check failure.h5` then replays it on every backend.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mxv/check/check.h"
#include "mxv/reference/float_format.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/recipe.h"
#include "mxv/reference/scale_layout.h"
#include "mxv/reference/swiglu.h"
#include "mxv/reference/weight_layout.h"

namespace mxv::golden {

/// What a case computes (the reference function in parentheses).
enum class Op : std::uint8_t {
  kEncode,          ///< wide values -> codes of one format, one ConvertMode (encode)
  kDecode,          ///< codes -> wide values (decode)
  kQuantize,        ///< activations [rows, cols] -> elements + scales (+ NVFP4 amax, s_dec) (quantize_activations)
  kDequantize,      ///< MoE weights -> [experts, n, k] wide values (dequantize_weights_to)
  kSwigluQuantize,  ///< gate/up [rows, 2I] -> SwiGLU fused with quantization (swiglu_quantize_fused)
};
std::string_view to_string(Op op);
/// Throws std::invalid_argument listing the valid names.
Op op_by_name(std::string_view name);

/// Everything that decides a case's outputs besides its input bytes. Which fields matter depends
/// on `op` (docs/golden-files.md, "Cases").
struct CaseParams {
  Op op = Op::kQuantize;
  // encode / decode: the code format ("e2m1", "e4m3", "ue4m3", "e8m0") and the conversion mode.
  std::string format = "e4m3";
  ConvertMode mode{};
  // quantize / dequantize / swiglu_quantize: the full recipe (every field is stored).
  Recipe recipe = Recipe::nvfp4_te();
  /// The wide type: input of encode / quantize / swiglu_quantize, output of decode / dequantize.
  WideType dtype = WideType::kFp32;
  std::int64_t experts = 1;  ///< dequantize: E
  std::int64_t rows = 1;     ///< quantize / swiglu: rows; dequantize: N; encode / decode: 1
  std::int64_t cols = 1;     ///< quantize: K; swiglu: I; dequantize: K; encode / decode: element count
  std::vector<std::int64_t> groups{};  ///< grouped (MoE) rows of quantize / swiglu; empty = one group
  ScaleLayout scale_layout = ScaleLayout::kLinear;
  WeightPacking packing = WeightPacking::kKPacked;
  GateUpLayout gate_up = GateUpLayout::halves();
  std::optional<float> tensor_amax{};  ///< NVFP4 quantize / swiglu: the calibrated tensor amax

  /// Throws std::invalid_argument naming the field when the combination cannot be computed.
  void validate() const;
  /// "quantize nvfp4_te fp32 M=7 K=400 linear", for listings.
  std::string summary() const;
};

/// The storage of one dataset: its element kind (what each stored byte group means, in the check
/// library's vocabulary), layout and HDF5 shape.
struct DatasetSpec {
  std::string name;
  check::CodeKind kind = check::CodeKind::kFp32;
  check::Layout layout = check::Layout::kRowMajor;
  std::vector<std::uint64_t> shape;  ///< in stored elements (bytes for codes, E2M1 pairs included)
  std::uint64_t bytes() const;
};

/// The inputs a case takes and the outputs it produces, in a fixed order. Validates `p`.
std::vector<DatasetSpec> input_specs(const CaseParams& p);
std::vector<DatasetSpec> output_specs(const CaseParams& p);

/// One stored tensor.
struct Dataset {
  DatasetSpec spec;
  std::vector<std::uint8_t> bytes;  ///< little-endian, row-major, exactly spec.bytes() long
};

struct GoldenCase {
  std::string name;    ///< unique within a file: "quantize/nvfp4_te/7x400-linear-fp32"
  std::string why;     ///< the edge it covers
  std::string oracle;  ///< what produced `expected` (the reference function)
  CaseParams params;
  std::vector<Dataset> inputs;    ///< in input_specs order
  std::vector<Dataset> expected;  ///< in output_specs order (a candidate's outputs when read from one)
  /// Candidates only: per output, the SHA-256 of the expectation when the template was written
  /// ("" when the file does not say), so a check can tell that the reference moved since.
  std::vector<std::string> template_sha256;
};

/// The reference model run on a case's inputs: the output bytes, and per output what the check
/// library needs to explain a mismatch (its OutputSpec and Context; the contexts view storage
/// owned by this object, so keep it alive while comparing).
class ReferenceRun {
 public:
  virtual ~ReferenceRun() = default;
  std::vector<Dataset> outputs;
  std::vector<check::OutputSpec> check_specs;
  std::vector<check::Context> contexts;
  std::string oracle;  ///< "mxv reference: quantize_activations (reference/src/quantize.cpp)"
};

/// Runs the reference on `inputs` (validated against input_specs: count, names, sizes; throws
/// std::invalid_argument naming the dataset).
std::unique_ptr<ReferenceRun> run_reference(const CaseParams& p, std::span<const Dataset> inputs);

/// A complete case: inputs checked, expected outputs from run_reference.
GoldenCase make_case(std::string name, const CaseParams& p, std::vector<Dataset> inputs, std::string why = "");

/// Wraps raw bytes as the input dataset `name` of a case (spec looked up in input_specs; throws when
/// the name or the size is wrong).
Dataset input_dataset(const CaseParams& p, std::string_view name, std::vector<std::uint8_t> bytes);

}  // namespace mxv::golden
