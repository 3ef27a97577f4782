// Recipe presets and their names. Each preset cites the library function it models; the rules it
// follows are docs/semantics.md sections 3-4 (the table of NVFP4 operation orders, the two MX
// rules).
#include "mxv/reference/recipe.h"

#include <array>
#include <sstream>
#include <stdexcept>

#include "mxv/io/enum_names.h"

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

// --- NVFP4 library presets, held to captured outputs (docs/conformance.md) --------------------

namespace {
Recipe named(Recipe r, std::string_view name) {
  r.name = name;
  return r;
}

// What ModelOpt and torchao share: the per-tensor decode scale s_dec = amax_tensor / 2688 in fp32
// (torch.amax, so a NaN reaches it; 0, Inf and NaN go through IEEE arithmetic unchanged), block
// scales stored as torch float8_e4m3fn bytes, and dequantization as elem * (fp32(sf) * s_dec).
Recipe nvfp4_library_base(Nvfp4Order order) {
  Recipe r;
  r.order = order;
  r.nan_in_amax = NanInAmax::kPropagate;
  r.scale_decode = ScaleDecode::kSignedE4m3;
  r.dequant_order = DequantOrder::kElemTimesScaleProduct;
  return r;
}

Recipe modelopt_043() {
  Recipe r = nvfp4_library_base(Nvfp4Order::kModelopt);
  r.zero_block = ZeroBlock::kScaleOne;
  r.element_encoder = ElementEncoder::kModelopt;
  r.e2m1_negative_zero_decodes_positive = true;
  return r;
}

// torchao's one-level NVFP4: no per-tensor scale (s_dec = 1), the rest of the release's recipe.
Recipe without_global_scale(Recipe r) {
  r.global_scale = GlobalScale::kNone;
  return r;
}

// torchao <= 0.17 on bf16 inputs: the dequantize's scale product taken in bf16.
Recipe with_bf16_scale_product(Recipe r) {
  r.dequant_order = DequantOrder::kElemTimesBf16ScaleProduct;
  return r;
}

Recipe torchao_016() {
  Recipe r = nvfp4_library_base(Nvfp4Order::kTorchao);
  r.zero_block = ZeroBlock::kScaleMinNormal;
  r.element_encoder = ElementEncoder::kTorchao;
  return r;
}
}  // namespace

// NVIDIA ModelOpt 0.43.0: modelopt/torch/quantization/qtensor/nvfp4_tensor.py,
// NVFP4QTensor.quantize(x, block_size=16) / .dequantize(dtype, scale=, double_scale=, block_sizes=).
// scale_2 = amax_tensor / (6 * 448); per-block scale amax_block / (6 * scale_2), blocks whose scale
// is 0 get 1.0 (0x38), cast by torch to float8_e4m3fn without a clamp; elements x / (fp32(sf) *
// scale_2) bucketed by _cast_fp4 (sign from x < 0: -0 -> 0x0). Dequantize: value table (0x8 -> +0)
// times (fp32(sf) * scale_2). K not a multiple of 16 is zero-padded to whole blocks.
Recipe Recipe::nvfp4_modelopt_043() { return named(modelopt_043(), "nvfp4_modelopt@0.43"); }

// NVIDIA ModelOpt 0.47.0 (the same function): as 0.43 but from 0.45 the per-block scale is clamped
// to [2^-9, 448] before the cast (_cast_per_block_scale_to_fp8), after the zero -> 1.0 rule. A
// block whose scale underflows E4M3 stores 0x01 instead of 0x00, and its elements no longer divide
// by zero (0.43 writes +-6 for every nonzero element of such a block).
Recipe Recipe::nvfp4_modelopt_047() {
  Recipe r = modelopt_043();
  r.scale_clamp = ScaleClamp::kE4m3Range;
  return named(r, "nvfp4_modelopt@0.47");
}

Recipe Recipe::nvfp4_modelopt() { return named(nvfp4_modelopt_047(), "nvfp4_modelopt"); }

