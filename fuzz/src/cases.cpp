// rapidcheck generators of kernel calls (cases.h; docs/fuzzing.md "Generators").
#include "mxv/fuzz/cases.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>
#include <sstream>

namespace mxv::fuzz {

namespace {

using golden::VerifyKernel;

/// A pick from `options` whose range grows with rapidcheck's size: early (small-size) cases take
/// the first, smallest options, later ones reach the large shapes. Shrinks towards the first.
template <class T>
rc::Gen<T> sized_pick(std::vector<T> options) {
  return rc::gen::withSize([options](int size) {
    const std::size_t reach = 1 + (options.size() - 1) * static_cast<std::size_t>(std::clamp(size, 0, 100)) / 100;
    return rc::gen::elementOf(std::vector<T>(options.begin(), options.begin() + static_cast<std::ptrdiff_t>(reach)));
  });
}

/// Rows, or grouped rows: both sides of the 128-row scale tile, rows of 1.
void pick_rows(golden::VerifyCase& v) {
  if (*rc::gen::arbitrary<bool>()) {
    v.groups = *gen_group_counts();
    v.rows = 0;
    for (const auto g : v.groups) v.rows += g;
  } else {
    v.rows = *sized_pick<std::int64_t>({1, 2, 3, 4, 7, 8, 31, 32, 33, 127, 128, 129, 130, 255, 256, 257});
  }
}

std::vector<std::string> presets_of(VerifyKernel k) { return golden::supported_presets(k); }

/// A generated call of kernel `k`: every generator's first draws, one of its presets and one of
/// the wide types it takes.
FuzzCase new_case(VerifyKernel k, std::vector<WideType> dtypes) {
  FuzzCase c;
  c.call.kernel = k;
  c.call.preset = *rc::gen::elementOf(presets_of(k));
  c.call.dtype = *rc::gen::elementOf(std::move(dtypes));
  c.call.why = "generated";
  return c;
}

/// The draws a quantizing call (quantize, fused SwiGLU) takes after its columns, in this order:
/// rows or grouped rows, the scale layout, the value mix, the input seed.
void pick_quantized_rows_and_values(FuzzCase& c, bool allow_specials) {
  pick_rows(c.call);
  c.call.swizzled = *rc::gen::arbitrary<bool>();
  c.mix = *gen_value_mix(allow_specials);
  c.call.specials = c.mix.specials;
  c.seed = *rc::gen::arbitrary<std::uint64_t>();
}

}  // namespace

std::string FuzzCase::describe() const {
  std::ostringstream os;
  os << golden::to_string(call.kernel) << " " << call.preset << " " << call.dtype_label() << " " << call.shape();
  if (call.kernel == VerifyKernel::kQuantize || call.kernel == VerifyKernel::kSwigluQuantize) {
    os << " values=" << mix.to_string();
  }
  os << " seed=" << seed;
  if (calibrated_amax_factor > 0.0f) os << " calibrated_amax=x" << calibrated_amax_factor;
  return os.str();
}

void showValue(const FuzzCase& c, std::ostream& os) { os << c.describe(); }

rc::Gen<ValueMix> gen_value_mix(bool allow_specials) {
  return rc::gen::exec([allow_specials] {
    ValueMix m;
    m.midpoints = *rc::gen::arbitrary<bool>();
    m.scale_thresholds = *rc::gen::arbitrary<bool>();
    m.bf16_crossings = *rc::gen::arbitrary<bool>();
    m.zeros = *rc::gen::arbitrary<bool>();
    m.subnormals = *rc::gen::arbitrary<bool>();
    m.huge = *rc::gen::arbitrary<bool>();
    m.specials = allow_specials && *rc::gen::arbitrary<bool>();
    m.extreme_tensor = *rc::gen::arbitrary<bool>();
    return m;
  });
}

rc::Gen<std::vector<std::int64_t>> gen_group_counts() {
  return rc::gen::exec([] {
    const auto experts = *rc::gen::inRange(1, 5);
    std::vector<std::int64_t> counts;
    std::int64_t sum = 0;
    for (int e = 0; e < experts; ++e) {
      counts.push_back(*sized_pick<std::int64_t>({1, 0, 2, 5, 127, 128, 129, 255, 256, 257}));
      sum += counts.back();
    }
    if (sum == 0) counts.front() = 1;
    return counts;
  });
}

rc::Gen<FuzzCase> gen_quantize_case(bool allow_specials) {
  return rc::gen::exec([allow_specials] {
    FuzzCase c = new_case(VerifyKernel::kQuantize, {WideType::kFp32, WideType::kBf16});
    golden::VerifyCase& v = c.call;
    const std::int64_t block = Recipe::by_name(v.preset).block_size;
    // K: whole blocks (the vector variant) or just off them (the scalar one), both sides of the
    // 4-column scale tile (kb <= 4 and kb >= 5).
    const auto blocks = *sized_pick<std::int64_t>({1, 2, 3, 4, 5, 8, 9, 16});
    const auto delta = *rc::gen::elementOf(std::vector<std::int64_t>{0, 0, 0, -1, 1, -2, 2, block / 2});
    v.cols = std::max<std::int64_t>(1, blocks * block + delta);
    pick_quantized_rows_and_values(c, allow_specials);
    if (Recipe::by_name(v.preset).is_nvfp4()) {
      c.calibrated_amax_factor = *rc::gen::elementOf(std::vector<float>{0.0f, 1.0f, 2.0f, 0.5f});
    }
    v.expect_variant = golden::expected_quantize_variant(v.cols, block);
    return c;
  });
}

rc::Gen<FuzzCase> gen_dequantize_case() {
  return rc::gen::exec([] {
    FuzzCase c = new_case(VerifyKernel::kDequantize, {WideType::kFp32, WideType::kBf16, WideType::kFp16});
    golden::VerifyCase& v = c.call;
    v.n_packed = *rc::gen::arbitrary<bool>();
    v.experts = *sized_pick<std::int64_t>({1, 2, 3});
    // Both sides of the tiled gate (N even, K a multiple of 64) and of the 64 x 64 tile edges.
    v.rows = *sized_pick<std::int64_t>({1, 2, 3, 4, 63, 64, 65, 66, 127, 128, 129, 130});
    if (v.n_packed && v.rows % 2 != 0) ++v.rows;  // two codes per byte along N
    v.cols = v.n_packed ? *sized_pick<std::int64_t>({16, 17, 32, 48, 63, 64, 65, 80, 96, 128, 129, 192})
                        : *sized_pick<std::int64_t>({16, 32, 48, 62, 64, 66, 80, 96, 126, 128, 130, 192, 256});
    c.seed = *rc::gen::arbitrary<std::uint64_t>();
    v.expect_variant = golden::expected_dequantize_variant(v.rows, v.cols);
    return c;
  });
}

rc::Gen<FuzzCase> gen_swiglu_case(bool allow_specials) {
  return rc::gen::exec([allow_specials] {
    FuzzCase c = new_case(VerifyKernel::kSwigluQuantize, {WideType::kFp32, WideType::kBf16});
    golden::VerifyCase& v = c.call;
    const Recipe r = Recipe::by_name(v.preset);
    v.cols = r.block_size * *sized_pick<std::int64_t>({1, 2, 3, 4, 5, 8, 9});
    // interleaved:G for every G dividing I that the kernel takes (G divides 8 or is a multiple of 8).
    std::vector<std::string> layouts = {"halves"};
    for (std::int64_t g = 1; g <= v.cols; ++g) {
      if (v.cols % g == 0 && (8 % g == 0 || g % 8 == 0)) layouts.push_back("interleaved:" + std::to_string(g));
    }
    v.gate_up_layout = *rc::gen::elementOf(layouts);
    v.activation = r.activation != Activation::kNone
                       ? r.activation
                       : *rc::gen::elementOf(std::vector<Activation>{Activation::kSilu, Activation::kSwigluClamped});
    v.intermediate = *rc::gen::elementOf(std::vector<Intermediate>{Intermediate::kFp32, Intermediate::kBf16});
    pick_quantized_rows_and_values(c, allow_specials);
    v.expect_variant = "swiglu_quantize_fused";
    return c;
  });
}

rc::Gen<FuzzCase> gen_convert_case() {
  return rc::gen::exec([] {
    FuzzCase c = new_case(VerifyKernel::kConvert, {WideType::kFp32, WideType::kBf16, WideType::kFp16});
    golden::VerifyCase& v = c.call;
    v.decode = *rc::gen::arbitrary<bool>();
    // Counts on both sides of a warp and of the 256-thread launch block; odd counts for E2M1.
    v.cols = v.decode ? (v.preset == "e2m1" ? 512 : 256)
                      : *sized_pick<std::int64_t>({1, 2, 3, 31, 32, 33, 255, 256, 257, 1000, 4096});
    v.specials = !v.decode;
    c.seed = *rc::gen::arbitrary<std::uint64_t>();
    v.expect_variant = "convert";
    return c;
  });
}

golden::VerifyCase materialize(const FuzzCase& c) {
  golden::VerifyCase v = c.call;
  const auto rows = v.rows, cols = v.cols;
  switch (v.kernel) {
    case VerifyKernel::kConvert:
      return v;  // the catalogue's seeded inputs (run_case draws them from the seed it is given)
    case VerifyKernel::kQuantize: {
      const Recipe r = Recipe::by_name(v.preset);
      auto in = std::make_shared<golden::CaseInputs>();
      in->values = quantize_inputs(r, v.dtype, rows, cols, c.mix, c.seed);
      if (r.is_nvfp4() && c.calibrated_amax_factor > 0.0f) {
        float amax = 0.0f;
        for (const float x : in->values) {
          if (!std::isnan(x)) amax = std::fmax(amax, std::fabs(x));
        }
        in->tensor_amax = amax * c.calibrated_amax_factor;
      }
      v.inputs = std::move(in);
      return v;
    }
    case VerifyKernel::kSwigluQuantize: {
      auto in = std::make_shared<golden::CaseInputs>();
      in->values = swiglu_inputs(Recipe::by_name(v.preset), v.dtype, rows, cols, c.mix, c.seed);
      v.inputs = std::move(in);
      return v;
    }
    case VerifyKernel::kDequantize: {
      auto in = std::make_shared<golden::CaseInputs>();
      Rng rng(c.seed);
      in->weights = weight_inputs(Recipe::by_name(v.preset), v.experts, rows, cols, rng, true);
      v.inputs = std::move(in);
      return v;
    }
  }
  return v;
}

}  // namespace mxv::fuzz
