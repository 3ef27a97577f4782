// The runtime conversion API of float_format.h: mode validation, dispatch of a (format, mode)
// chosen at run time to the generic encoder instantiated for it (small_float.h), decode by
// table lookup, and the names the CLI and file formats use. Rules: docs/semantics.md sections 1-3.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "mxv/io/enum_names.h"
#include "mxv/reference/float_format.h"
#include "mxv/reference/small_float.h"
#include "mxv/reference/wide_float.h"

namespace mxv {
namespace {

constexpr std::array<const FloatFormat*, 4> kFormats{&kE2M1, &kE4M3, &kUE4M3, &kE8M0};
constexpr int kRoundings = 3;
constexpr int kSaturations = 2;
constexpr int kDialects = 5;

// One instantiated converter per supported (format, mode).
struct Converter {
  std::uint8_t (*one)(std::uint32_t bits);
  void (*fp32)(const float* in, std::uint8_t* out, std::size_t n);
  void (*bf16)(const std::uint16_t* in, std::uint8_t* out, std::size_t n);
  void (*fp16)(const std::uint16_t* in, std::uint8_t* out, std::size_t n);
  void (*range)(std::uint32_t first, std::uint8_t* out, std::size_t n);
};

// The batch loops are branch-free per element (small_float.h), so the compiler vectorises them;
// the per-lane variable shift of the subnormal range needs AVX2 (vpsrlvd), which x86-64 baseline
// (SSE2) lacks. target_clones builds an AVX-512, an AVX2 and a baseline copy of encode_blocks
// (the function holding the loops: a clone only helps code inlined into it) and picks one at load
// time. The AVX-512 copy runs 16 lanes per instruction where AVX2 runs 8 (BENCHMARKS.md,
// "formats", for the measured gain).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MXV_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MXV_VECTOR_CLONES
#endif

// Encodes n inputs, load(i) giving the fp32 bits of input i, in blocks through a 32-bit buffer.
// Why: a vectoriser sizes its vectors by the narrowest type in a loop, so a loop that writes the
// code bytes directly processes 32 lanes (four AVX2 registers of 32-bit values) per iteration
// and spills its temporaries; the 32-bit block keeps the encode at 8 lanes, and a second loop
// narrows the block to bytes (about +15-25% on encode_bench, BENCHMARKS.md "formats").
template <detail::EncodeRules R, class Load>
MXV_VECTOR_CLONES void encode_blocks(Load load, std::uint8_t* out, std::size_t n) {
  constexpr std::size_t kBlock = 256;
  std::uint32_t codes[kBlock];
  for (std::size_t first = 0; first < n; first += kBlock) {
    const std::size_t m = std::min(kBlock, n - first);
    for (std::size_t i = 0; i < m; ++i) codes[i] = detail::encode_bits<R>(load(first + i));
    for (std::size_t i = 0; i < m; ++i) out[first + i] = static_cast<std::uint8_t>(codes[i]);
  }
}

template <detail::EncodeRules R>
void encode_fp32_loop(const float* in, std::uint8_t* out, std::size_t n) {
  encode_blocks<R>([in](std::size_t i) { return std::bit_cast<std::uint32_t>(in[i]); }, out, n);
}

// bf16 widens to fp32 by a shift (exact).
template <detail::EncodeRules R>
void encode_bf16_loop(const std::uint16_t* in, std::uint8_t* out,
                                        std::size_t n) {
  encode_blocks<R>([in](std::size_t i) { return std::uint32_t{in[i]} << 16; }, out, n);
}

template <detail::EncodeRules R>
void encode_range_loop(std::uint32_t first, std::uint8_t* out, std::size_t n) {
  encode_blocks<R>([first](std::size_t i) { return first + static_cast<std::uint32_t>(i); }, out,
                   n);
}

template <const FloatFormat& F, Rounding R, Saturation S, Dialect D>
struct Instance {
  static constexpr detail::EncodeRules kRules = detail::rules_for(F, ConvertMode{R, S, D});
  static std::uint8_t one(std::uint32_t bits) { return detail::encode_bits<kRules>(bits); }
  // fp16 widens exactly through wide_float.h, then encodes.
  static void fp16(const std::uint16_t* in, std::uint8_t* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = detail::encode_bits<kRules>(std::bit_cast<std::uint32_t>(fp16_to_float(in[i])));
    }
  }
};

constexpr int index_of(int f, int r, int s, int d) {
  return ((f * kRoundings + r) * kSaturations + s) * kDialects + d;
}

template <int I>
constexpr Converter converter_at() {
  constexpr int d = I % kDialects;
  constexpr int s = (I / kDialects) % kSaturations;
  constexpr int r = (I / (kDialects * kSaturations)) % kRoundings;
  constexpr int f = I / (kDialects * kSaturations * kRoundings);
  constexpr ConvertMode mode{static_cast<Rounding>(r), static_cast<Saturation>(s),
                             static_cast<Dialect>(d)};
  if constexpr (supports(*kFormats[f], mode)) {
    using In = Instance<*kFormats[f], mode.rounding, mode.saturation, mode.dialect>;
    return Converter{&In::one, &encode_fp32_loop<In::kRules>, &encode_bf16_loop<In::kRules>,
                     &In::fp16, &encode_range_loop<In::kRules>};
  } else {
    return Converter{nullptr, nullptr, nullptr, nullptr, nullptr};
  }
}

template <std::size_t... I>
constexpr auto make_table(std::index_sequence<I...>) {
  return std::array<Converter, sizeof...(I)>{converter_at<static_cast<int>(I)>()...};
}
constexpr auto kTable =
    make_table(std::make_index_sequence<kFormats.size() * kRoundings * kSaturations * kDialects>{});

int format_index(const FloatFormat& format) {
  for (std::size_t i = 0; i < kFormats.size(); ++i) {
    if (*kFormats[i] == format) return static_cast<int>(i);
  }
  throw std::invalid_argument("format: '" + std::string(format.name) +
                              "' is not one of the declared formats e2m1, e4m3, ue4m3, e8m0");
}

const Converter& converter(const FloatFormat& format, ConvertMode mode) {
  validate(format, mode);
  return kTable[static_cast<std::size_t>(
      index_of(format_index(format), static_cast<int>(mode.rounding),
               static_cast<int>(mode.saturation), static_cast<int>(mode.dialect)))];
}

void check_sizes(std::size_t in, std::size_t out) {
  if (out < in) {
    throw std::invalid_argument("out: holds " + std::to_string(out) + " codes, fewer than the " +
                                std::to_string(in) + " inputs");
  }
}

// Decode tables, built once from the traits (decode_value is constexpr and exact).
struct DecodeTable {
  std::array<float, 256> value{};
  std::array<bool, 256> valid{};
};

constexpr DecodeTable make_decode_table(const FloatFormat& format) {
  DecodeTable t;
  for (int c = 0; c < 256; ++c) {
    const bool wider = (c >> format.bits()) != 0;
    t.valid[static_cast<std::size_t>(c)] = !wider;
    t.value[static_cast<std::size_t>(c)] = decode_value(format, static_cast<std::uint8_t>(c));
  }
  return t;
}
constexpr std::array<DecodeTable, 4> kDecode{make_decode_table(kE2M1), make_decode_table(kE4M3),
                                             make_decode_table(kUE4M3), make_decode_table(kE8M0)};

[[noreturn]] void throw_bad_code(const FloatFormat& format, std::uint8_t code,
                                 const std::string& where) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", code);
  throw std::invalid_argument("code" + where + ": " + hex + " is not a " +
                              std::string(format.name) + " code (" +
                              std::to_string(format.bits()) + " bits" +
                              (format.is_signed ? "" : ", no sign bit") + ")");
}

