// The verification matrix of the curated case catalogue (verify.h): which presets each kernel
// takes, the edge shapes of docs/verification.md section 5 per kernel, and the seeded bug-hunting
// input generator.
// Shapes name the edge they cover; where the catalogue states which variant the gate must pick it
// says so in its own words (dequantize: tiled iff N even and K % 64 == 0; quantize: vector iff
// K % block == 0), so a launcher whose gate drifts is caught rather than recorded.
#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <sstream>
#include <stdexcept>

#include "mxv/device/quantize.h"
#include "mxv/device/swiglu_quantize.h"
#include "mxv/device/convert.h"
#include "mxv/device/dequantize.h"
#include "mxv/golden/golden_inputs.h"
#include "mxv/golden/verify.h"
#include "mxv/io/enum_names.h"

namespace mxv::golden {

std::string_view to_string(VerifyKernel k) {
  return io::enum_name(k, {"convert", "dequantize", "quantize", "swiglu-quantize"});
}

VerifyKernel verify_kernel_by_name(std::string_view name) {
  for (const VerifyKernel k : kAllVerifyKernels) {
    if (to_string(k) == name) return k;
  }
  throw std::invalid_argument("--kernel '" + std::string(name) +
                              "' is not one of: convert, dequantize, quantize, swiglu-quantize, all");
}

namespace {

constexpr std::array<device::CodeFormat, 4> kCodeFormats = {device::CodeFormat::kE4M3, device::CodeFormat::kE2M1,
                                                            device::CodeFormat::kE8M0Rz, device::CodeFormat::kE8M0Rp};

std::string join_groups(const std::vector<std::int64_t>& g) {
  std::string s;
  for (std::size_t i = 0; i < g.size(); ++i) s += (i ? "/" : "") + std::to_string(g[i]);
  return s;
}

}  // namespace

std::vector<std::string> supported_presets(VerifyKernel k) {
  std::vector<std::string> out;
  switch (k) {
    case VerifyKernel::kConvert:
      for (const auto f : kCodeFormats) out.emplace_back(device::to_string(f));
      return out;
    case VerifyKernel::kQuantize:
      for (const auto p : device::quantize_supported_presets()) out.emplace_back(p);
      return out;
    case VerifyKernel::kDequantize:
      for (const auto p : device::dequantize_supported_presets()) out.emplace_back(p);
      return out;
    case VerifyKernel::kSwigluQuantize:
      for (const auto p : device::swiglu_quantize_supported_presets()) out.emplace_back(p);
      return out;
  }
  return out;
}

std::string VerifyCase::shape() const {
  std::ostringstream s;
  switch (kernel) {
    case VerifyKernel::kConvert:
      s << (decode ? "decode" : "encode") << " n=" << cols;
      break;
    case VerifyKernel::kDequantize:
      s << "E=" << experts << " N=" << rows << " K=" << cols << (n_packed ? " n-packed" : " k-packed");
      break;
    case VerifyKernel::kQuantize:
      s << "M=" << rows << " K=" << cols;
      break;
    case VerifyKernel::kSwigluQuantize:
      s << "M=" << rows << " I=" << cols << " " << gate_up_layout << " "
        << (activation == Activation::kSwigluClamped ? "clamped" : "silu")
        << (intermediate == Intermediate::kBf16 ? " ibf16" : "");
      break;
  }
  if (!groups.empty()) s << " groups=" << join_groups(groups);
  if (kernel == VerifyKernel::kQuantize || kernel == VerifyKernel::kSwigluQuantize) s << (swizzled ? " swz" : " lin");
  if (specials) s << " nan/inf";
  return s.str();
}

std::string VerifyCase::dtype_label() const {
  const std::string t(to_string(dtype));
  if (kernel == VerifyKernel::kConvert) return decode ? "code->" + t : t + "->code";
  if (kernel == VerifyKernel::kDequantize) return "fp4->" + t;
  return t;
}

std::string VerifyCase::id() const {
  return std::string(to_string(kernel)) + "|" + preset + "|" + dtype_label() + "|" + shape();
}

std::uint64_t case_seed(std::uint64_t run_seed, const VerifyCase& c) { return case_seed(run_seed, c.id()); }

std::string expected_dequantize_variant(std::int64_t n, std::int64_t k) {
  return n % 2 == 0 && k % 64 == 0 ? "dequantize_tiled" : "dequantize_scalar";
}

std::string expected_quantize_variant(std::int64_t k, std::int64_t block_size) {
  return k % block_size == 0 ? "quantize_vector" : "quantize_scalar";
}

namespace {

constexpr WideType kF32 = WideType::kFp32;
constexpr WideType kBf16 = WideType::kBf16;
constexpr WideType kF16 = WideType::kFp16;

/// A case of `kernel` with `preset` and `dtype`, expecting `variant` to run ("" = not stated),
/// covering `why`, its inputs drawn from its seed; the caller fills in the shape.
VerifyCase base_case(VerifyKernel kernel, const std::string& preset, WideType dtype, std::string variant,
                     std::string why) {
  VerifyCase c;
  c.kernel = kernel;
  c.preset = preset;
  c.dtype = dtype;
  c.expect_variant = std::move(variant);
  c.why = std::move(why);
  return c;
}

/// The shape of a case that quantizes [rows, cols] values (quantize; swiglu_quantize, whose cols
/// is I): its scale layout, grouped rows, NaN / Inf among the inputs, and the edge it covers.
struct QuantizingCallShape {
  std::int64_t rows, cols;
  bool swizzled;
  std::vector<std::int64_t> groups;
  bool specials;
  std::string why;
};

VerifyCase quantizing_case(VerifyKernel kernel, const std::string& preset, WideType dtype, QuantizingCallShape s,
                           std::string variant) {
  VerifyCase c = base_case(kernel, preset, dtype, std::move(variant), std::move(s.why));
  c.rows = s.rows;
  c.cols = s.cols;
  c.groups = std::move(s.groups);
  c.swizzled = s.swizzled;
  c.specials = s.specials;
  return c;
}

void add_convert(std::vector<VerifyCase>& out, bool quick) {
  for (const std::string& f : supported_presets(VerifyKernel::kConvert)) {
    for (const WideType t : {kF32, kBf16, kF16}) {
      if (quick && t != kF32) continue;
      auto add = [&](std::int64_t n, bool decode, std::string why) {
        VerifyCase c = base_case(VerifyKernel::kConvert, f, t, "convert", std::move(why));
        c.cols = n;
        c.decode = decode;
        c.specials = !decode;
        out.push_back(std::move(c));
      };
      add(1, false, "one element (E2M1: a half byte, high nibble zero)");
      add(301, false, "odd count: the last E2M1 byte holds one element");
      if (!quick) add(65536, false, "bug-hunting values and random patterns over 256 launch blocks");
      // Decoding every code once (E8M0 RZ and RP decode the same way; one of them suffices).
      if (f != "e8m0-rp") add(f == "e2m1" ? 512 : 256, true, "every code");
    }
  }
}

void add_dequantize(std::vector<VerifyCase>& out, bool quick) {
  struct S {
    bool n_packed;
    std::int64_t e, n, k;
    bool quick;
    const char* why;
  };
  static const S kShapes[] = {
      {false, 1, 1, 16, true, "one row, odd N, K = one NVFP4 block"},
      {false, 1, 3, 48, false, "odd N, K = 48 (one block short of 64)"},
      {false, 2, 5, 80, false, "odd N, K = 80 (one block past 64), two experts"},
      {false, 1, 2, 400, false, "K = 400, not a multiple of 64"},
      {false, 1, 63, 64, false, "gate: N odd (63) with K = 64 -> scalar"},
      {false, 1, 64, 64, true, "gate: N even (64) with K = 64 -> tiled"},
      {false, 1, 64, 96, false, "gate: K = 96, not a multiple of 64 -> scalar"},
      {false, 2, 129, 128, false, "129 rows per expert (odd) -> scalar"},
      {false, 2, 130, 192, false, "partial row tile (130 rows), K = 3 tiles -> tiled"},
      {true, 1, 2, 16, false, "N-packed, N = 2, K = 16"},
      {true, 1, 2, 17, false, "N-packed, odd K (partial scale block)"},
      {true, 3, 64, 64, false, "N-packed tile, three experts"},
      {true, 1, 66, 128, false, "N-packed partial row tile (33-byte packed rows)"},
      {true, 1, 128, 80, false, "N-packed, K one block past 64"},
      {false, 1, 64, 128, false, "gate: K = 128 -> tiled"},
      {false, 2, 66, 128, false, "partial row tile (66 rows), two experts -> tiled"},
      {false, 1, 128, 64, false, "128 rows -> tiled"},
      {true, 1, 128, 48, false, "N-packed, K one block short of 64"},
      {true, 2, 130, 400, false, "N-packed, K = 400, two experts"},
      {true, 1, 128, 128, false, "N-packed, 128 rows -> tiled"},
      {false, 1, 256, 256, false, "tiled shape (4 x 4 tiles)"},
      {false, 2, 512, 1024, false, "larger tiled shape: 8 x 16 tiles, two experts"},
      {true, 1, 512, 512, false, "larger N-packed tiled shape (8 x 8 tiles)"},
  };
  for (const std::string& p : supported_presets(VerifyKernel::kDequantize)) {
    for (const WideType t : {kF32, kBf16, kF16}) {
      if (quick && t != kBf16) continue;
      for (const S& s : kShapes) {
        if (quick && !s.quick) continue;
        VerifyCase c = base_case(VerifyKernel::kDequantize, p, t, expected_dequantize_variant(s.n, s.k), s.why);
        c.experts = s.e;
        c.rows = s.n;
        c.cols = s.k;
        c.n_packed = s.n_packed;
        out.push_back(std::move(c));
      }
    }
  }
}

void add_quantize(std::vector<VerifyCase>& out, bool quick) {
  for (const std::string& p : supported_presets(VerifyKernel::kQuantize)) {
    const std::int64_t block = Recipe::by_name(p).block_size;
    for (const WideType t : {kF32, kBf16}) {
      if (quick && t != kF32) continue;
      auto add = [&](std::int64_t rows, std::int64_t cols, bool swz, std::vector<std::int64_t> groups, bool specials,
                     bool in_quick, std::string why) {
        if (quick && !in_quick) return;
        out.push_back(quantizing_case(VerifyKernel::kQuantize, p, t,
                                      {rows, cols, swz, std::move(groups), specials, std::move(why)},
                                      expected_quantize_variant(cols, block)));
      };
      add(1, 16, false, {}, false, true, "one row, one NVFP4 block (MX: a partial block)");
      add(3, 48, true, {}, false, false, "K = 48: one NVFP4 block short of 64");
      add(5, 80, false, {}, false, false, "K = 80: one block past 64");
      add(7, 400, true, {}, true, true, "K = 400 with NaN / Inf under the NaN policy");
      add(2, 17, false, {}, false, false, "odd K: scalar, the last byte's high nibble 0");
      add(4, 4 * block - 2, false, {}, false, false, "gate: just short of whole blocks -> scalar");
      add(4, 4 * block, false, {}, false, false, "gate: whole blocks -> vector");
      add(4, 4 * block + 2, true, {}, false, false, "gate: just past whole blocks -> scalar");
      add(385, 64, true, {1, 127, 128, 129}, false, false, "grouped rows 1/127/128/129 per expert");
      add(129, 33, true, {1, 128}, false, false, "grouped, odd K (scalar variant)");
      add(256, 512, true, {}, false, false, "tiled shape: two 128-row scale tiles, 16 scale columns");
      add(1024, 2048, true, {}, false, false, "larger tiled shape: 8 row tiles, 2048 columns");
    }
  }
}

void add_swiglu(std::vector<VerifyCase>& out, bool quick) {
  for (const std::string& p : supported_presets(VerifyKernel::kSwigluQuantize)) {
    const Recipe r = Recipe::by_name(p);
    const std::int64_t block = r.block_size;
    for (const WideType t : {kF32, kBf16}) {
      if (quick && t != kBf16) continue;
      int n = 0;
      auto add = [&](std::int64_t rows, std::int64_t inter, const char* layout, bool swz, std::vector<std::int64_t> groups,
                     bool specials, bool in_quick, std::string why) {
        if (quick && !in_quick) return;
        VerifyCase c = quantizing_case(VerifyKernel::kSwigluQuantize, p, t,
                                       {rows, inter, swz, std::move(groups), specials, std::move(why)},
                                       "swiglu_quantize_fused");
        c.gate_up_layout = layout;
        // A preset that names its activation keeps it; otherwise alternate silu / clamped, and the
        // intermediate precision, over the shapes.
        c.activation = r.activation != Activation::kNone ? r.activation
                                                         : (n % 2 == 0 ? Activation::kSilu : Activation::kSwigluClamped);
        c.intermediate = (n / 2) % 2 == 0 ? Intermediate::kFp32 : Intermediate::kBf16;
        ++n;
        out.push_back(std::move(c));
      };
      // I in whole blocks of the recipe: 1, 3, 5 and 25 blocks (NVFP4: 16, 48, 80, 400).
      add(1, block, "halves", true, {}, false, true, "one row, one block");
      add(3, 3 * block, "interleaved:1", false, {}, false, false, "I = 3 blocks, interleaved(1) (gpt-oss)");
      add(5, 5 * block, "interleaved:8", true, {}, true, true, "I = 5 blocks, interleaved(8), NaN / Inf");
      add(2, 25 * block, "halves", true, {}, false, false, "I = 25 blocks: scale columns padded to 28");
      add(385, 2 * block, "interleaved:8", true, {1, 127, 128, 129}, false, false, "grouped rows 1/127/128/129");
      add(256, 256, "halves", true, {}, false, false, "tiled shape: two 128-row scale tiles");
      add(512, 1024, "interleaved:1", true, {}, false, false, "larger tiled shape: 4 row tiles, I = 1024");
    }
  }
}

}  // namespace

std::vector<VerifyCase> verify_catalogue(bool quick) {
  std::vector<VerifyCase> out;
  add_convert(out, quick);
  add_dequantize(out, quick);
  add_quantize(out, quick);
  add_swiglu(out, quick);
  return out;
}

}  // namespace mxv::golden
