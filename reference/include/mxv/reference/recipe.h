// A Recipe names every choice a block-scaled quantizer makes (docs/design.md section 3.2, "Recipes
// are explicit"; docs/semantics.md sections 3-7): element and scale format, block size, the scale
// rule, the NVFP4 operation order, the reciprocal, the policies for zeros / NaN / partial blocks,
// the E8M0 decode quirks, and the SwiGLU fields (activation, exp, intermediate precision).
//
// A Recipe is a plain value (enums, numbers, one string_view naming the preset) so that device/
// may copy it into kernel arguments; all computation lives in the reference sources, never here.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mxv/reference/float_format.h"
#include "mxv/reference/vocabulary.h"

namespace mxv {

/// The element format of a block: E2M1 (MXFP4, NVFP4) or E4M3 (MXFP8).
enum class ElementFormat : std::uint8_t { kFp4E2M1, kFp8E4M3 };

/// The block-scale format: E8M0 (MX) or UE4M3 (NVFP4).
enum class ScaleFormat : std::uint8_t { kPow2E8M0, kFp8UE4M3 };

/// How an MX block's E8M0 scale and element multiplier are chosen (docs/semantics.md section 4.1;
/// docs/conformance.md for the library rules, each checked against that library's output).
enum class ScaleRule : std::uint8_t {
  kOcpFloor,        // X = floor(log2 amax) - emax_elem (OCP MX v1.0 section 6.3); may saturate elements
  kNvidiaRoundUp,   // code = E8M0_RP_satfinite(fp32(amax * fl(1/elem_max))); never saturates elements
  kNvfp4,           // not an MX rule: the UE4M3 scale follows the NVFP4 operation order
  kTe,              // TransformerEngine: the nvidia code, element multiplier exp2f_rcp(code):
                    //   code 0x00 -> 1.0 (not 2^127), 0xFE -> 0.0, otherwise 2^(127 - code)
  kTorchaoFloor,    // torchao FLOOR: exponent field of amax - emax_elem, clamped to [-127, 128]
                    //   (Inf amax -> 0xFD / 0xF7), NaN -> 0xFF; divides by max(2^(code-127), 2^-126)
                    //   (code 0xFF: the bits 0x7F800000, +Inf)
  kTorchaoCeil,     // torchao CEIL: as FLOOR with the exponent plus 1 when the mantissa is nonzero
  kTorchaoEven,     // torchao EVEN: as FLOOR after rounding amax's mantissa at the element's
                    //   mantissa width (1 << (22 - mbits) added, mantissa masked off)
  kTorchaoRceil,    // torchao RCEIL (0.18): code = ceil(log2f(amax / elem_max)) + 127 clamped to
                    //   [0, 254], NaN -> 0xFF, Inf -> 0xFE; multiplier 1.0 for code 0, NaN for
                    //   0xFF, else 2^(127 - code); elements clamped to +-elem_max
  kTorchaoRceil017, // torchao RCEIL (0.16, 0.17): as kTorchaoRceil but code 0xFF multiplies by 2^-128
};

/// The per-tensor (global) scale of NVFP4 (docs/semantics.md section 4.2).
enum class GlobalScale : std::uint8_t {
  kNone,            // no per-tensor scale (S_enc = S_dec = 1): MX formats, and torchao's one-level
                    //   NVFP4 (to_nvfp4 without per_tensor_scale; the torchao orders only)
  kTensorAmax,      // S_enc = 2688 / amax_tensor (2688 = 448 * 6), S_dec = 1 / S_enc
};

/// The NVFP4 operation order: which library's arithmetic sequence is reproduced, bit for bit.
/// The table in docs/semantics.md section 4.3 lists each order's block-scale and element-multiplier
/// expressions; block_scale.cpp implements them one by one.
/// kTorchaoReciprocal is torchao from 0.17: x * ((1 / s_dec) / sf) instead of x / (s_dec * sf).
enum class Nvfp4Order : std::uint8_t { kTe, kTrtllm, kCutlassRef, kModelopt, kTorchao, kTorchaoReciprocal };

/// A clamp of the NVFP4 block scale applied after the zero-block policy, before conversion.
enum class ScaleClamp : std::uint8_t {
  kNone,
  kE4m3Range,       // clamp to [2^-9, 448], the E4M3 range without zero (ModelOpt from 0.45)
};

/// How an element's prescaled fp32 value becomes its code.
enum class ElementEncoder : std::uint8_t {
  kDialect,         // encode() in the recipe's dialect, nearest-even, satfinite
  kModelopt,        // ModelOpt _cast_fp4: bucket search over the E2M1 midpoints (nearest-even for
                    //   finite values); the sign is x < 0, so -0 -> 0x0 and NaN -> 0x7
  kTorchao,         // torchao: clamp to +-elem_max, then E2M1 by custom_fp_utils
                    //   _f32_to_floatx_unpacked (a NaN becomes a code computed from its bits) and
                    //   E4M3 by torch's .to(float8_e4m3fn) (NaN keeps its sign: 0x7F / 0xFF)
};

/// Multiplication order of NVFP4 dequantization (MX is elem * scale either way).
enum class DequantOrder : std::uint8_t {
  kElemScaleThenGlobal,    // (elem * sf) * s_dec: elem * sf is exact, one rounding
  kElemTimesScaleProduct,  // elem * (sf * s_dec): ModelOpt, torchao (sf * s_dec rounded first)
  kElemTimesBf16ScaleProduct,  // elem * bf16(bf16(s_dec) * sf): torchao <= 0.17 for bf16 inputs
                               //   (torch takes the scale product in bf16; NaN -> 0x7FC0)
};

/// What an NVFP4 scale byte is: the stored type of the block scale.
enum class ScaleDecode : std::uint8_t {
  kUnsigned,        // UE4M3 (encoded in the recipe's dialect); a byte with bit 7 set is rejected
  kSignedE4m3,      // torch float8_e4m3fn (ModelOpt, torchao): encoded by torch's .to() (a NaN
                    //   keeps its sign, 0x7F / 0xFF), decoded as E4M3 (0xFF -> NaN, 0x80 -> -0)
};

/// How reciprocals in the operation order are computed.
enum class Reciprocal : std::uint8_t {
  kIeee,            // correctly rounded 1/x (fp32 division)
  kRcpApproxTable,  // the GPU's rcp.approx.ftz.f32, emulated from a captured table (rcp_approx.h)
};

/// What an all-zero block (amax_block == 0) stores and multiplies by.
enum class ZeroBlock : std::uint8_t {
  kScaleCodeZero,   // scale code 0x00 (UE4M3 0 / E8M0 2^-127); elements stay +-0 (TE, CUTLASS, TRT-LLM)
  kScaleOne,        // block scale forced to 1.0 (UE4M3 0x38) before conversion (ModelOpt)
  kScaleMinNormal,  // scale clamped up to the smallest E4M3 normal 2^-6 (torchao clamp)
};

/// A NaN among a block's elements: does it reach the block amax?
enum class NanInAmax : std::uint8_t {
  kIgnore,          // fmaxf-style max skips NaN (TE, CUTLASS): the NaN element alone converts
  kPropagate,       // amax becomes NaN, so the block's scale is the NaN code (torch.amax, torchao)
};

/// Tensor amax of 0, Inf or NaN (NVFP4 global scale).
enum class TensorAmaxPolicy : std::uint8_t {
  kTeClamp,         // S_enc = fminf(2688/amax, FLT_MAX); amax == 0 or S_enc == 0 -> S_enc = 1.
                    // NaN amax: fminf drops the NaN, so S_enc = FLT_MAX (TE's exact behaviour)
  kReject,          // throw std::invalid_argument naming the bad amax
};

/// K not a multiple of the block size. Only one policy exists and it is named so that it is
/// visible: the missing elements of the last block count as +0 for the amax, are never stored
/// as elements (the packed row has ceil(K/2) bytes, a trailing half byte is 0), and the scale
/// row has ceil(K/block) entries.
enum class PartialBlock : std::uint8_t { kZeroPadded };

/// How E8M0 scale codes decode (docs/semantics.md section 3, the row "decode E8M0 0x00 / 0xFF").
enum class E8m0Decode : std::uint8_t {
  kSpec,            // 0x00 -> 2^-127 (an fp32 subnormal), 0xFF -> NaN
  kOrtQmoe,         // ONNX Runtime QMoE dequant: 0x00 -> 0.0, 0xFF -> +Inf
};

/// Precision of the SwiGLU result before it is quantized (docs/semantics.md section 6.3).
enum class Intermediate : std::uint8_t { kFp32, kBf16 };

/// The exp inside the activation (docs/semantics.md section 7).
enum class ExpKind : std::uint8_t {
  kPortable,        // fp32 fma/add/mul in a fixed order: reproducible on CPU and GPU
  kEx2Approx,       // the GPU's ex2.approx.ftz.f32, emulated from a captured table
};

/// Every choice of a block-scaled quantizer. Build one from a preset (Recipe::by_name) and
/// change fields as needed; validate() checks that the combination is coherent.
struct Recipe {
  std::string_view name = "nvfp4_te";
  ElementFormat element = ElementFormat::kFp4E2M1;
  ScaleFormat scale = ScaleFormat::kFp8UE4M3;
  int block_size = 16;
  ScaleRule scale_rule = ScaleRule::kNvfp4;
  GlobalScale global_scale = GlobalScale::kTensorAmax;
  Nvfp4Order order = Nvfp4Order::kTe;
  Reciprocal reciprocal = Reciprocal::kIeee;
  ZeroBlock zero_block = ZeroBlock::kScaleCodeZero;
  NanInAmax nan_in_amax = NanInAmax::kIgnore;
  TensorAmaxPolicy tensor_amax = TensorAmaxPolicy::kTeClamp;
  PartialBlock partial_block = PartialBlock::kZeroPadded;
  E8m0Decode e8m0_decode = E8m0Decode::kSpec;
  bool flush_e8m0_zero = false;  // model a flush-to-zero device: E8M0 0x00 decodes to 0, not 2^-127
  Dialect dialect = Dialect::kCuda;  // conversion dialect for elements and scales (float_format.h)
  ScaleClamp scale_clamp = ScaleClamp::kNone;
  ElementEncoder element_encoder = ElementEncoder::kDialect;
  DequantOrder dequant_order = DequantOrder::kElemScaleThenGlobal;
  ScaleDecode scale_decode = ScaleDecode::kUnsigned;
  bool e2m1_negative_zero_decodes_positive = false;  // ModelOpt's value table: code 0x8 -> +0.0
  Intermediate intermediate = Intermediate::kFp32;
  Activation activation = Activation::kNone;
  float alpha = 1.702f;  // swiglu_clamped: out = g * sigmoid(alpha * g) * (u + 1)
  float limit = 7.0f;    // swiglu_clamped: g = min(g, limit), u = clamp(u, -limit, limit)
  ExpKind exp = ExpKind::kPortable;