// torchao 0.16.0: torchao/prototype/mx_formats/nvfp4_tensor.py, NVFP4Tensor.to_nvfp4(x, 16,
// per_tensor_scale=per_tensor_amax_to_scale(torch.max(torch.abs(x)))) -> nvfp4_quantize, and
// .dequantize(torch.float32). pts = amax_tensor / 2688; block scale (amax_block / 6) / pts clamped
// to [2^-6, 448] (so zero and tiny blocks store 0x08); elements x / (pts * fp32(sf)), clamped to
// +-6 and converted by custom_fp_utils (a NaN element's code depends on its bits). K must be a
// multiple of 16 (torchao asserts).
Recipe Recipe::nvfp4_torchao_016() { return named(torchao_016(), "nvfp4_torchao@0.16"); }

// torchao 0.17.0 (the same functions): elements x * ((1 / pts) / fp32(sf)) "to match the MSLK
// triton kernel" instead of x / (pts * fp32(sf)): ties flip against 0.16 (x = 4.6875 with scale
// byte 0x37: 0x6 vs 0x7), and 1 / pts overflows to Inf when the tensor max is below about 7.9e-36,
// so every nonzero element becomes +-6 and zeros become NaN codes.
Recipe Recipe::nvfp4_torchao_017() {
  Recipe r = torchao_016();
  r.order = Nvfp4Order::kTorchaoReciprocal;
  return named(r, "nvfp4_torchao@0.17");
}

// torchao 0.18.0: with a per-tensor scale, the numerics of 0.17 on fp32 inputs. What changed:
// without a per-tensor scale elements are x * (1 / sf) instead of x / sf
// (nvfp4_torchao_one_level@0.18), and dequantize keeps pts * sf in fp32 for bf16 inputs too, so
// bf16 inputs follow this preset (0.16 / 0.17: nvfp4_torchao_bf16@X).
Recipe Recipe::nvfp4_torchao_018() {
  Recipe r = torchao_016();
  r.order = Nvfp4Order::kTorchaoReciprocal;
  return named(r, "nvfp4_torchao@0.18");
}

Recipe Recipe::nvfp4_torchao() { return named(nvfp4_torchao_018(), "nvfp4_torchao"); }

// torchao 0.16.0 and 0.17.0, one-level NVFP4: NVFP4Tensor.to_nvfp4(x, 16) without a per-tensor
// scale (nvfp4_quantize's "single level scaling" branch), and .dequantize(torch.float32). Block
// scale amax_block / 6 clamped to [2^-6, 448] and cast to float8_e4m3fn; elements x / fp32(sf)
// (0.17 changed only the two-level branch); dequantize elem * fp32(sf). No global scale.
Recipe Recipe::nvfp4_torchao_one_level_017() {
  return named(without_global_scale(torchao_016()), "nvfp4_torchao_one_level@0.17");
}

// torchao 0.18.0, one-level NVFP4 (the same call): elements x * (1 / fp32(sf)) "to match the MSLK
// triton kernel" instead of x / fp32(sf), so ties flip against 0.17 as in the two-level mode.
Recipe Recipe::nvfp4_torchao_one_level_018() {
  return named(without_global_scale(nvfp4_torchao_018()), "nvfp4_torchao_one_level@0.18");
}

Recipe Recipe::nvfp4_torchao_one_level() {
  return named(nvfp4_torchao_one_level_018(), "nvfp4_torchao_one_level");
}

