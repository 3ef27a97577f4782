// Saving a failing case (failure_record.h; docs/fuzzing.md "Saved failures").
#include "mxv/fuzz/failure_record.h"

#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "mxv/golden/golden_file.h"
#include "mxv/io/output_files.h"
#include "mxv/reference/swiglu.h"

namespace mxv::fuzz {

namespace {

std::vector<std::uint8_t> bytes_of_floats(const std::vector<float>& v) {
  std::vector<std::uint8_t> b(v.size() * sizeof(float));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

/// NVFP4 SwiGLU needs a tensor amax; a call without a calibrated one uses the activation's own,
/// as golden::run_case does.
float activation_amax(const Recipe& r, const golden::VerifyCase& v) {
  const auto rows = static_cast<std::size_t>(v.rows), inter = static_cast<std::size_t>(v.cols);
  const std::vector<float> wide = widen_to_fp32(v.dtype, narrow_from_fp32(v.dtype, v.inputs->values));
  const std::vector<float> act = mxv::swiglu(GateUpView::from_fp32(wide, rows, inter),
                                             GateUpLayout::parse(v.gate_up_layout), SwigluActivation::from_recipe(r));
  float amax = 0.0f;
  for (const float x : act) {
    if (!std::isnan(x)) amax = std::fmax(amax, std::fabs(x));
  }
  return amax;
}

}  // namespace

golden::GoldenCase golden_case_of(const golden::VerifyCase& v, std::string name) {
  if (!v.inputs) {
    throw std::invalid_argument("the " + std::string(golden::to_string(v.kernel)) +
                                " call has no explicit inputs (they are drawn from its seed)");
  }
  golden::CaseParams p;
  std::vector<golden::Dataset> in;
  p.recipe = Recipe::by_name(v.preset);
  p.dtype = v.dtype;
  p.experts = v.experts;
  p.rows = v.rows;
  p.cols = v.cols;
  p.groups = v.groups;
  p.scale_layout = v.swizzled ? ScaleLayout::kSwizzled128x4 : ScaleLayout::kLinear;
  switch (v.kernel) {
    case golden::VerifyKernel::kQuantize:
      p.op = golden::Op::kQuantize;
      if (p.recipe.is_nvfp4()) p.tensor_amax = v.inputs->tensor_amax;
      in.push_back(golden::input_dataset(p, "x", narrow_from_fp32(v.dtype, v.inputs->values)));
      break;
    case golden::VerifyKernel::kSwigluQuantize:
      p.op = golden::Op::kSwigluQuantize;
      p.recipe.activation = v.activation;
      p.recipe.intermediate = v.intermediate;
      p.gate_up = GateUpLayout::parse(v.gate_up_layout);
      if (p.recipe.is_nvfp4()) p.tensor_amax = v.inputs->tensor_amax ? *v.inputs->tensor_amax : activation_amax(p.recipe, v);
      in.push_back(golden::input_dataset(p, "gate_up", narrow_from_fp32(v.dtype, v.inputs->values)));
      break;
    case golden::VerifyKernel::kDequantize:
      p.op = golden::Op::kDequantize;
      p.packing = v.n_packed ? WeightPacking::kNPacked : WeightPacking::kKPacked;
      in.push_back(golden::input_dataset(p, "packed", v.inputs->weights.packed));
      in.push_back(golden::input_dataset(p, "scales", v.inputs->weights.scales));
      if (p.recipe.is_nvfp4()) in.push_back(golden::input_dataset(p, "s_dec", bytes_of_floats(v.inputs->weights.s_dec)));
      break;
    case golden::VerifyKernel::kConvert:
      throw std::invalid_argument("convert calls are not stored as golden cases");
  }
  return golden::make_case(std::move(name), p, std::move(in), "mxv fuzz counterexample: " + v.shape());
}

std::string save_failure(const std::string& path, const FailureRecord& record, const std::vector<golden::VerifyCase>& calls) {
  std::vector<golden::GoldenCase> cases;
  std::string why_text;
  try {
    for (std::size_t i = 0; i < calls.size(); ++i) {
      cases.push_back(golden_case_of(calls[i], "fuzz-" + record.property + "-" + std::to_string(i)));
    }
  } catch (const std::invalid_argument& e) {
    cases.clear();
    why_text = e.what();
  }
  if (!cases.empty()) {
    golden::write_golden_file(path, golden::Provenance::current("mxv fuzz", record.replay, record.seed), cases);
    return "golden";
  }
  std::ostringstream f;
  f << "mxv-fuzz-failure 1\n"
    << "property: " << record.property << "\n"
    << "backend: " << record.backend << "\n"
    << "seed: " << record.seed << "\n"
    << "cases: " << record.cases << "\n"
    << "replay: " << record.replay << "\n"
    << "not a golden file: " << (why_text.empty() ? "no kernel call was recorded" : why_text) << "\n"
    << "counterexample:\n"
    << record.counterexample << "report:\n"
    << record.report << "\n";
  const std::string text = f.str();
  io::OutputBatch file;
  file.output("--save-failure", path);
  file.set("--save-failure", std::vector<std::uint8_t>(text.begin(), text.end()));
  file.commit();
  return "text";
}

}  // namespace mxv::fuzz