  // Presets. Each models one library's quantizer or one specification; recipe.cpp cites the
  // function and version and says what distinguishes the preset from its neighbours. A library
  // preset named "name@X.Y" reproduces release X.Y; "name" alone is the newest release modelled.
  // docs/conformance.md lists which presets are held to a captured library output.
  static Recipe nvfp4_te();
  static Recipe nvfp4_trtllm();
  static Recipe nvfp4_cutlass_ref();
  static Recipe nvfp4_modelopt();  // = nvfp4_modelopt@0.47
  static Recipe nvfp4_modelopt_043();
  static Recipe nvfp4_modelopt_047();
  static Recipe nvfp4_torchao();  // = nvfp4_torchao@0.18
  static Recipe nvfp4_torchao_016();
  static Recipe nvfp4_torchao_017();
  static Recipe nvfp4_torchao_018();
  static Recipe nvfp4_torchao_one_level();  // = nvfp4_torchao_one_level@0.18
  static Recipe nvfp4_torchao_one_level_017();
  static Recipe nvfp4_torchao_one_level_018();
  static Recipe nvfp4_torchao_bf16_016();
  static Recipe nvfp4_torchao_bf16_017();
  static Recipe mxfp4_nvidia();
  static Recipe mxfp4_ocp();
  static Recipe mxfp4_te();
  static Recipe mxfp8_nvidia();
  static Recipe mxfp8_ocp();
  static Recipe mxfp8_te();
  static Recipe ort_qmoe();
  /// torchao MXTensor.to_mx modes for `element` (kFp4E2M1 -> mxfp4_torchao_<mode>, kFp8E4M3 ->
  /// mxfp8_torchao_<mode>); `rule` is one of the kTorchao* scale rules.
  static Recipe mx_torchao(ElementFormat element, ScaleRule rule);