void check_dialect(Dialect d) {
  if (static_cast<int>(d) >= kDialects) {
    throw std::invalid_argument(
        "dialect: not one of cuda, ml_dtypes, ml_dtypes@0.6, torch, torch@2.11");
  }
}

}  // namespace

void validate(const FloatFormat& format, ConvertMode mode) {
  format_index(format);
  if (static_cast<int>(mode.rounding) >= kRoundings) {
    throw std::invalid_argument("mode.rounding: not one of nearest-even, toward-zero, up");
  }
  if (static_cast<int>(mode.saturation) >= kSaturations) {
    throw std::invalid_argument("mode.saturation: not one of finite, none");
  }
  check_dialect(mode.dialect);
  if (const char* why = detail::unsupported_reason(format, mode)) {
    throw std::invalid_argument("mode: " + std::string(format.name) + " with rounding " +
                                std::string(to_string(mode.rounding)) + ", saturation " +
                                std::string(to_string(mode.saturation)) + ", dialect " +
                                std::string(to_string(mode.dialect)) +
                                " is not supported: " + why);
  }
}

std::uint8_t encode(const FloatFormat& format, float x, ConvertMode mode) {
  return converter(format, mode).one(std::bit_cast<std::uint32_t>(x));
}

std::uint8_t encode_bf16(const FloatFormat& format, std::uint16_t bits, ConvertMode mode) {
  return converter(format, mode).one(std::uint32_t{bits} << 16);
}

