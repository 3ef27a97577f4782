// The committed golden set (golden_catalogue.h). Shapes are chosen for what they exercise and kept
// small so that the whole set stays a few MB: odd shapes (rows of 3 and 7, K of 17 and 400: partial
// blocks, K not a multiple of 64), tiled shapes (two 128-row scale tiles; dequantize's 64 x 64
// tile), grouped rows (1/127/128/129 and an empty group). The names say what a case is:
// <op>.<preset or format>.<shape and options>.
#include "mxv/golden/golden_catalogue.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "mxv/golden/golden_inputs.h"
#include "mxv/golden/hdf5_file.h"
#include "mxv/io/data_files.h"
#include "mxv/reference/swiglu.h"

namespace mxv::golden {

namespace {

constexpr std::array<std::string_view, 4> kFamilies = {"codes", "quantize", "dequantize", "swiglu"};

std::vector<std::uint8_t> fp32_bytes(std::span<const float> v) {
  std::vector<std::uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::string dims(std::int64_t a, std::int64_t b) { return std::to_string(a) + "x" + std::to_string(b); }

/// The scale layout in case names: "linear" or "swizzled".
std::string layout_tag(ScaleLayout l) { return l == ScaleLayout::kLinear ? "linear" : "swizzled"; }

// ---- codes -----------------------------------------------------------------------------------

constexpr std::array<const FloatFormat*, 4> kFormats = {&kE2M1, &kE4M3, &kUE4M3, &kE8M0};

bool mode_supported(const FloatFormat& f, ConvertMode m) {
  try {
    validate(f, m);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

void add_codes(std::vector<GoldenCase>& out) {
  for (const FloatFormat* f : kFormats) {
    const std::vector<float> probes = conversion_probes(*f);
    for (const Dialect d : kAllDialects) {
      for (const Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kUp}) {
        for (const Saturation s : {Saturation::kFinite, Saturation::kNone}) {
          const ConvertMode mode{r, s, d};
          if (!mode_supported(*f, mode)) continue;
          // bf16 / fp16 inputs (widened exactly, never rounded through) only in the cuda dialect,
          // the one the kernels implement; the other dialects are pinned on fp32 inputs.
          for (const WideType t : {WideType::kFp32, WideType::kBf16, WideType::kFp16}) {
            if (t != WideType::kFp32 && d != Dialect::kCuda) continue;
            CaseParams p;
            p.op = Op::kEncode;
            p.format = std::string(f->name);
            p.mode = mode;
            p.dtype = t;
            std::vector<std::uint8_t> x = wide_probes(t, probes);
            p.cols = static_cast<std::int64_t>(x.size() / bytes_of(t));
            const std::string name = "encode." + p.format + "." + std::string(to_string(r)) + "." +
                                     std::string(to_string(s)) + "." + std::string(to_string(d)) + "." +
                                     std::string(to_string(t));
            out.push_back(make_case(name, p, {input_dataset(p, "x", std::move(x))},
                                    "every value, midpoint and overflow edge with its neighbours, both signs, "
                                    "zeros, infinities, NaNs, subnormals"));
          }
        }
      }
      // The full code table, decoded (a dialect may decode differently; rounding does not matter).
      for (const WideType t : {WideType::kFp32, WideType::kBf16, WideType::kFp16}) {
        if (t != WideType::kFp32 && d != Dialect::kCuda) continue;
        CaseParams p;
        p.op = Op::kDecode;
        p.format = std::string(f->name);
        p.mode.dialect = d;
        p.dtype = t;
        const std::int64_t codes = std::int64_t{1} << f->bits();  // UE4M3: 128 (no sign bit)
        p.cols = codes;
        std::vector<std::uint8_t> bytes;
        if (*f == kE2M1) {
          for (unsigned i = 0; i < 8; ++i) bytes.push_back(static_cast<std::uint8_t>((2 * i) | ((2 * i + 1) << 4)));
        } else {
          for (std::int64_t i = 0; i < codes; ++i) bytes.push_back(static_cast<std::uint8_t>(i));
        }
        const std::string name = "decode." + p.format + "." + std::string(to_string(d)) + "." + std::string(to_string(t));
        out.push_back(make_case(name, p, {input_dataset(p, "codes", std::move(bytes))}, "every code of the format"));
      }
    }
  }
}

// ---- quantize and swiglu ---------------------------------------------------------------------

/// The shape of a case that quantizes [rows, cols] values (quantize; swiglu, whose cols is I): the
/// input dtype, the scale layout, grouped rows, NaN / Inf among the inputs, the tag its name
/// carries and the edge it covers.
struct QuantizingShape {
  std::int64_t rows, cols;
  WideType dtype;
  ScaleLayout layout;
  std::vector<std::int64_t> groups;
  bool specials;
  const char* tag;
  const char* why;
};

/// The parameters of an `op` case with `recipe` over `s`; the caller adds what only its op has.
CaseParams quantizing_params(Op op, const Recipe& recipe, const QuantizingShape& s) {
  return {.op = op,
          .mode = {},  // encode / decode only
          .recipe = recipe,
          .dtype = s.dtype,
          .rows = s.rows,
          .cols = s.cols,
          .groups = s.groups,
          .scale_layout = s.layout,
          .tensor_amax = std::nullopt};  // the caller's to calibrate
}

void add_quantize(std::vector<GoldenCase>& out, std::uint64_t seed) {
  struct Shape {
    QuantizingShape q;
    bool calibrated;  // NVFP4: tensor amax 2688 (S_enc = 1), so midpoint blocks are exact ties
  };
  const std::vector<Shape> shapes = {
      {{7, 400, WideType::kFp32, ScaleLayout::kLinear, {}, true, "",
        "odd rows, K = 400 (not a multiple of 64), every block kind incl. NaN / Inf; NVFP4: S_enc = 1 so midpoints are ties"},
       true},
      {{3, 17, WideType::kFp32, ScaleLayout::kSwizzled128x4, {}, false, "",
        "odd K: a partial last block, the last byte's high nibble 0, swizzled padding"},
       false},
      {{256, 32, WideType::kBf16, ScaleLayout::kSwizzled128x4, {}, false, "", "tiled: two 128-row scale tiles, bf16 input"},
       false},
      {{385, 32, WideType::kBf16, ScaleLayout::kSwizzled128x4, {1, 127, 128, 129}, false, ".grouped",
        "grouped rows 1/127/128/129, each expert's scales in its own 128-row tiles"},
       false},
      {{130, 48, WideType::kBf16, ScaleLayout::kLinear, {2, 0, 128}, true, ".grouped",
        "grouped rows with an empty expert, linear scales, NaN / Inf"},
       false},
  };
  for (const std::string_view preset : Recipe::preset_names()) {
    const Recipe recipe = Recipe::by_name(preset);
    for (const auto& [s, calibrated] : shapes) {
      CaseParams p = quantizing_params(Op::kQuantize, recipe, s);
      if (recipe.is_nvfp4() && calibrated) p.tensor_amax = 2688.0f;
      const std::string name = "quantize." + std::string(preset) + "." + dims(s.rows, s.cols) + s.tag + "." +
                               layout_tag(s.layout) + "." + std::string(to_string(s.dtype));
      const std::vector<float> x = quantize_inputs(recipe, s.rows, s.cols, case_seed(seed, name), s.specials);
      out.push_back(make_case(name, p, {input_dataset(p, "x", narrow_from_fp32(s.dtype, x))}, s.why));
    }
  }
}

// ---- dequantize ------------------------------------------------------------------------------

void add_dequantize(std::vector<GoldenCase>& out, std::uint64_t seed) {
  struct Shape {
    std::int64_t e, n, k;
    const char* why;
  };
  static const Shape kShapes[] = {
      {2, 6, 80, "two experts, K = 80 (one block past 64): the scalar kernel"},
      {1, 64, 64, "one 64 x 64 tile: the tiled kernel"},
  };
  // Global decode scales: 1, then values that are not powers of two (the multiplication order of
  // elem * sf * s_dec shows in the last bit).
  static constexpr float kSDec[] = {1.0f, 0x1.3p-7f};
  for (const std::string_view preset : Recipe::preset_names()) {
    const Recipe recipe = Recipe::by_name(preset);
    if (recipe.element != ElementFormat::kFp4E2M1) continue;
    for (const WeightPacking packing : {WeightPacking::kKPacked, WeightPacking::kNPacked}) {
      for (const Shape& s : kShapes) {
        for (const WideType t : {WideType::kFp32, WideType::kBf16, WideType::kFp16}) {
          CaseParams p;
          p.op = Op::kDequantize;
          p.recipe = recipe;
          p.dtype = t;
          p.experts = s.e;
          p.rows = s.n;
          p.cols = s.k;
          p.packing = packing;
          const std::string name = "dequantize." + std::string(preset) + "." + std::string(to_string(packing)) + "." +
                                   std::to_string(s.e) + "x" + dims(s.n, s.k) + "." + std::string(to_string(t));
          // Inputs do not depend on the output dtype: one seed per preset, packing and shape.
          const std::uint64_t cs = case_seed(seed, name.substr(0, name.rfind('.')));
          const WeightShape ws{s.e, s.n, s.k};
          std::vector<Dataset> in;
          in.push_back(input_dataset(p, "packed", packed_weight_bytes(static_cast<std::size_t>(packed_weight_bytes(packing, ws)), cs)));
          in.push_back(input_dataset(p, "scales", scale_code_bytes(recipe, static_cast<std::size_t>(weight_scale_bytes(recipe, ws)), cs)));
          if (recipe.is_nvfp4()) {
            std::vector<float> sd(kSDec, kSDec + s.e);
            in.push_back(input_dataset(p, "s_dec", fp32_bytes(sd)));
          }
          out.push_back(make_case(name, p, std::move(in), std::string(s.why) + "; every nibble pair and every scale code"));
        }
      }
    }
  }
}

// ---- swiglu ----------------------------------------------------------------------------------

/// max |y| over the activation (NaN skipped): the calibrated tensor amax a production epilogue is
/// given, stored in the case so that every implementation uses the same one.
float activation_amax(const Recipe& r, const std::vector<float>& x, std::int64_t rows, std::int64_t inter,
                      const GateUpLayout& layout) {
  const GateUpView view = GateUpView::from_fp32(x, static_cast<std::size_t>(rows), static_cast<std::size_t>(inter));
  float amax = 0.0f;
  for (const float y : swiglu(view, layout, SwigluActivation::from_recipe(r))) {
    if (!std::isnan(y)) amax = std::fmax(amax, std::fabs(y));
  }
  return amax;
}

void add_swiglu(std::vector<GoldenCase>& out, std::uint64_t seed) {
  struct Shape {
    QuantizingShape q;  // cols = I
    bool every_preset;
  };
  const std::vector<Shape> shapes = {
      {{5, 32, WideType::kFp32, ScaleLayout::kLinear, {}, true, "", "two NVFP4 blocks per row, clamp and exp edges, NaN / Inf"},
       true},
      {{385, 16, WideType::kBf16, ScaleLayout::kSwizzled128x4, {1, 127, 128, 129}, false, ".grouped",
        "grouped rows 1/127/128/129, swizzled scales per expert, bf16 gate/up"},
       false},
  };
  for (const std::string_view preset : Recipe::preset_names()) {
    const Recipe base = Recipe::by_name(preset);
    if (!base.is_nvfp4()) continue;
    for (const auto& [s, every_preset] : shapes) {
      if (!every_preset && preset != "nvfp4_te") continue;
      for (const char* layout_name : {"halves", "interleaved:1", "interleaved:8"}) {
        for (const Activation act : {Activation::kSilu, Activation::kSwigluClamped}) {
          for (const Intermediate im : {Intermediate::kFp32, Intermediate::kBf16}) {
            // The large grouped shape pairs each activation with one intermediate precision (silu:
            // fp32, clamped: bf16); the small shape covers every combination for every preset.
            if (!every_preset && (act == Activation::kSilu) != (im == Intermediate::kFp32)) continue;
            CaseParams p = quantizing_params(Op::kSwigluQuantize, base, s);
            p.recipe.activation = act;
            p.recipe.intermediate = im;
            p.gate_up = GateUpLayout::parse(layout_name);
            std::string layout_tag = layout_name;
            layout_tag.erase(std::remove(layout_tag.begin(), layout_tag.end(), ':'), layout_tag.end());
            const std::string name = "swiglu." + std::string(preset) + "." + dims(s.rows, s.cols) + s.tag + "." +
                                     layout_tag + "." + std::string(to_string(act)) + ".i" +
                                     std::string(to_string(im)) + "." + std::string(to_string(s.dtype));
            const std::uint64_t cs = case_seed(seed, dims(s.rows, s.cols) + s.tag + std::string(to_string(s.dtype)));
            std::vector<std::uint8_t> x = narrow_from_fp32(s.dtype, swiglu_inputs(s.rows, s.cols, cs, s.specials));
            p.tensor_amax = activation_amax(p.recipe, widen_to_fp32(s.dtype, x), s.rows, s.cols, p.gate_up);
            out.push_back(make_case(name, p, {input_dataset(p, "gate_up", std::move(x))}, s.why));
          }
        }
      }
    }
  }
}

}  // namespace

std::span<const std::string_view> golden_families() { return kFamilies; }

std::vector<GoldenCase> generate_family(std::string_view family, std::uint64_t seed) {
  std::vector<GoldenCase> out;
  if (family == "codes") {
    add_codes(out);
  } else if (family == "quantize") {
    add_quantize(out, seed);
  } else if (family == "dequantize") {
    add_dequantize(out, seed);
  } else if (family == "swiglu") {
    add_swiglu(out, seed);
  } else {
    throw std::invalid_argument("golden family '" + std::string(family) + "' is not one of: codes, quantize, dequantize, swiglu");
  }
  std::sort(out.begin(), out.end(), [](const GoldenCase& a, const GoldenCase& b) { return a.name < b.name; });
  return out;
}

std::string committed_golden_dir() {
  const std::filesystem::path dir = io::find_data_file(kGoldenDataDir);
  if (dir.empty()) throw GoldenFileError(kGoldenDataDir, "", io::describe_data_search(kGoldenDataDir));
  return dir.string();
}

std::string committed_file(std::string_view family) { return committed_golden_dir() + "/" + std::string(family) + ".h5"; }

}  // namespace mxv::golden
