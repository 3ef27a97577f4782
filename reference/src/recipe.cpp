// Recipe presets and their names. Each preset cites the library function it models; the rules it
// follows are docs/semantics.md sections 3-4 (the table of NVFP4 operation orders, the two MX
// rules).
#include "mxv/reference/recipe.h"

#include <array>
#include <sstream>
#include <stdexcept>

namespace mxv {

// --- NVFP4 ------------------------------------------------------------------------------------

// TransformerEngine: transformer_engine/common/cast/nvfp4/core_nvfp4.cuh
// (compute_global_encode_scaling_factor_FP4, compute_decoding_scaling_factor) and the quantize
// kernels in cast/nvfp4/quantize_transpose_nvfp4.cuh. All fp32, no fast math; block amax with
// fmaxf (a NaN element does not reach the amax).
Recipe Recipe::nvfp4_te() { return Recipe{}; }

// TensorRT-LLM: cpp/tensorrt_llm/kernels/quantization.cuh (cvt_warp_fp16_to_fp4, with
// reciprocal_approximate_ftz = rcp.approx.ftz.f32). The global scale SFScaleVal = 448*6/amax is
// computed by the caller (IEEE division); the kernel's reciprocals are rcp.approx.
Recipe Recipe::nvfp4_trtllm() {
  Recipe r;
  r.name = "nvfp4_trtllm";
  r.order = Nvfp4Order::kTrtllm;
  r.reciprocal = Reciprocal::kRcpApproxTable;
  return r;
}

// CUTLASS host reference: tools/util/include/cutlass/util/reference/host/gett.hpp
// (compute_1d_scaling_factor_and_quantized_output): same stored scale as TE, but the element
// multiplier is norm_constant * (1 / fp32(sf)) instead of 1 / (fp32(sf) * S_dec).
Recipe Recipe::nvfp4_cutlass_ref() {
  Recipe r;
  r.name = "nvfp4_cutlass_ref";
  r.order = Nvfp4Order::kCutlassRef;
  return r;
}

// NVIDIA ModelOpt: modelopt/torch/quantization/qtensor/nvfp4_tensor.py
// (NVFP4QTensor.get_weights_scaling_factor_2 = amax/(6*448), get_weights_scaling_factor:
// per-block amax / (6 * scale_2), zero block scales replaced by 1.0; quantize divides by
// fp32(scale) * scale_2). torch.amax propagates NaN.
Recipe Recipe::nvfp4_modelopt() {
  Recipe r;
  r.name = "nvfp4_modelopt";
  r.order = Nvfp4Order::kModelopt;
  r.zero_block = ZeroBlock::kScaleOne;
  r.nan_in_amax = NanInAmax::kPropagate;
  return r;
}

// torchao: torchao/prototype/mx_formats/nvfp4_tensor.py (nvfp4_quantize with a per-tensor
// scale from per_tensor_amax_to_scale = amax / (448 * 6)): block scale (amax/6)/per_tensor_scale
// clamped to [finfo(e4m3).tiny = 2^-6, 448], elements divided by per_tensor_scale * fp32(sf).
Recipe Recipe::nvfp4_torchao() {
  Recipe r;
  r.name = "nvfp4_torchao";
  r.order = Nvfp4Order::kTorchao;
  r.zero_block = ZeroBlock::kScaleMinNormal;
  r.nan_in_amax = NanInAmax::kPropagate;
  return r;
}

// --- MX ---------------------------------------------------------------------------------------

namespace {
Recipe mx_base(std::string_view name, ElementFormat element, ScaleRule rule) {
  Recipe r;
  r.name = name;
  r.element = element;
  r.scale = ScaleFormat::kPow2E8M0;
  r.block_size = 32;
  r.scale_rule = rule;
  r.global_scale = GlobalScale::kNone;
  return r;
}
}  // namespace

// NVIDIA MX rule (TransformerEngine cast/mxfp8/ and the NVFP4 paper's MXFP4,
// arXiv:2509.25149 App. B): code = E8M0_RP_satfinite(amax * fl(1/6)); TE's fmaxf amax.
Recipe Recipe::mxfp4_nvidia() { return mx_base("mxfp4_nvidia", ElementFormat::kFp4E2M1, ScaleRule::kNvidiaRoundUp); }

// OCP MX v1.0 section 6.3 as implemented by microxcaling mx/mx_ops.py (_quantize_mx, shared
// exponent = floor(log2 amax) - emax) and torchao mx_tensor.py to_mx(ScaleCalculationMode.FLOOR).
// NaN anywhere in the block makes the scale NaN (torchao: 0xFF).
Recipe Recipe::mxfp4_ocp() {
  Recipe r = mx_base("mxfp4_ocp", ElementFormat::kFp4E2M1, ScaleRule::kOcpFloor);
  r.nan_in_amax = NanInAmax::kPropagate;
  return r;
}

// MXFP8 (E4M3 elements): TransformerEngine transformer_engine/common/cast/mxfp8/
// (quantize_mxfp8.cuh, compute_e8m0_scale with fl(1/448) and round-up).
Recipe Recipe::mxfp8_nvidia() { return mx_base("mxfp8_nvidia", ElementFormat::kFp8E4M3, ScaleRule::kNvidiaRoundUp); }

// MXFP8 with the OCP floor rule (emax_elem = 8), as microxcaling / torchao FLOOR.
Recipe Recipe::mxfp8_ocp() {
  Recipe r = mx_base("mxfp8_ocp", ElementFormat::kFp8E4M3, ScaleRule::kOcpFloor);
  r.nan_in_amax = NanInAmax::kPropagate;
  return r;
}

// ONNX Runtime QMoE (onnxruntime/contrib_ops/cuda/moe/, the MXFP4 weight dequantization used by
// gpt-oss): MXFP4 weights with E8M0 scales decoded as 0x00 -> 0.0 and 0xFF -> +Inf, element *
// scale in fp32, SwiGLU clamped with alpha 1.702 and limit 7 on interleaved(1) gate/up.
Recipe Recipe::ort_qmoe() {
  Recipe r = mx_base("ort_qmoe", ElementFormat::kFp4E2M1, ScaleRule::kOcpFloor);
  r.e8m0_decode = E8m0Decode::kOrtQmoe;
  r.activation = Activation::kSwigluClamped;
  return r;
}

// --- names ------------------------------------------------------------------------------------

namespace {
constexpr std::array<std::string_view, 10> kPresetNames = {
    "nvfp4_te",     "nvfp4_trtllm", "nvfp4_cutlass_ref", "nvfp4_modelopt", "nvfp4_torchao",
    "mxfp4_nvidia", "mxfp4_ocp",    "mxfp8_nvidia",      "mxfp8_ocp",      "ort_qmoe"};
using PresetFn = Recipe (*)();
constexpr std::array<PresetFn, 10> kPresetFns = {
    &Recipe::nvfp4_te,     &Recipe::nvfp4_trtllm, &Recipe::nvfp4_cutlass_ref, &Recipe::nvfp4_modelopt,
    &Recipe::nvfp4_torchao, &Recipe::mxfp4_nvidia, &Recipe::mxfp4_ocp,       &Recipe::mxfp8_nvidia,
    &Recipe::mxfp8_ocp,    &Recipe::ort_qmoe};
}  // namespace

std::span<const std::string_view> Recipe::preset_names() { return kPresetNames; }

Recipe Recipe::by_name(std::string_view name) {
  for (std::size_t i = 0; i < kPresetNames.size(); ++i) {
    if (kPresetNames[i] == name) return kPresetFns[i]();
  }
  std::string valid;
  for (const auto n : kPresetNames) {
    if (!valid.empty()) valid += ", ";
    valid += n;
  }
  throw std::invalid_argument("recipe: unknown preset '" + std::string(name) + "'; valid presets: " + valid);
}

void Recipe::validate() const {
  auto fail = [this](const std::string& what) {
    throw std::invalid_argument("recipe '" + std::string(name) + "': " + what);
  };
  if (block_size <= 0 || block_size > 4096 || block_size % 2 != 0) {
    fail("block_size must be even and in [2, 4096], got " + std::to_string(block_size));
  }
  if (is_nvfp4()) {
    if (element != ElementFormat::kFp4E2M1) fail("a UE4M3 scale (NVFP4) needs E2M1 elements");
    if (scale_rule != ScaleRule::kNvfp4) fail("a UE4M3 scale (NVFP4) needs scale_rule nvfp4");
    if (global_scale != GlobalScale::kTensorAmax) fail("NVFP4 needs global_scale tensor_amax");
    if (order != Nvfp4Order::kTrtllm && reciprocal != Reciprocal::kIeee) {
      fail("only the trtllm order uses rcp.approx; other orders need reciprocal ieee");
    }
  } else {
    if (scale_rule == ScaleRule::kNvfp4) fail("an E8M0 scale (MX) needs scale_rule ocp_floor or nvidia_round_up");
    if (global_scale != GlobalScale::kNone) fail("MX formats have no global scale (global_scale none)");
    if (zero_block != ZeroBlock::kScaleCodeZero) fail("MX formats store code 0x00 for a zero block (zero_block code_zero)");
  }
  if (e8m0_decode == E8m0Decode::kOrtQmoe && !is_mx()) fail("e8m0_decode ort_qmoe needs an E8M0 scale");
  if (!(limit > 0.0f)) fail("limit must be > 0");
}

const FloatFormat& Recipe::element_format() const { return element == ElementFormat::kFp4E2M1 ? kE2M1 : kE4M3; }
const FloatFormat& Recipe::scale_format() const { return scale == ScaleFormat::kPow2E8M0 ? kE8M0 : kUE4M3; }
float Recipe::element_max() const { return element == ElementFormat::kFp4E2M1 ? 6.0f : 448.0f; }
int Recipe::element_bits() const { return element == ElementFormat::kFp4E2M1 ? 4 : 8; }

std::string_view to_string(ElementFormat v) { return v == ElementFormat::kFp4E2M1 ? "e2m1" : "e4m3"; }
std::string_view to_string(ScaleFormat v) { return v == ScaleFormat::kPow2E8M0 ? "e8m0" : "ue4m3"; }
std::string_view to_string(ScaleRule v) {
  switch (v) {
    case ScaleRule::kOcpFloor: return "ocp_floor";
    case ScaleRule::kNvidiaRoundUp: return "nvidia_round_up";
    case ScaleRule::kNvfp4: return "nvfp4";
  }
  return "?";
}
std::string_view to_string(GlobalScale v) { return v == GlobalScale::kNone ? "none" : "tensor_amax"; }
std::string_view to_string(Nvfp4Order v) {
  switch (v) {
    case Nvfp4Order::kTe: return "te";
    case Nvfp4Order::kTrtllm: return "trtllm";
    case Nvfp4Order::kCutlassRef: return "cutlass_ref";
    case Nvfp4Order::kModelopt: return "modelopt";
    case Nvfp4Order::kTorchao: return "torchao";
  }
  return "?";
}
std::string_view to_string(Reciprocal v) { return v == Reciprocal::kIeee ? "ieee" : "rcp_approx_table"; }
std::string_view to_string(ZeroBlock v) {
  switch (v) {
    case ZeroBlock::kScaleCodeZero: return "code_zero";
    case ZeroBlock::kScaleOne: return "scale_one";
    case ZeroBlock::kScaleMinNormal: return "scale_min_normal";
  }
  return "?";
}
std::string_view to_string(NanInAmax v) { return v == NanInAmax::kIgnore ? "ignore" : "propagate"; }
std::string_view to_string(TensorAmaxPolicy v) { return v == TensorAmaxPolicy::kTeClamp ? "te_clamp" : "reject"; }
std::string_view to_string(PartialBlock) { return "zero_padded"; }
std::string_view to_string(E8m0Decode v) { return v == E8m0Decode::kSpec ? "spec" : "ort_qmoe"; }
std::string_view to_string(Intermediate v) { return v == Intermediate::kFp32 ? "fp32" : "bf16"; }
std::string_view to_string(Activation v) {
  switch (v) {
    case Activation::kNone: return "none";
    case Activation::kSilu: return "silu";
    case Activation::kSwigluClamped: return "swiglu_clamped";
  }
  return "?";
}
std::string_view to_string(ExpKind v) { return v == ExpKind::kPortable ? "portable" : "ex2_approx"; }

std::string to_string(const Recipe& r) {
  std::ostringstream os;
  os << r.name << ": " << to_string(r.element) << "/" << to_string(r.scale) << " block=" << r.block_size
     << " scale_rule=" << to_string(r.scale_rule) << " global=" << to_string(r.global_scale);
  if (r.is_nvfp4()) os << " order=" << to_string(r.order);
  os << " reciprocal=" << to_string(r.reciprocal) << " zero_block=" << to_string(r.zero_block)
     << " nan_in_amax=" << to_string(r.nan_in_amax) << " tensor_amax=" << to_string(r.tensor_amax)
     << " partial_block=" << to_string(r.partial_block) << " e8m0_decode=" << to_string(r.e8m0_decode)
     << " flush_e8m0_zero=" << (r.flush_e8m0_zero ? "on" : "off") << " dialect=" << to_string(r.dialect)
     << " intermediate=" << to_string(r.intermediate) << " activation=" << to_string(r.activation);
  if (r.activation == Activation::kSwigluClamped) os << "(alpha=" << r.alpha << ",limit=" << r.limit << ")";
  os << " exp=" << to_string(r.exp);
  return os.str();
}

}  // namespace mxv