std::uint8_t encode_fp16(const FloatFormat& format, std::uint16_t bits, ConvertMode mode) {
  return converter(format, mode).one(std::bit_cast<std::uint32_t>(fp16_to_float(bits)));
}

void encode(const FloatFormat& format, std::span<const float> in, std::span<std::uint8_t> out,
            ConvertMode mode) {
  const Converter& c = converter(format, mode);
  check_sizes(in.size(), out.size());
  c.fp32(in.data(), out.data(), in.size());
}

void encode_bf16(const FloatFormat& format, std::span<const std::uint16_t> in,
                 std::span<std::uint8_t> out, ConvertMode mode) {
  const Converter& c = converter(format, mode);
  check_sizes(in.size(), out.size());
  c.bf16(in.data(), out.data(), in.size());
}

void encode_fp16(const FloatFormat& format, std::span<const std::uint16_t> in,
                 std::span<std::uint8_t> out, ConvertMode mode) {
  const Converter& c = converter(format, mode);
  check_sizes(in.size(), out.size());
  c.fp16(in.data(), out.data(), in.size());
}

void encode_fp32_pattern_range(const FloatFormat& format, std::uint32_t first,
                               std::span<std::uint8_t> out, ConvertMode mode) {
  const Converter& c = converter(format, mode);
  if (out.size() > std::size_t{0x1'0000'0000} - first) {
    throw std::invalid_argument("out: " + std::to_string(out.size()) +
                                " patterns from first = " + std::to_string(first) +
                                " run past 0xFFFFFFFF");
  }
  c.range(first, out.data(), out.size());
}

float decode(const FloatFormat& format, std::uint8_t code, Dialect dialect) {
  check_dialect(dialect);
  const DecodeTable& t = kDecode[static_cast<std::size_t>(format_index(format))];
  if (!t.valid[code]) throw_bad_code(format, code, "");
  return t.value[code];
}

void decode(const FloatFormat& format, std::span<const std::uint8_t> in, std::span<float> out,
            Dialect dialect) {
  check_dialect(dialect);
  if (out.size() < in.size()) {
    throw std::invalid_argument("out: holds " + std::to_string(out.size()) +
                                " values, fewer than the " + std::to_string(in.size()) + " codes");
  }
  const DecodeTable& t = kDecode[static_cast<std::size_t>(format_index(format))];
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!t.valid[in[i]]) {
      std::string where = "[";  // built in steps: GCC 12 -O3 misreports "[" + s as -Wrestrict
      where += std::to_string(i);
      where += ']';
      throw_bad_code(format, in[i], where);
    }
    out[i] = t.value[in[i]];
  }
}

const FloatFormat& format_by_name(std::string_view name) {
  for (const FloatFormat* f : kFormats) {
    if (f->name == name) return *f;
  }
  throw std::invalid_argument("format: '" + std::string(name) +
                              "' is not one of e2m1, e4m3, ue4m3, e8m0");
}

Rounding rounding_by_name(std::string_view name) {
  for (int i = 0; i < kRoundings; ++i) {
    if (to_string(static_cast<Rounding>(i)) == name) return static_cast<Rounding>(i);
  }
  throw std::invalid_argument("rounding: '" + std::string(name) +
                              "' is not one of nearest-even, toward-zero, up");
}

Saturation saturation_by_name(std::string_view name) {
  for (int i = 0; i < kSaturations; ++i) {
    if (to_string(static_cast<Saturation>(i)) == name) return static_cast<Saturation>(i);
  }
  throw std::invalid_argument("saturation: '" + std::string(name) +
                              "' is not one of finite, none");
}

Dialect dialect_by_name(std::string_view name) {
  for (int i = 0; i < kDialects; ++i) {
    if (to_string(static_cast<Dialect>(i)) == name) return static_cast<Dialect>(i);
  }
  // The unversioned names are the newest releases modelled; their versioned names say which.
  if (name == "torch@2.15") return Dialect::kTorch;
  if (name == "ml_dtypes@0.7") return Dialect::kMlDtypes;
  throw std::invalid_argument("dialect: '" + std::string(name) +
                              "' is not one of cuda, ml_dtypes (= ml_dtypes@0.7), ml_dtypes@0.6, "
                              "torch (= torch@2.15), torch@2.11");
}

std::string_view to_string(Rounding r) {
  return io::enum_name(r, {"nearest-even", "toward-zero", "up"});
}

std::string_view to_string(Saturation s) {
  return io::enum_name(s, {"finite", "none"});
}

std::string_view to_string(Dialect d) {
  return io::enum_name(d, {"cuda", "ml_dtypes", "torch", "torch@2.11", "ml_dtypes@0.6"});
}

}  // namespace mxv
