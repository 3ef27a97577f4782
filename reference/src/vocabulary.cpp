// The names of the shared vocabulary (vocabulary.h): what the CLI, the golden files and the
// reports print, and what they parse back.
#include "mxv/reference/vocabulary.h"

#include <stdexcept>
#include <string>

#include "mxv/io/enum_names.h"

namespace mxv {

WideType wide_type_by_name(std::string_view name) {
  if (name == "fp32") return WideType::kFp32;
  if (name == "bf16") return WideType::kBf16;
  if (name == "fp16") return WideType::kFp16;
  throw std::invalid_argument("dtype: unknown name '" + std::string(name) + "'; valid: fp32, bf16, fp16");
}

std::string_view to_string(WideType type) {
  return io::enum_name(type, {"fp32", "bf16", "fp16"});
}

std::size_t bytes_of(WideType type) { return type == WideType::kFp32 ? 4 : 2; }

ScaleLayout scale_layout_by_name(std::string_view name) {
  if (name == "linear") return ScaleLayout::kLinear;
  if (name == "swizzled" || name == "swizzled128x4") return ScaleLayout::kSwizzled128x4;
  throw std::invalid_argument("scale layout: unknown name '" + std::string(name) +
                              "'; valid: linear, swizzled (= swizzled128x4)");
}

std::string_view to_string(ScaleLayout layout) {
  return layout == ScaleLayout::kLinear ? "linear" : "swizzled128x4";
}

WeightPacking weight_packing_by_name(std::string_view name) {
  if (name == "k" || name == "k-packed") return WeightPacking::kKPacked;
  if (name == "n" || name == "n-packed") return WeightPacking::kNPacked;
  throw std::invalid_argument("packing: unknown name '" + std::string(name) +
                              "'; valid: k-packed ([E, N, K/2]), n-packed ([E, K, N/2], ONNX Runtime QMoE)");
}

std::string_view to_string(WeightPacking packing) {
  return packing == WeightPacking::kKPacked ? "k-packed" : "n-packed";
}

std::string_view to_string(Activation activation) {
  return io::enum_name(activation, {"none", "silu", "swiglu_clamped"});
}

}  // namespace mxv