// torchao 0.16.0 / 0.17.0 given bf16 inputs, two-level (the call of nvfp4_torchao@0.16 / @0.17):
// quantize widens the input to fp32 first, so codes, block scales and the global scale are those
// of the fp32 preset on the widened values; dequantize (get_hp_scales) multiplies the fp32
// per-tensor scale by the scale bytes converted to the input's dtype, and torch computes that
// product in bf16: pts is rounded to bf16, the product of the two bf16 values is rounded to bf16
// (every NaN becomes torch's 0x7FC0). From 0.18 the product stays fp32, so bf16
// inputs follow nvfp4_torchao@0.18 (and one-level bf16 inputs the one-level presets: sf converts
// to bf16 exactly).
Recipe Recipe::nvfp4_torchao_bf16_016() {
  return named(with_bf16_scale_product(torchao_016()), "nvfp4_torchao_bf16@0.16");
}
Recipe Recipe::nvfp4_torchao_bf16_017() {
  return named(with_bf16_scale_product(nvfp4_torchao_017()), "nvfp4_torchao_bf16@0.17");
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

// The NVIDIA MX scale rule as cuBLAS documents it ("Computing scaling and conversion factors for
// FP8 with UE8M0 scales") and the NVFP4 paper's MXFP4 (arXiv:2509.25149 App. B): code =
// E8M0_RP_satfinite(amax * fl(1/6)), elements divided by the exact 2^(code-127). A specification
// preset: TransformerEngine's kernels differ in blocks with code 0x00 (mxfp4_te).
Recipe Recipe::mxfp4_nvidia() { return mx_base("mxfp4_nvidia", ElementFormat::kFp4E2M1, ScaleRule::kNvidiaRoundUp); }

// OCP MX v1.0 section 6.3 as implemented by microxcaling mx/mx_ops.py (_quantize_mx, shared
// exponent = floor(log2 amax) - emax). NaN anywhere in the block makes the scale NaN (0xFF). A
// specification preset; torchao's FLOOR mode differs in tiny, Inf and NaN blocks
// (mxfp4_torchao_floor).
Recipe Recipe::mxfp4_ocp() {
  Recipe r = mx_base("mxfp4_ocp", ElementFormat::kFp4E2M1, ScaleRule::kOcpFloor);
  r.nan_in_amax = NanInAmax::kPropagate;
  return r;
}

// The NVIDIA MX rule with E4M3 elements (fl(1/448) = 0x3B124925), as mxfp4_nvidia.
Recipe Recipe::mxfp8_nvidia() { return mx_base("mxfp8_nvidia", ElementFormat::kFp8E4M3, ScaleRule::kNvidiaRoundUp); }

// MXFP8 with the OCP floor rule (emax_elem = 8), as microxcaling.
Recipe Recipe::mxfp8_ocp() {
  Recipe r = mx_base("mxfp8_ocp", ElementFormat::kFp8E4M3, ScaleRule::kOcpFloor);
  r.nan_in_amax = NanInAmax::kPropagate;
  return r;
}

// TransformerEngine (source-modelled: TE's MX quantizers need a GPU, not run by mxv's captures):
// transformer_engine/common/util/ptx.cuh float_to_e8m0 (the nvidia round-up code; fmaxf amax, so
// a NaN element does not reach it) and exp2f_rcp, the element multiplier: 1.0 for code 0x00 (a
// block with amax <= elem_max * 2^-127 is not scaled up; its elements flush to 0), 0.0 for 0xFE,
// 2^(127 - code) otherwise. TE's MX dequantize decodes with exp2f (code << 23): 0x00 -> 0.0,
// 0xFF -> +Inf, the decode of E8m0Decode::kOrtQmoe.
Recipe Recipe::mxfp4_te() {
  Recipe r = mx_base("mxfp4_te", ElementFormat::kFp4E2M1, ScaleRule::kTe);
  r.e8m0_decode = E8m0Decode::kOrtQmoe;
  return r;
}
Recipe Recipe::mxfp8_te() {
  Recipe r = mx_base("mxfp8_te", ElementFormat::kFp8E4M3, ScaleRule::kTe);
  r.e8m0_decode = E8m0Decode::kOrtQmoe;
  return r;
}

// torchao 0.16.0-0.18.0 torchao/prototype/mx_formats/mx_tensor.py MXTensor.to_mx(x, elem_dtype,
// 32, ScaleCalculationMode.<mode>) (-> to_mx, _to_mx_rceil) and .dequantize(torch.float32)
// (to_dtype: elem * 2^(code-127), 0xFF -> NaN). The scale rules are ScaleRule::kTorchao*; the
// amax is torch.amax (NaN propagates); elements use torchao's encoders (ElementEncoder::kTorchao).
// FLOOR, CEIL and EVEN are the same in the three releases; RCEIL changed in 0.18 for NaN blocks.
Recipe Recipe::mx_torchao(ElementFormat element, ScaleRule rule) {
  const bool fp4 = element == ElementFormat::kFp4E2M1;
  std::string_view name;
  switch (rule) {
    case ScaleRule::kTorchaoFloor: name = fp4 ? "mxfp4_torchao_floor" : "mxfp8_torchao_floor"; break;
    case ScaleRule::kTorchaoCeil: name = fp4 ? "mxfp4_torchao_ceil" : "mxfp8_torchao_ceil"; break;
    case ScaleRule::kTorchaoEven: name = fp4 ? "mxfp4_torchao_even" : "mxfp8_torchao_even"; break;
    case ScaleRule::kTorchaoRceil: name = fp4 ? "mxfp4_torchao_rceil" : "mxfp8_torchao_rceil"; break;
    case ScaleRule::kTorchaoRceil017: name = fp4 ? "mxfp4_torchao_rceil@0.17" : "mxfp8_torchao_rceil@0.17"; break;
    default: throw std::invalid_argument("Recipe::mx_torchao: rule must be one of the torchao rules");
  }
  Recipe r = mx_base(name, element, rule);
  r.nan_in_amax = NanInAmax::kPropagate;
  r.element_encoder = ElementEncoder::kTorchao;
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
struct Preset {
  std::string_view name;
  Recipe (*make)();
};
template <ElementFormat E, ScaleRule R>
Recipe torchao_mx() {
  return Recipe::mx_torchao(E, R);
}
template <ElementFormat E, ScaleRule R, const char* kName>
Recipe torchao_mx_named() {
  return named(Recipe::mx_torchao(E, R), kName);
}
constexpr char kMxfp4Rceil018[] = "mxfp4_torchao_rceil@0.18";
constexpr char kMxfp8Rceil018[] = "mxfp8_torchao_rceil@0.18";
constexpr auto kFp4 = ElementFormat::kFp4E2M1;
constexpr auto kFp8 = ElementFormat::kFp8E4M3;
// The specification presets and one preset per library, its newest release modelled: what the
// golden set, the kernels' declared lists and the CLI's preset lists are built from.
constexpr std::array kPresets = {
    Preset{"nvfp4_te", &Recipe::nvfp4_te},
    Preset{"nvfp4_trtllm", &Recipe::nvfp4_trtllm},
    Preset{"nvfp4_cutlass_ref", &Recipe::nvfp4_cutlass_ref},
    Preset{"nvfp4_modelopt", &Recipe::nvfp4_modelopt},
    Preset{"nvfp4_torchao", &Recipe::nvfp4_torchao},
    Preset{"mxfp4_nvidia", &Recipe::mxfp4_nvidia},
    Preset{"mxfp4_ocp", &Recipe::mxfp4_ocp},
    Preset{"mxfp8_nvidia", &Recipe::mxfp8_nvidia},
    Preset{"mxfp8_ocp", &Recipe::mxfp8_ocp},
    Preset{"ort_qmoe", &Recipe::ort_qmoe},
};
// Release- and mode-specific library presets, each held to a captured output of that library
// (docs/conformance.md) or, for TransformerEngine, modelled from its source.
constexpr std::array kLibraryPresets = {
    Preset{"nvfp4_modelopt@0.43", &Recipe::nvfp4_modelopt_043},
    Preset{"nvfp4_modelopt@0.47", &Recipe::nvfp4_modelopt_047},
    Preset{"nvfp4_torchao@0.16", &Recipe::nvfp4_torchao_016},
    Preset{"nvfp4_torchao@0.17", &Recipe::nvfp4_torchao_017},
    Preset{"nvfp4_torchao@0.18", &Recipe::nvfp4_torchao_018},
    Preset{"nvfp4_torchao_one_level", &Recipe::nvfp4_torchao_one_level},
    Preset{"nvfp4_torchao_one_level@0.17", &Recipe::nvfp4_torchao_one_level_017},
    Preset{"nvfp4_torchao_one_level@0.18", &Recipe::nvfp4_torchao_one_level_018},
    Preset{"nvfp4_torchao_bf16@0.16", &Recipe::nvfp4_torchao_bf16_016},
    Preset{"nvfp4_torchao_bf16@0.17", &Recipe::nvfp4_torchao_bf16_017},
    Preset{"mxfp4_te", &Recipe::mxfp4_te},
    Preset{"mxfp4_torchao_floor", &torchao_mx<kFp4, ScaleRule::kTorchaoFloor>},
    Preset{"mxfp4_torchao_ceil", &torchao_mx<kFp4, ScaleRule::kTorchaoCeil>},
    Preset{"mxfp4_torchao_even", &torchao_mx<kFp4, ScaleRule::kTorchaoEven>},
    Preset{"mxfp4_torchao_rceil", &torchao_mx<kFp4, ScaleRule::kTorchaoRceil>},
    Preset{"mxfp4_torchao_rceil@0.17", &torchao_mx<kFp4, ScaleRule::kTorchaoRceil017>},
    Preset{"mxfp4_torchao_rceil@0.18", &torchao_mx_named<kFp4, ScaleRule::kTorchaoRceil, kMxfp4Rceil018>},
    Preset{"mxfp8_te", &Recipe::mxfp8_te},
    Preset{"mxfp8_torchao_floor", &torchao_mx<kFp8, ScaleRule::kTorchaoFloor>},
    Preset{"mxfp8_torchao_ceil", &torchao_mx<kFp8, ScaleRule::kTorchaoCeil>},
    Preset{"mxfp8_torchao_even", &torchao_mx<kFp8, ScaleRule::kTorchaoEven>},
    Preset{"mxfp8_torchao_rceil", &torchao_mx<kFp8, ScaleRule::kTorchaoRceil>},
    Preset{"mxfp8_torchao_rceil@0.17", &torchao_mx<kFp8, ScaleRule::kTorchaoRceil017>},
    Preset{"mxfp8_torchao_rceil@0.18", &torchao_mx_named<kFp8, ScaleRule::kTorchaoRceil, kMxfp8Rceil018>},
};
template <std::size_t N>
constexpr std::array<std::string_view, N> names_of(const std::array<Preset, N>& presets) {
  std::array<std::string_view, N> names{};
  for (std::size_t i = 0; i < N; ++i) names[i] = presets[i].name;
  return names;
}
constexpr auto kPresetNames = names_of(kPresets);
constexpr auto kLibraryPresetNames = names_of(kLibraryPresets);
}  // namespace

std::span<const std::string_view> Recipe::library_preset_names() { return kLibraryPresetNames; }

std::span<const std::string_view> Recipe::preset_names() { return kPresetNames; }

Recipe Recipe::by_name(std::string_view name) {
  for (const Preset& p : kPresets) {
    if (p.name == name) return p.make();
  }
  for (const Preset& p : kLibraryPresets) {
    if (p.name == name) return p.make();
  }
  std::string valid;
  for (const auto n : kPresetNames) {
    if (!valid.empty()) valid += ", ";
    valid += n;
  }
  for (const auto n : kLibraryPresetNames) {
    valid += ", ";
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
    const bool torchao_order = order == Nvfp4Order::kTorchao || order == Nvfp4Order::kTorchaoReciprocal;
    if (global_scale != GlobalScale::kTensorAmax && !torchao_order) {
      fail("NVFP4 needs global_scale tensor_amax (none, one-level scaling, is modelled for the torchao orders only)");
    }
    if (order != Nvfp4Order::kTrtllm && reciprocal != Reciprocal::kIeee) {
      fail("only the trtllm order uses rcp.approx; other orders need reciprocal ieee");
    }
  } else {
    if (scale_rule == ScaleRule::kNvfp4) fail("an E8M0 scale (MX) needs scale_rule ocp_floor or nvidia_round_up");
    if (global_scale != GlobalScale::kNone) fail("MX formats have no global scale (global_scale none)");
    if (zero_block != ZeroBlock::kScaleCodeZero) fail("MX formats store code 0x00 for a zero block (zero_block code_zero)");
  }
  if (e8m0_decode == E8m0Decode::kOrtQmoe && !is_mx()) fail("e8m0_decode ort_qmoe needs an E8M0 scale");
  if (is_mx() && scale_clamp != ScaleClamp::kNone) fail("scale_clamp applies to NVFP4 block scales only (use none)");
  if (is_mx() && scale_decode != ScaleDecode::kUnsigned) fail("scale_decode signed_e4m3 needs an NVFP4 (UE4M3) scale");
  if (element_encoder == ElementEncoder::kModelopt && element != ElementFormat::kFp4E2M1) {
    fail("element_encoder modelopt needs E2M1 elements");
  }
  if (!(limit > 0.0f)) fail("limit must be > 0");
}

const FloatFormat& Recipe::element_format() const { return element == ElementFormat::kFp4E2M1 ? kE2M1 : kE4M3; }
const FloatFormat& Recipe::scale_format() const { return scale == ScaleFormat::kPow2E8M0 ? kE8M0 : kUE4M3; }
float Recipe::element_max() const { return element == ElementFormat::kFp4E2M1 ? 6.0f : 448.0f; }
int Recipe::element_bits() const { return element == ElementFormat::kFp4E2M1 ? 4 : 8; }

std::string_view to_string(ElementFormat v) { return v == ElementFormat::kFp4E2M1 ? "e2m1" : "e4m3"; }
std::string_view to_string(ScaleFormat v) { return v == ScaleFormat::kPow2E8M0 ? "e8m0" : "ue4m3"; }
std::string_view to_string(ScaleRule v) {
  return io::enum_name(v,
                       {"ocp_floor", "nvidia_round_up", "nvfp4", "te", "torchao_floor", "torchao_ceil",
                        "torchao_even", "torchao_rceil", "torchao_rceil_0.17"});
}
std::string_view to_string(GlobalScale v) { return v == GlobalScale::kNone ? "none" : "tensor_amax"; }
std::string_view to_string(Nvfp4Order v) {
  return io::enum_name(v, {"te", "trtllm", "cutlass_ref", "modelopt", "torchao", "torchao_reciprocal"});
}
std::string_view to_string(Reciprocal v) { return v == Reciprocal::kIeee ? "ieee" : "rcp_approx_table"; }
std::string_view to_string(ZeroBlock v) {
  return io::enum_name(v, {"code_zero", "scale_one", "scale_min_normal"});
}
std::string_view to_string(NanInAmax v) { return v == NanInAmax::kIgnore ? "ignore" : "propagate"; }
std::string_view to_string(TensorAmaxPolicy v) { return v == TensorAmaxPolicy::kTeClamp ? "te_clamp" : "reject"; }
std::string_view to_string(PartialBlock) { return "zero_padded"; }
std::string_view to_string(E8m0Decode v) { return v == E8m0Decode::kSpec ? "spec" : "ort_qmoe"; }
std::string_view to_string(Intermediate v) { return v == Intermediate::kFp32 ? "fp32" : "bf16"; }
std::string_view to_string(ExpKind v) { return v == ExpKind::kPortable ? "portable" : "ex2_approx"; }
std::string_view to_string(ScaleClamp v) { return v == ScaleClamp::kNone ? "none" : "e4m3_range"; }
std::string_view to_string(ElementEncoder v) {
  return io::enum_name(v, {"dialect", "modelopt", "torchao"});
}
std::string_view to_string(DequantOrder v) {
  return io::enum_name(v, {"elem_scale_then_global", "elem_times_scale_product",
                           "elem_times_bf16_scale_product"});
}
std::string_view to_string(ScaleDecode v) { return v == ScaleDecode::kUnsigned ? "unsigned" : "signed_e4m3"; }

std::string to_string(const Recipe& r) {
  std::ostringstream os;
  os << r.name << ": " << to_string(r.element) << "/" << to_string(r.scale) << " block=" << r.block_size
     << " scale_rule=" << to_string(r.scale_rule) << " global=" << to_string(r.global_scale);
  if (r.is_nvfp4()) os << " order=" << to_string(r.order);
  os << " reciprocal=" << to_string(r.reciprocal) << " zero_block=" << to_string(r.zero_block)
     << " nan_in_amax=" << to_string(r.nan_in_amax) << " tensor_amax=" << to_string(r.tensor_amax)
     << " partial_block=" << to_string(r.partial_block) << " e8m0_decode=" << to_string(r.e8m0_decode)
     << " flush_e8m0_zero=" << (r.flush_e8m0_zero ? "on" : "off") << " dialect=" << to_string(r.dialect)
     << " scale_clamp=" << to_string(r.scale_clamp) << " element_encoder=" << to_string(r.element_encoder)
     << " dequant_order=" << to_string(r.dequant_order) << " scale_decode=" << to_string(r.scale_decode)
     << " e2m1_neg_zero=" << (r.e2m1_negative_zero_decodes_positive ? "+0" : "-0")
     << " intermediate=" << to_string(r.intermediate) << " activation=" << to_string(r.activation);
  if (r.activation == Activation::kSwigluClamped) os << "(alpha=" << r.alpha << ",limit=" << r.limit << ")";
  os << " exp=" << to_string(r.exp);
  return os.str();
}

}  // namespace mxv
