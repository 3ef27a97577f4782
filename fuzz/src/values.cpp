// Input generators aimed at quantization decisions (values.h; docs/fuzzing.md "Generators").
#include "mxv/fuzz/values.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "mxv/reference/block_scale.h"
#include "mxv/reference/float_format.h"
#include "mxv/reference/wide_float.h"

namespace mxv::fuzz {

std::string ValueMix::to_string() const {
  std::string s;
  auto add = [&](bool on, const char* name) {
    if (on) s += (s.empty() ? "" : "+") + std::string(name);
  };
  add(midpoints, "midpoints");
  add(scale_thresholds, "scale_thresholds");
  add(bf16_crossings, "bf16_crossings");
  add(zeros, "zeros");
  add(subnormals, "subnormals");
  add(huge, "huge");
  add(specials, "specials");
  add(extreme_tensor, "extreme_tensor");
  return s.empty() ? "plain" : s;
}

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t salt) {
  std::uint64_t z = seed ^ (salt + 0x9E3779B97F4A7C15ull + (seed << 6) + (seed >> 2));
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t name_hash(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (const char ch : s) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  return h;
}

std::uint64_t test_seed(std::uint64_t fallback) {
  static const std::uint64_t seed = [fallback] {
    std::uint64_t s = fallback;
    if (const char* e = std::getenv("MXV_TEST_SEED")) s = std::strtoull(e, nullptr, 0);
    std::printf("MXV_TEST_SEED=%llu (set MXV_TEST_SEED to this value to replay these inputs)\n",
                static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

namespace {

// ---- the input type's grid of non-negative finite values ---------------------------------------
// Keys are the bit patterns (fp32, or bf16's 16 bits), which order non-negative floats; "one ulp"
// is one key step in the input type, so a neighbour of a decision point is a value the kernel can
// actually be handed.
class Grid {
 public:
  explicit Grid(WideType t) : bf16_(t == WideType::kBf16) {}
  std::uint32_t max_key() const { return bf16_ ? 0x7F7Fu : 0x7F7FFFFFu; }
  float value(std::uint32_t key) const {
    return bf16_ ? bf16_to_float(static_cast<std::uint16_t>(key)) : std::bit_cast<float>(key);
  }
  /// Key of the representable value nearest |x| (RNE, like the narrowing the tests apply).
  std::uint32_t key(float x) const {
    x = std::fabs(x);
    if (bf16_) return std::min<std::uint32_t>(float_to_bf16(x), max_key());
    return std::min(std::bit_cast<std::uint32_t>(x), max_key());
  }
  float round(float x) const {
    if (!bf16_ || std::isnan(x)) return x;
    return bf16_to_float(float_to_bf16(x));
  }
  bool bf16() const { return bf16_; }

  /// The smallest key in [lo, hi] whose value satisfies the monotone predicate (false ... true),
  /// or hi when none does.
  template <class Pred>
  std::uint32_t first_true(std::uint32_t lo, std::uint32_t hi, Pred pred) const {
    if (lo > hi) return hi;
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (pred(value(mid))) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

 private:
  bool bf16_;
};

constexpr ValueMix kPlain{false, false, false, false, false, false, false, false};
constexpr std::array<float, 7> kE2m1Codes = {0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
constexpr std::array<float, 7> kE2m1Midpoints = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
// NaN bit patterns: quiet and signalling, both signs, several payloads. The bf16 ones keep their
// payload in the high half (bf16 is fp32's high 16 bits), so narrowing preserves them.
constexpr std::array<std::uint32_t, 6> kFp32Nans = {0x7FC00000u, 0xFFC00000u, 0x7F800001u,
                                                    0xFFBFFFFFu, 0x7FC00001u, 0xFFA5A5A5u};
constexpr std::array<std::uint32_t, 4> kBf16Nans = {0x7FC00000u, 0xFFC00000u, 0x7F810000u, 0xFFC10000u};

class QuantizeAim {
 public:
  QuantizeAim(const Recipe& r, WideType dtype, const ValueMix& mix, Rng& rng)
      : r_(r), grid_(dtype), mix_(mix), rng_(rng) {}

  std::vector<float> tensor(std::int64_t rows, std::int64_t cols) {
    const auto n = static_cast<std::size_t>(rows * cols);
    std::vector<float> v(n, 0.0f);
    choose_tensor_scale();
    const auto block = static_cast<std::int64_t>(r_.block_size);
    for (std::int64_t row = 0; row < rows; ++row) {
      for (std::int64_t c0 = 0; c0 < cols; c0 += block) {
        const std::int64_t len = std::min(block, cols - c0);
        fill_block(&v[static_cast<std::size_t>(row * cols + c0)], static_cast<std::size_t>(len));
      }
    }
    if (r_.is_nvfp4() && n > 0) {  // the anchor that makes the tensor amax exactly G
      v[pick(n)] = sign() * g_;
    }
    return v;
  }

 private:
  std::size_t pick(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }
  bool chance(unsigned percent) { return rng_() % 100 < percent; }
  float sign() { return (rng_() & 1) != 0 ? -1.0f : 1.0f; }

  /// NVFP4: the tensor amax G (everything else stays at or below it), hence s_enc.
  void choose_tensor_scale() {
    if (!r_.is_nvfp4()) {
      g_ = std::numeric_limits<float>::max();
      tensor_ = tensor_scale(r_, 1.0f);
      return;
    }
    if (mix_.extreme_tensor && chance(50)) {
      // 2688 / G overflows fp32 for tiny G and underflows to a subnormal (or 0) for huge G.
      static constexpr std::array<float, 6> kExtreme = {std::numeric_limits<float>::max(), 0x1p127f, 0x1p-149f,
                                                        0x1p-140f, std::numeric_limits<float>::min(), 0x1.8p120f};
      g_ = kExtreme[pick(kExtreme.size())];
    } else {
      g_ = std::ldexp(1.0f + static_cast<float>(rng_() % 1024) / 1024.0f, static_cast<int>(rng_() % 21) - 10);
    }
    g_ = grid_.value(grid_.key(g_));
    if (g_ == 0.0f) g_ = grid_.value(1);
    tensor_ = tensor_scale(r_, g_);
  }

  /// The scale input of a block whose max is `a`.
  float scale_input(float a) const { return choose_block_scale(r_, a, tensor_).scale_input; }

  /// A block maximum A (> 0, <= G), aimed at the scale rounding when asked.
  float block_max() {
    const std::uint32_t gkey = grid_.key(g_);
    if (mix_.scale_thresholds && chance(60)) {
      float target = 0.0f;
      if (r_.is_nvfp4()) {
        // An E4M3 code or the midpoint above it: the scale input where the UE4M3 rounding decides.
        const auto c = static_cast<std::uint8_t>(rng_() % 0x7E);
        const float lo = decode(kE4M3, c), hi = decode(kE4M3, static_cast<std::uint8_t>(c + 1));
        target = chance(50) ? lo + (hi - lo) / 2 : hi;
      } else {
        // A power of two: where floor(log2) (ocp) or the round-up (nvidia) steps.
        target = std::ldexp(1.0f, static_cast<int>(rng_() % 41) - 20);
      }
      if (target > 0.0f && scale_input(g_) >= target) {
        const std::uint32_t k = grid_.first_true(1, gkey, [&](float a) { return scale_input(a) >= target; });
        return neighbour(k, gkey);
      }
    }
    if (!r_.is_nvfp4()) {
      // MX: significands 1, 1.5, 1.75, 1.875 (the E2M1 overflow of the prescaled maximum: 7 and 7.5
      // round to 6 or saturate), at ordinary or extreme binades, +-1 ulp.
      // 1 and 1.5 put the prescaled maximum on the codes 4 and 6 under both rules (the plain mix
      // keeps to those); the others only with scale_thresholds.
      static constexpr std::array<float, 5> kSig = {1.0f, 1.5f, 1.75f, 1.875f, 1.25f};
      int e = static_cast<int>(rng_() % 41) - 20;
      if (mix_.subnormals && chance(10)) e = -149 + static_cast<int>(rng_() % 26);
      if (mix_.huge && chance(10)) e = 100 + static_cast<int>(rng_() % 27);
      const float a = std::ldexp(kSig[pick(mix_.scale_thresholds ? kSig.size() : 2)], e);
      const std::uint32_t k = std::max<std::uint32_t>(grid_.key(a), 1);
      return mix_.scale_thresholds ? neighbour(k, grid_.max_key()) : grid_.value(k);
    }
    // NVFP4: G scaled down by up to 2^24 (scale inputs from 448 down into UE4M3's subnormals and 0).
    const float a = std::ldexp(g_ * (0.5f + static_cast<float>(rng_() % 512) / 1024.0f), -static_cast<int>(rng_() % 25));
    return grid_.value(std::clamp<std::uint32_t>(grid_.key(a), 1, gkey));
  }

  /// key, or one step either side (within [1, limit]).
  float neighbour(std::uint32_t key, std::uint32_t limit) {
    const auto r = rng_() % 3;
    if (r == 1 && key > 1) --key;
    if (r == 2 && key < limit) ++key;
    return grid_.value(key);
  }

  /// Element magnitude <= a whose prescaled value is at (or one ulp around) `target`.
  float aimed_element(const BlockScale& bs, float a, float target, bool neighbours) {
    const std::uint32_t akey = grid_.key(a);
    const std::uint32_t k = grid_.first_true(0, akey, [&](float x) { return prescale(bs, x) >= target; });
    float x = neighbours ? neighbour(k, akey) : grid_.value(k);
    if (mix_.bf16_crossings && !grid_.bf16() && chance(25)) {
      // A few fp32 ulps off: bf16 rounds it back onto the decision point, fp32 keeps it apart.
      static constexpr std::array<std::uint32_t, 5> kUlps = {1, 2, 0x7FFF, 0x8000, 0x8001};
      const std::uint32_t d = kUlps[pick(kUlps.size())];
      const std::uint32_t kx = std::bit_cast<std::uint32_t>(x);
      x = chance(50) ? std::bit_cast<float>(kx + std::min(d, akey > kx ? akey - kx : 0u))
                     : std::bit_cast<float>(kx - std::min(d, kx));
    }
    return std::min(x, a);
  }

  float special() {
    if (chance(30)) return sign() * std::numeric_limits<float>::infinity();
    return grid_.bf16() ? std::bit_cast<float>(kBf16Nans[pick(kBf16Nans.size())])
                        : std::bit_cast<float>(kFp32Nans[pick(kFp32Nans.size())]);
  }

  void fill_block(float* out, std::size_t len) {
    if (mix_.zeros && chance(8)) {  // an all-zero block (the zero-block scale rule)
      for (std::size_t i = 0; i < len; ++i) out[i] = chance(30) ? -0.0f : 0.0f;
      return;
    }
    const float a = block_max();
    const BlockScale bs = choose_block_scale(r_, a, tensor_);
    const bool usable = std::isfinite(bs.factor) && bs.factor > 0.0f;
    const bool one_huge = mix_.huge && chance(8);
    for (std::size_t i = 0; i < len; ++i) out[i] = sign() * element(bs, a, usable, one_huge);
    out[pick(len)] = sign() * a;
    if (mix_.specials && chance(10)) out[pick(len)] = special();
  }

  float element(const BlockScale& bs, float a, bool usable, bool one_huge) {
    if (one_huge) {  // the others far below the maximum: towards zero and subnormal codes
      return grid_.round(std::ldexp(a, -8 - static_cast<int>(rng_() % 33)));
    }
    const auto p = rng_() % 100;
    if (mix_.zeros && p < 8) return chance(40) ? -0.0f : 0.0f;
    if (mix_.subnormals && p < 14) {
      if (chance(50)) return grid_.round(std::ldexp(1.0f + static_cast<float>(rng_() % 64) / 64.0f, -127 - static_cast<int>(rng_() % 22)));
      if (usable) return aimed_element(bs, a, 0.25f * std::ldexp(1.0f, -static_cast<int>(rng_() % 4)), true);
    }
    if (!usable) return grid_.round(a * (static_cast<float>(rng_() % 1000) / 1000.0f));
    if (mix_.midpoints && p < 60) return aimed_element(bs, a, kE2m1Midpoints[pick(kE2m1Midpoints.size())], true);
    if (p < 85 || mix_ == kPlain) return aimed_element(bs, a, kE2m1Codes[pick(kE2m1Codes.size())], false);
    return grid_.round(a * (static_cast<float>(rng_() % 1000) / 1000.0f));
  }

  const Recipe& r_;
  Grid grid_;
  const ValueMix& mix_;
  Rng& rng_;
  float g_ = 1.0f;
  TensorScale tensor_;
};

}  // namespace

std::vector<float> quantize_inputs(const Recipe& recipe, WideType dtype, std::int64_t rows, std::int64_t cols,
                                   const ValueMix& mix, std::uint64_t seed) {
  Rng rng(seed);
  return QuantizeAim(recipe, dtype, mix, rng).tensor(rows, cols);
}

void scale_into_silu_range(std::span<float> values) {
  for (float& x : values) {
    if (std::isfinite(x) && std::fabs(x) < 1e6f) x *= 0.25f;
  }
}

std::vector<float> swiglu_inputs(const Recipe& recipe, WideType dtype, std::int64_t rows, std::int64_t inter,
                                 const ValueMix& mix, std::uint64_t seed) {
  // The background: aimed activations, scaled by 1/4 (exact) into SiLU's interesting range.
  ValueMix background = mix;
  background.extreme_tensor = false;
  std::vector<float> v = quantize_inputs(recipe, dtype, rows, 2 * inter, background, seed);
  scale_into_silu_range(v);
  Rng rng(mix_seed(seed, 0x5A1Cu));
  const Grid grid(dtype);
  const float limit = recipe.limit;
  auto ulp = [&](float x, int dir) {
    const std::uint32_t k = grid.key(x);
    const float y = grid.value(dir > 0 ? k + 1 : (k > 0 ? k - 1 : 0));
    return x < 0 ? -y : y;
  };
  // Gate and up decision points; which columns are gates depends on the layout, so each lands on
  // either role (both matter: the clamp treats the gate one-sided and the up two-sided).
  const std::array<float, 14> points = {0.0f,   -0.0f,  limit, -limit, 88.72284f, -88.72284f, 87.33655f,
                                        -87.33655f, -103.97208f, -20.0f, -1.0f, 1.0f / 1.702f, 30.0f, -60.0f};
  for (float& x : v) {
    if (rng() % 100 >= 12) continue;
    float p = points[static_cast<std::size_t>(rng() % points.size())];
    const auto side = rng() % 3;
    if (side == 1) p = std::fabs(p) == 0.0f ? std::numeric_limits<float>::denorm_min() : ulp(p, -1);
    if (side == 2) p = ulp(p, +1);
    x = grid.round(p < 0 && p > -1e-30f && side != 0 ? -std::fabs(p) : p);
  }
  return v;
}

std::vector<float> bug_hunting_values(std::size_t count, std::size_t block, std::uint64_t seed, bool specials) {
  Rng rng(seed);
  std::uniform_int_distribution<int> pick(0, 999);
  std::uniform_int_distribution<int> binade(-10, 10);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  // E2M1 midpoints and codes (docs/semantics.md section 2.3); E4M3 decision points (464: the
  // satfinite tie above 448; 0x1p-10: half the smallest subnormal).
  static constexpr float kE4m3Points[] = {448.0f, 464.0f, 480.0f, 0x1p-9f, 0x1p-10f, 0x1.8p-10f, 240.0f, 248.0f};
  std::vector<float> v(count);
  for (std::size_t i = 0; i < count; ++i) {
    const int p = pick(rng);
    const float sign = pick(rng) < 500 ? 1.0f : -1.0f;
    const float scale = std::ldexp(1.0f, binade(rng));
    float x = normal(rng) * scale;
    if (p < 40) {
      x = 0.0f;
    } else if (p < 70) {
      x = -0.0f;
    } else if (p < 220) {
      x = sign * kE2m1Midpoints[static_cast<std::size_t>(pick(rng)) % kE2m1Midpoints.size()] * scale;
    } else if (p < 260) {  // a midpoint's fp32 neighbours: the rounding must not see the tie
      const float m = kE2m1Midpoints[static_cast<std::size_t>(pick(rng)) % kE2m1Midpoints.size()] * scale;
      x = sign * std::nextafter(m, pick(rng) < 500 ? 0.0f : INFINITY);
    } else if (p < 340) {
      x = sign * kE2m1Codes[static_cast<std::size_t>(pick(rng)) % kE2m1Codes.size()] * scale;
    } else if (p < 380) {
      x = sign * kE4m3Points[static_cast<std::size_t>(pick(rng)) % std::size(kE4m3Points)];
    } else if (p < 400) {
      x = sign * std::ldexp(1.0f + static_cast<float>(pick(rng)) / 1000.0f, -130 - pick(rng) % 18);  // fp32 subnormal
    } else if (p < 420) {
      x = sign * std::ldexp(1.0f, binade(rng) * 3);  // a power of two
    }
    if (specials && p >= 985) x = p < 990 ? NAN : (p < 995 ? INFINITY : -INFINITY);
    v[i] = x;
  }
  // One huge element in some blocks: the block's other elements fall towards zero or subnormals.
  if (block > 0) {
    for (std::size_t b = 0; b * block < count; ++b) {
      if (pick(rng) < 150) {
        const std::size_t at = b * block + static_cast<std::size_t>(pick(rng)) % std::min(block, count - b * block);
        if (!std::isnan(v[at])) v[at] = std::ldexp(normal(rng) >= 0 ? 1.5f : -1.5f, 20 + pick(rng) % 60);
      }
    }
  }
  return v;
}

WeightInputs weight_inputs(const Recipe& recipe, std::int64_t experts, std::int64_t n, std::int64_t k, Rng& rng,
                           bool edge_scales) {
  WeightInputs in;
  const auto block = static_cast<std::int64_t>(recipe.block_size);
  in.packed.resize(static_cast<std::size_t>(experts * n * k / 2));
  in.scales.resize(static_cast<std::size_t>(experts * n * ((k + block - 1) / block)));
  for (auto& b : in.packed) b = static_cast<std::uint8_t>(rng());
  static constexpr std::uint8_t kUe4m3Edges[] = {0x00, 0x01, 0x07, 0x08, 0x7E, 0x7F};
  static constexpr std::uint8_t kE8m0Edges[] = {0x00, 0x01, 0x7F, 0xFE, 0xFF};
  const bool nv = recipe.is_nvfp4();
  for (auto& b : in.scales) {
    const auto any = static_cast<std::uint8_t>(rng());
    const auto moderate = static_cast<std::uint8_t>(nv ? 0x20 + rng() % 0x40 : 110 + rng() % 30);
    const bool rare = rng() % 8 == 0;
    b = rare ? any : moderate;
    // The edge choice reuses `any`'s low bit, so the sequence without edges is unchanged.
    if (rare && edge_scales && (any & 1) != 0) {
      b = nv ? kUe4m3Edges[(any >> 1) % std::size(kUe4m3Edges)] : kE8m0Edges[(any >> 1) % std::size(kE8m0Edges)];
    }
    if (nv) b &= 0x7F;  // UE4M3: the sign bit is not a scale (the reference rejects it)
  }
  std::uniform_real_distribution<float> u(1e-3f, 1.0f);
  // NVFP4 with edges: one expert in four gets an edge s_dec instead: the tiled kernel's fast-path
  // limit 2^120 and its neighbour below, a huge one, FLT_MAX, and the smallest normal and subnormal.
  static constexpr std::array<float, 6> kSdecEdges = {0x1.fffffep119f, 0x1p120f, 0x1p125f,
                                                      std::numeric_limits<float>::max(), 0x1p-126f, 0x1p-149f};
  for (std::int64_t e = 0; e < experts; ++e) {
    in.s_dec.push_back(u(rng));
    if (edge_scales && nv) {
      const std::uint64_t r = rng();
      if (r % 4 == 0) in.s_dec.back() = kSdecEdges[(r >> 2) % kSdecEdges.size()];
    }
  }
  return in;
}

}  // namespace mxv::fuzz