  /// The preset called `name`; throws std::invalid_argument listing the valid names.
  static Recipe by_name(std::string_view name);
  /// The specification presets and one per library (its newest release), default (nvfp4_te)
  /// first: what the golden set, the kernels' declared lists and the CLI lists are built from.
  static std::span<const std::string_view> preset_names();
  /// The release- and mode-specific library presets ("nvfp4_torchao@0.16", "mxfp4_torchao_even",
  /// "mxfp4_te", ...), each held to a captured library output (docs/conformance.md) or, for
  /// TransformerEngine, modelled from its source. by_name accepts these too.
  static std::span<const std::string_view> library_preset_names();

  /// Throws std::invalid_argument naming the field and the rule when fields contradict each
  /// other (e.g. an E8M0 scale with an NVFP4 order, a block size of 0).
  void validate() const;

  bool is_nvfp4() const { return scale == ScaleFormat::kFp8UE4M3; }
  bool is_mx() const { return scale == ScaleFormat::kPow2E8M0; }
  /// The FloatFormat of the elements (kE2M1 / kE4M3) and of the scales (kE8M0 / kUE4M3).
  const FloatFormat& element_format() const;
  const FloatFormat& scale_format() const;
  /// Largest finite element magnitude: 6 (E2M1) or 448 (E4M3).
  float element_max() const;
  /// Bits per stored element: 4 (packed two per byte) or 8.
  int element_bits() const;

  friend bool operator==(const Recipe&, const Recipe&) = default;
};

/// A one-line, human-readable description of every field ("nvfp4_te: e2m1/ue4m3 block=16 ...").
std::string to_string(const Recipe& recipe);

std::string_view to_string(ElementFormat v);
std::string_view to_string(ScaleFormat v);
std::string_view to_string(ScaleRule v);
std::string_view to_string(GlobalScale v);
std::string_view to_string(Nvfp4Order v);
std::string_view to_string(Reciprocal v);
std::string_view to_string(ZeroBlock v);
std::string_view to_string(NanInAmax v);
std::string_view to_string(TensorAmaxPolicy v);
std::string_view to_string(PartialBlock v);
std::string_view to_string(E8m0Decode v);
std::string_view to_string(Intermediate v);
std::string_view to_string(ExpKind v);
std::string_view to_string(ScaleClamp v);
std::string_view to_string(ElementEncoder v);
std::string_view to_string(DequantOrder v);
std::string_view to_string(ScaleDecode v);

}  // namespace mxv
