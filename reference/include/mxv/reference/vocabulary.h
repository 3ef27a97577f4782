// The project's one vocabulary: the names that the reference, the device kernels and their
// launchers, the golden files, the fuzz campaign, the CLI and the Python bindings all share
// (docs/design.md section "One vocabulary"). Each concept is defined here once; nothing maps one
// spelling onto another. The check library keeps its own names on purpose (check/, it shares no
// code with what it checks).
//
// The header is plain C++20 with no out-of-line dependency beyond its names, so the kernel bodies
// (nvcc and the emulator) include it as they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mxv {

/// The dtype of a wide tensor: activations in, dequantized values out, the wide side of a
/// conversion.
enum class WideType : std::uint8_t { kFp32, kBf16, kFp16 };
/// "fp32" / "bf16" / "fp16"; throws std::invalid_argument otherwise.
WideType wide_type_by_name(std::string_view name);
std::string_view to_string(WideType type);
/// Bytes of one element: 4 (fp32) or 2.
std::size_t bytes_of(WideType type);

/// Where block-scale bytes go (docs/semantics.md section 5): row-major [rows, ceil(K/block)], or
/// the 128x4 tiles of cuBLAS block-scaled GEMMs.
enum class ScaleLayout : std::uint8_t { kLinear, kSwizzled128x4 };
/// "linear" / "swizzled" (also "swizzled128x4"); throws std::invalid_argument otherwise.
ScaleLayout scale_layout_by_name(std::string_view name);
std::string_view to_string(ScaleLayout layout);

/// Which axis the two E2M1 codes of a weight byte share (docs/semantics.md section 5, "Packing
/// axis"): K ([E, N, K/2], most GEMM libraries) or N ([E, K, N/2], ONNX Runtime QMoE).
enum class WeightPacking : std::uint8_t { kKPacked, kNPacked };
/// "k" / "k-packed" and "n" / "n-packed"; throws std::invalid_argument otherwise.
WeightPacking weight_packing_by_name(std::string_view name);
std::string_view to_string(WeightPacking packing);

/// The activation applied before quantization (docs/semantics.md section 6). kNone is plain
/// quantization; the SwiGLU kernels take kSilu and kSwigluClamped.
enum class Activation : std::uint8_t { kNone, kSilu, kSwigluClamped };
std::string_view to_string(Activation activation);

}  // namespace mxv
