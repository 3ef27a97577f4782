// Input generators of the golden catalogue (golden_inputs.h). Portable determinism matters more
// than statistical quality here: a committed file must regenerate byte for byte on any machine, so
// randomness is std::mt19937_64's raw 64-bit output (specified by the standard) turned into values
// with integer arithmetic and std::ldexp (exact), never a std:: distribution.
#include "mxv/golden/golden_inputs.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string_view>

#include "mxv/reference/wide_float.h"

namespace mxv::golden {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// The finite, non-negative values of a format in ascending order (each once: +0 only).
std::vector<float> nonnegative_values(const FloatFormat& f) {
  std::vector<float> v;
  const unsigned codes = 1u << f.bits();
  for (unsigned c = 0; c < codes; ++c) {
    const float x = decode(f, static_cast<std::uint8_t>(c));
    if (std::isfinite(x) && !std::signbit(x)) v.push_back(x);
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

/// A value in [1, 2) with 23 random fraction bits.
float unit_significand(std::uint64_t r) { return 1.0f + std::ldexp(static_cast<float>(r >> 41), -23); }

/// Pushes x with random sign.
float signed_by(std::uint64_t r, float x) { return (r & 1) != 0 ? -x : x; }

/// Narrowed bits of x in `type` (bf16 / fp16 RNE).
std::uint16_t narrow_bits(WideType type, float x) { return type == WideType::kBf16 ? float_to_bf16(x) : float_to_fp16(x); }

}  // namespace

std::vector<float> conversion_probes(const FloatFormat& f) {
  const std::vector<float> values = nonnegative_values(f);
  std::vector<float> pos;
  auto with_neighbours = [&](float x) {
    pos.push_back(x);
    pos.push_back(std::nextafter(x, 0.0f));
    pos.push_back(std::nextafter(x, kInf));
  };
  for (std::size_t i = 0; i < values.size(); ++i) {
    with_neighbours(values[i]);
    // The midpoint of two adjacent values is exact in fp32 (they have at most 4 significant bits).
    if (i + 1 < values.size()) with_neighbours(values[i] + (values[i + 1] - values[i]) / 2);
  }
  // Above the largest value: the midpoint to the next value the format would have (one more step
  // of the top binade's spacing) decides saturation ties (448 -> 464 for E4M3, 6 -> 7 for E2M1).
  const float top = values.back();
  const float step = values.size() > 1 ? top - values[values.size() - 2] : top;
  with_neighbours(top + step / 2);
  with_neighbours(top * 2);
  // Below the smallest non-zero value: its half (the tie with zero) and fp32 subnormals.
  const float smallest = values.front() > 0 ? values.front() : values.at(1);
  with_neighbours(smallest / 2);
  with_neighbours(smallest / 4);
  pos.push_back(std::numeric_limits<float>::denorm_min());
  pos.push_back(std::ldexp(1.5f, -140));
  pos.push_back(std::numeric_limits<float>::min());
  pos.push_back(std::numeric_limits<float>::max());
  pos.push_back(0.0f);
  pos.push_back(kInf);
  std::sort(pos.begin(), pos.end());
  pos.erase(std::unique(pos.begin(), pos.end()), pos.end());
  // Both signs, ascending: the negatives mirrored, then the positives; NaNs of both signs last.
  std::vector<float> out;
  out.reserve(2 * pos.size() + 2);
  for (auto it = pos.rbegin(); it != pos.rend(); ++it) out.push_back(-*it);
  out.insert(out.end(), pos.begin(), pos.end());
  out.push_back(kNaN);
  out.push_back(-kNaN);
  return out;
}

std::vector<std::uint8_t> wide_probes(WideType type, std::span<const float> probes) {
  if (type == WideType::kFp32) {
    std::vector<std::uint8_t> out(probes.size() * 4);
    std::memcpy(out.data(), probes.data(), out.size());
    return out;
  }
  std::vector<std::uint16_t> bits;
  for (const float x : probes) {
    const std::uint16_t b = narrow_bits(type, x);
    bits.push_back(b);
    // Neighbours in the type's own grid: the next bit patterns toward and away from zero (within
    // the same sign); NaN patterns have none worth adding.
    if (std::isnan(x)) continue;
    if ((b & 0x7FFF) != 0) bits.push_back(static_cast<std::uint16_t>(b - 1));
    bits.push_back(static_cast<std::uint16_t>(b + 1));
  }
  // Keep first occurrences, in order.
  std::vector<std::uint16_t> unique;
  std::vector<bool> seen(1u << 16, false);
  for (const std::uint16_t b : bits) {
    if (!seen[b]) unique.push_back(b);
    seen[b] = true;
  }
  std::vector<std::uint8_t> out(unique.size() * 2);
  std::memcpy(out.data(), unique.data(), out.size());
  return out;
}

std::vector<float> quantize_inputs(const Recipe& recipe, std::int64_t rows, std::int64_t cols, std::uint64_t seed,
                                   bool specials) {
  std::mt19937_64 rng(seed);
  const std::vector<float> values = nonnegative_values(recipe.element_format());
  std::vector<float> midpoints;
  for (std::size_t i = 0; i + 1 < values.size(); ++i) midpoints.push_back(values[i] + (values[i + 1] - values[i]) / 2);
  const float emax = recipe.element_max();
  const auto block = static_cast<std::int64_t>(recipe.block_size);
  const std::int64_t blocks_per_row = (cols + block - 1) / block;
  const int kinds = specials ? 6 : 5;
  std::vector<float> x(static_cast<std::size_t>(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t b = 0; b < blocks_per_row; ++b) {
      // Rows shift the cycle, so every column position meets every kind of block.
      const int kind = static_cast<int>((r * 3 + b) % kinds);
      const std::int64_t first = b * block, last = std::min(cols, first + block);
      const int k = static_cast<int>(rng() % 17) - 8;  // the block's binade, 2^-8 .. 2^8
      const auto max_at = first + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(last - first));
      for (std::int64_t c = first; c < last; ++c) {
        const std::uint64_t u = rng();
        float v = 0.0f;
        switch (kind) {
          case 0:  // all zero, both signs
            v = signed_by(u, 0.0f);
            break;
          case 1:  // fp32 subnormals, 2^-149 .. 2^-127
            v = signed_by(u, std::ldexp(unit_significand(u), -127 - static_cast<int>((u >> 8) % 23)));
            break;
          case 2:  // exact midpoints times 2^k, the element maximum once
          case 3:  // the same, one fp32 ulp off each midpoint
            if (c == max_at) {
              v = signed_by(u, std::ldexp(emax, k));
            } else {
              v = std::ldexp(midpoints[(u >> 8) % midpoints.size()], k);
              if (kind == 3) v = std::nextafter(v, (u & 2) != 0 ? 0.0f : kInf);
              v = signed_by(u, v);
            }
            break;
          case 4:  // mixed magnitudes: random significands over 2^-12 .. 2^12, one element huge
            v = signed_by(u, std::ldexp(unit_significand(u), static_cast<int>((u >> 8) % 25) - 12));
            if (c == max_at) v = signed_by(u, std::ldexp(1.5f, 40 + static_cast<int>((u >> 8) % 40)));
            break;
          default:  // specials: NaN and +-Inf among normal values
            v = signed_by(u, std::ldexp(unit_significand(u), static_cast<int>((u >> 8) % 9) - 4));
            if (c == max_at) v = kNaN;
            if ((u >> 20) % 7 == 0) v = signed_by(u >> 1, kInf);
            break;
        }
        x[static_cast<std::size_t>(r * cols + c)] = v;
      }
    }
  }
  return x;
}

std::vector<std::uint8_t> packed_weight_bytes(std::size_t bytes, std::uint64_t seed) {
  std::vector<std::uint8_t> out(bytes);
  // 167 is odd, so i * 167 mod 256 visits every byte value once per 256 bytes.
  for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<std::uint8_t>(i * 167 + seed);
  return out;
}

std::vector<std::uint8_t> scale_code_bytes(const Recipe& recipe, std::size_t count, std::uint64_t seed) {
  const std::size_t codes = recipe.is_nvfp4() ? 128 : 256;
  std::vector<std::uint8_t> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<std::uint8_t>((i * 37 + seed) % codes);
  return out;
}

std::vector<float> swiglu_inputs(std::int64_t rows, std::int64_t inter, std::uint64_t seed, bool specials) {
  std::mt19937_64 rng(seed);
  static constexpr float kEdges[] = {0.0f, 7.0f, 88.7f, 104.0f, 1.0f, 0.5f};
  std::vector<float> x(static_cast<std::size_t>(rows * 2 * inter));
  for (float& v : x) {
    const std::uint64_t u = rng();
    const std::uint64_t pick = (u >> 8) % 100;
    if (pick < 60) {
      v = std::ldexp(unit_significand(u), static_cast<int>((u >> 16) % 8) - 4);  // 2^-4 .. 2^4
    } else if (pick < 80) {
      const float e = kEdges[(u >> 16) % std::size(kEdges)];
      v = (u & 4) != 0 ? std::nextafter(e, (u & 8) != 0 ? 0.0f : kInf) : e;
    } else if (pick < 90) {
      v = std::ldexp(unit_significand(u), -130);  // an fp32 subnormal
    } else if (pick < 97 || !specials) {
      v = std::ldexp(unit_significand(u), static_cast<int>((u >> 16) % 6) + 3);  // 8 .. 512: saturates exp
    } else {
      v = pick < 98 ? kNaN : kInf;
    }
    v = signed_by(u, v);
  }
  return x;
}

std::uint64_t case_seed(std::uint64_t seed, std::string_view name) {
  std::uint64_t h = 1469598103934665603ull;
  for (const char ch : name) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  std::uint64_t z = h ^ (seed + 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace mxv::golden
