// Tests of the convert kernel (device/include/mxv/device/kernels/convert.h, launcher convert.h) on
// every backend (backend_fixture.h): fp32 / bf16 / fp16 -> E4M3, E2M1 (packed pairs),
// E8M0 (toward zero, up) and every code back, compared byte for byte with the reference
// (mxv::encode / mxv::decode) through the check library. The emulator runs a strided sample of
// the 2^32 fp32 inputs and every bf16 / fp16 pattern; the GPU additionally runs all 2^32 fp32
// inputs per format (ConvertExhaustive, cuda cases only; docs/verification.md section 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "backend_fixture.h"
#include "mxv/device/convert.h"
#include "mxv/check/check.h"
#include "mxv/check/gtest.h"
#include "mxv/check/wide_kinds.h"
#include "mxv/reference/float_format.h"
#include "mxv/reference/wide_float.h"

namespace {

using namespace mxv::device;
using mxv::WideType;
using mxv::test::BackendOnlyTest;
using mxv::test::BackendParamTest;
using mxv::test::NoCase;

constexpr std::uint8_t kSentinel = 0xCD;

const mxv::FloatFormat& reference_format(CodeFormat f) {
  return f == CodeFormat::kE4M3 ? mxv::kE4M3 : f == CodeFormat::kE2M1 ? mxv::kE2M1 : mxv::kE8M0;
}

mxv::ConvertMode reference_mode(CodeFormat f) {
  mxv::ConvertMode m;  // nearest-even, satfinite, cuda dialect
  if (f == CodeFormat::kE8M0Rz) m.rounding = mxv::Rounding::kTowardZero;
  if (f == CodeFormat::kE8M0Rp) m.rounding = mxv::Rounding::kUp;
  return m;
}

mxv::check::CodeKind code_kind(CodeFormat f) {
  switch (f) {
    case CodeFormat::kE4M3: return mxv::check::CodeKind::kE4M3;
    case CodeFormat::kE2M1: return mxv::check::CodeKind::kE2M1x2;
    default: return mxv::check::CodeKind::kE8M0;
  }
}

mxv::check::CodeKind wide_kind(WideType t) {
  return t == WideType::kFp32 ? mxv::check::CodeKind::kFp32
         : t == WideType::kBf16 ? mxv::check::CodeKind::kBf16
                                : mxv::check::CodeKind::kFp16;
}

/// The fp32 value of an input bit pattern of type `t` (bf16/fp16 widened by the reference).
float widen(WideType t, std::uint32_t bits) {
  if (t == WideType::kFp32) return std::bit_cast<float>(bits);
  const auto h = static_cast<std::uint16_t>(bits);
  return t == WideType::kBf16 ? mxv::bf16_to_float(h) : mxv::fp16_to_float(h);
}

/// Reference codes for inputs (bit patterns), packed two per byte for E2M1 (element 2i low).
std::vector<std::uint8_t> expected_codes(CodeFormat f, WideType t, const std::vector<std::uint32_t>& bits) {
  std::vector<std::uint8_t> codes(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) {
    codes[i] = mxv::encode(reference_format(f), widen(t, bits[i]), reference_mode(f));
  }
  if (f != CodeFormat::kE2M1) return codes;
  std::vector<std::uint8_t> packed((codes.size() + 1) / 2, 0);
  for (std::size_t i = 0; i < codes.size(); ++i) packed[i / 2] |= static_cast<std::uint8_t>(codes[i] << (4 * (i % 2)));
  return packed;
}

/// Encodes `bits` (as inputs of type t) on the backend; expects the reference's bytes. With
/// `element_path` the launcher's plan runs with `vector` cleared, as for a buffer that is not
/// 16-byte aligned (backend buffers always are): every element takes the per-element path.
void expect_encode_matches(Backend& backend, CodeFormat f, WideType t, const std::vector<std::uint32_t>& bits,
                           bool index_mode, bool element_path = false) {
  const std::uint64_t count = bits.size();
  DeviceBuffer in;
  if (!index_mode) {
    if (t == WideType::kFp32) {
      in = backend.alloc_upload(std::span<const std::uint32_t>(bits), "in");
    } else {
      std::vector<std::uint16_t> h(bits.size());
      for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<std::uint16_t>(bits[i]);
      in = backend.alloc_upload(std::span<const std::uint16_t>(h), "in");
    }
  }
  DeviceBuffer out = backend.alloc(code_bytes(f, count), "codes", kSentinel);
  ConvertArgs a;
  a.direction = ConvertDirection::kEncode;
  a.wide = t;
  a.format = f;
  a.count = count;
  a.in = index_mode ? nullptr : &in;
  a.out = &out;
  a.input_is_index = index_mode;
  a.index_base = index_mode ? bits.front() : 0;
  ConvertLaunch planned = plan_convert(a);
  EXPECT_TRUE(planned.params.vector) << "backend buffers are 16-byte aligned";
  if (element_path) {
    planned.params.vector = false;
    backend.launch(planned.plan, planned.params);
  } else {
    convert(backend, a);
  }
  ASSERT_EQ(backend.launch_log().back().kernel, "convert");
  // 256 threads x 4 lane groups of 16 wide bytes (4 fp32 or 8 bf16/fp16 elements) per block.
  const std::uint64_t per_block = 256 * 4 * (t == WideType::kFp32 ? 4 : 8);
  EXPECT_EQ(planned.plan.grid.x, (count + per_block - 1) / per_block);
  backend.synchronize();

  const std::vector<std::uint8_t> actual = backend.download<std::uint8_t>(out);
  const std::vector<std::uint8_t> expected = expected_codes(f, t, bits);
  const auto spec = f == CodeFormat::kE2M1 ? mxv::check::OutputSpec::packed_e2m1("e2m1", 1, count)
                                           : mxv::check::OutputSpec::tensor(std::string(to_string(f)), code_kind(f), 1, count);
  mxv::check::Context ctx;
  ctx.input_kind = mxv::check::input_kind(t);
  ctx.input_bits = bits;
  mxv::check::Options opt;
  opt.sentinel = kSentinel;
  const auto report = mxv::check::compare(spec, expected, actual, ctx, opt);
  EXPECT_TRUE(mxv::check::matches(report)) << to_string(f) << " from " << to_string(t);
  EXPECT_EQ(backend.guard_damage(out), "");
  if (!index_mode) {
    EXPECT_EQ(backend.guard_damage(in), "");
  }
}

struct EncodeCase {
  CodeFormat format;
  WideType wide;
};

class ConvertEncode : public BackendParamTest<EncodeCase> {};

// fp32: a strided sample of all 2^32 patterns (stride 65537 visits every exponent and sign with
// varied mantissas; MXV_CONVERT_SAMPLE_OFFSET moves it) plus hand-picked specials; bf16 / fp16:
// every pattern, generated in the kernel from the thread index (index mode).
TEST_P(ConvertEncode, MatchesReference) {
  const auto [f, t] = param();
  std::vector<std::uint32_t> bits;
  if (t == WideType::kFp32) {
    std::uint32_t offset = 12345;
    if (const char* e = std::getenv("MXV_CONVERT_SAMPLE_OFFSET")) offset = static_cast<std::uint32_t>(std::strtoul(e, nullptr, 0));
    std::printf("MXV_CONVERT_SAMPLE_OFFSET=%u (stride 65537)\n", offset);
    for (std::uint64_t b = offset; b < (std::uint64_t{1} << 32); b += 65537) bits.push_back(static_cast<std::uint32_t>(b));
    for (float x : {0.0f, -0.0f, 448.0f, 464.0f, -464.0f, 480.0f, 6.0f, 5.0f, 0.25f, 0.75f, 2.5f, 3.5f, 0x1p-10f,
                    0x1p-127f, 0x1p-126f, 0x1p127f, 3e38f, INFINITY, -INFINITY, NAN, -NAN}) {
      bits.push_back(std::bit_cast<std::uint32_t>(x));
    }
    bits.push_back(0x00400001u);  // just above 2^-127: E8M0 RP -> 0x01
    bits.push_back(0x7F000001u);  // just above 2^127: E8M0 RP saturates to 0xFE
    expect_encode_matches(backend(), f, t, bits, /*index_mode=*/false);
  } else {
    for (std::uint32_t b = 0; b < 0x10000u; ++b) bits.push_back(b);
    expect_encode_matches(backend(), f, t, bits, /*index_mode=*/true);
  }
}

// An odd count: the last E2M1 byte holds one element and a zero high nibble.
TEST_P(ConvertEncode, OddCountFromMemory) {
  const auto [f, t] = param();
  std::vector<std::uint32_t> bits;
  for (std::uint32_t i = 0; i < 301; ++i) {
    const float x = static_cast<float>(i) * 0.37f - 50.0f;
    bits.push_back(t == WideType::kFp32 ? std::bit_cast<std::uint32_t>(x)
                   : t == WideType::kBf16 ? mxv::float_to_bf16(x)
                                          : mxv::float_to_fp16(x));
  }
  expect_encode_matches(backend(), f, t, bits, /*index_mode=*/false);
}

// The per-element path on its own (the vector path off): an odd count of bit patterns spread
// over every exponent and sign.
TEST_P(ConvertEncode, ElementPathMatchesReference) {
  const auto [f, t] = param();
  std::vector<std::uint32_t> bits;
  for (std::uint32_t i = 0; i < 1001; ++i) {
    const std::uint32_t pattern = i * 0x9E3779B1u;  // spread over exponents and signs
    bits.push_back(t == WideType::kFp32 ? pattern : pattern >> 16);
  }
  expect_encode_matches(backend(), f, t, bits, /*index_mode=*/false, /*element_path=*/true);
}

std::vector<EncodeCase> all_encode_cases() {
  std::vector<EncodeCase> v;
  for (CodeFormat f : {CodeFormat::kE4M3, CodeFormat::kE2M1, CodeFormat::kE8M0Rz, CodeFormat::kE8M0Rp}) {
    for (WideType t : {WideType::kFp32, WideType::kBf16, WideType::kFp16}) v.push_back({f, t});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(AllFormats, ConvertEncode,
                         ::testing::Combine(mxv::test::all_backends(), ::testing::ValuesIn(all_encode_cases())),
                         mxv::test::backend_case_names([](const EncodeCase& c) {
                           return std::string(to_string(c.format)) + "_from_" + std::string(to_string(c.wide));
                         }));

class ConvertDecode : public BackendParamTest<EncodeCase> {};

/// Decodes `count` codes (byte i = i mod 256, so every code, both nibbles for E2M1) on the
/// backend and expects the reference's values: fp32 exactly, bf16 / fp16 rounded once.
/// `element_path` as in expect_encode_matches.
void expect_decode_matches(Backend& backend, CodeFormat f, WideType t, std::uint64_t count, bool element_path) {
  std::vector<std::uint8_t> codes(code_bytes(f, count));
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<std::uint8_t>(i);
  DeviceBuffer in = backend.alloc_upload(std::span<const std::uint8_t>(codes), "codes");
  DeviceBuffer out = backend.alloc(count * bytes_of(t), "wide", kSentinel);
  ConvertArgs a;
  a.direction = ConvertDirection::kDecode;
  a.wide = t;
  a.format = f;
  a.count = count;
  a.in = &in;
  a.out = &out;
  ConvertLaunch planned = plan_convert(a);
  planned.params.vector = !element_path;
  backend.launch(planned.plan, planned.params);
  backend.synchronize();

  std::vector<float> values(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint8_t code = f == CodeFormat::kE2M1 ? static_cast<std::uint8_t>((codes[i / 2] >> (4 * (i % 2))) & 0xF)
                                                     : codes[i];
    values[i] = mxv::decode(reference_format(f), code);
  }
  std::vector<std::uint8_t> expected(count * bytes_of(t));
  for (std::uint64_t i = 0; i < count; ++i) {
    if (t == WideType::kFp32) {
      std::memcpy(&expected[4 * i], &values[i], 4);
    } else {
      const std::uint16_t h = t == WideType::kBf16 ? mxv::float_to_bf16(values[i]) : mxv::float_to_fp16(values[i]);
      std::memcpy(&expected[2 * i], &h, 2);
    }
  }
  const auto actual = backend.download<std::uint8_t>(out);
  mxv::check::Options opt;
  opt.sentinel = kSentinel;
  const auto report = mxv::check::compare(mxv::check::OutputSpec::tensor("decoded", wide_kind(t), 1, count),
                                          expected, actual, {}, opt);
  EXPECT_TRUE(mxv::check::matches(report)) << to_string(f) << " to " << to_string(t);
  EXPECT_EQ(backend.guard_damage(out), "");
  EXPECT_EQ(backend.guard_damage(in), "");
}

TEST_P(ConvertDecode, EveryCodeMatchesReference) {
  const auto [f, t] = param();
  expect_decode_matches(backend(), f, t, f == CodeFormat::kE2M1 ? 512 : 256, /*element_path=*/false);
}

// An odd count that is no multiple of a lane group (4 fp32 / 8 bf16, fp16 elements): the last
// group takes the per-element path, and the last E2M1 byte's high nibble writes nothing.
TEST_P(ConvertDecode, OddCountMatchesReference) {
  const auto [f, t] = param();
  expect_decode_matches(backend(), f, t, 301, /*element_path=*/false);
}

TEST_P(ConvertDecode, ElementPathMatchesReference) {
  const auto [f, t] = param();
  expect_decode_matches(backend(), f, t, 301, /*element_path=*/true);
}

std::vector<EncodeCase> decode_cases() {
  std::vector<EncodeCase> v;
  for (CodeFormat f : {CodeFormat::kE4M3, CodeFormat::kE2M1, CodeFormat::kE8M0Rz}) {
    for (WideType t : {WideType::kFp32, WideType::kBf16, WideType::kFp16}) v.push_back({f, t});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(AllFormats, ConvertDecode,
                         ::testing::Combine(mxv::test::all_backends(), ::testing::ValuesIn(decode_cases())),
                         mxv::test::backend_case_names([](const EncodeCase& c) {
                           return std::string(to_string(c.format)) + "_to_" + std::string(to_string(c.wide));
                         }));

// Coalescing (emulator): fp32 -> E4M3 and -> E2M1 over two full blocks (2 x 4096 elements). Per
// warp and step, 32 lanes load 16 contiguous bytes each (512 bytes, 16 sectors) and store their
// 4 codes (4 bytes per lane: 128 bytes, 4 sectors) or 2 packed E2M1 bytes (64 bytes, 2 sectors),
// so every sector a request touches is used whole. 2 blocks x 8 warps x 4 steps = 64 requests of
// each kind.
class ConvertCoalescing : public BackendOnlyTest {};

TEST_P(ConvertCoalescing, EveryRequestUsesWholeSectors) {
  constexpr std::uint64_t kCount = 2 * 4096;
  const std::vector<float> x(kCount, 1.5f);
  DeviceBuffer in = backend().alloc_upload(std::span<const float>(x), "in");
  DeviceBuffer out = backend().alloc(kCount, "codes");
  for (CodeFormat f : {CodeFormat::kE4M3, CodeFormat::kE2M1}) {
    ConvertArgs a;
    a.format = f;
    a.count = kCount;
    a.in = &in;
    a.out = &out;
    emulated()->reset_coalescing();
    convert(backend(), a);
    ASSERT_TRUE(backend().take_findings().empty());
    const mxv::emu::CoalescingReport r = emulated()->coalescing("convert");
    EXPECT_EQ(r.loads.requests, 64u) << r.to_string();
    EXPECT_EQ(r.loads.sectors, 64u * 16) << r.to_string();
    EXPECT_EQ(r.stores.requests, 64u) << r.to_string();
    EXPECT_EQ(r.stores.sectors, 64u * (f == CodeFormat::kE4M3 ? 4 : 2)) << r.to_string();
    EXPECT_DOUBLE_EQ(r.loads.efficiency(), 1.0) << r.to_string();
    EXPECT_DOUBLE_EQ(r.stores.efficiency(), 1.0) << r.to_string();
  }
}

INSTANTIATE_TEST_SUITE_P(Emulator, ConvertCoalescing,
                         ::testing::Combine(::testing::Values(BackendKind::kEmulated), ::testing::Values(NoCase{})),
                         mxv::test::backend_only_names());

// Bad arguments are rejected on the host, naming the argument; nothing is launched.
class ConvertArguments : public BackendOnlyTest {};

TEST_P(ConvertArguments, RejectedOnTheHost) {
  DeviceBuffer small = backend().alloc(8, "small");
  DeviceBuffer out = backend().alloc(64, "out");
  ConvertArgs a;
  a.count = 16;
  a.in = &small;  // 16 fp32 need 64 bytes
  a.out = &out;
  EXPECT_THROW(convert(backend(), a), std::invalid_argument);
  a.count = 0;
  EXPECT_THROW(convert(backend(), a), std::invalid_argument);
  a.count = 2;
  a.direction = ConvertDirection::kDecode;
  a.input_is_index = true;
  EXPECT_THROW(convert(backend(), a), std::invalid_argument);
  a.direction = ConvertDirection::kEncode;
  a.wide = WideType::kBf16;
  a.index_base = 0xFFFF;  // 0xFFFF + 2 > 2^16 patterns
  EXPECT_THROW(convert(backend(), a), std::invalid_argument);
  try {
    a.input_is_index = false;
    a.in = nullptr;
    convert(backend(), a);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("in"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(backend().launch_log().empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, ConvertArguments, ::testing::Combine(mxv::test::all_backends(), ::testing::Values(NoCase{})),
                         mxv::test::backend_only_names());

// Every fp32 input, per format, against the reference: 16 launches of 2^28 inputs (index mode,
// no input traffic). The reference side runs on all host cores; a mismatching chunk is handed to
// the check library around its first difference so the failure message explains it.
class ConvertExhaustive : public BackendParamTest<CodeFormat> {};

TEST_P(ConvertExhaustive, AllFp32Inputs) {
  const CodeFormat f = param();
  constexpr std::uint64_t kChunk = std::uint64_t{1} << 28;
  const auto t0 = std::chrono::steady_clock::now();
  DeviceBuffer out = backend().alloc(code_bytes(f, kChunk), "codes", kSentinel);
  std::vector<std::uint8_t> codes(kChunk), expected(code_bytes(f, kChunk));
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  for (std::uint64_t base = 0; base < (std::uint64_t{1} << 32); base += kChunk) {
    ConvertArgs a;
    a.format = f;
    a.count = kChunk;
    a.out = &out;
    a.input_is_index = true;
    a.index_base = static_cast<std::uint32_t>(base);
    convert(backend(), a);
    // Reference on the host while the GPU runs.
    std::vector<std::thread> pool;
    const std::uint64_t per = kChunk / threads + 1;
    for (unsigned w = 0; w < threads; ++w) {
      pool.emplace_back([&, w] {
        const std::uint64_t lo = std::min<std::uint64_t>(kChunk, w * per), hi = std::min<std::uint64_t>(kChunk, lo + per);
        if (lo >= hi) return;
        mxv::encode_fp32_pattern_range(reference_format(f), static_cast<std::uint32_t>(base + lo),
                                       std::span<std::uint8_t>(codes.data() + lo, hi - lo), reference_mode(f));
      });
    }
    for (auto& th : pool) th.join();
    if (f == CodeFormat::kE2M1) {
      for (std::uint64_t i = 0; i < kChunk / 2; ++i) expected[i] = static_cast<std::uint8_t>(codes[2 * i] | (codes[2 * i + 1] << 4));
    } else {
      std::memcpy(expected.data(), codes.data(), kChunk);
    }
    backend().synchronize();
    const auto actual = backend().download<std::uint8_t>(out);
    const auto diff = std::mismatch(expected.begin(), expected.end(), actual.begin());
    if (diff.first != expected.end()) {
      // Explain 4096 bytes around the first difference.
      const std::size_t at = static_cast<std::size_t>(diff.first - expected.begin());
      const std::size_t lo = at - std::min<std::size_t>(at, 64), n = std::min<std::size_t>(4096, expected.size() - lo);
      const std::uint64_t elems = f == CodeFormat::kE2M1 ? 2 * n : n;
      std::vector<std::uint32_t> bits(elems);
      const std::uint64_t first = base + (f == CodeFormat::kE2M1 ? 2 * lo : lo);
      for (std::uint64_t i = 0; i < elems; ++i) bits[i] = static_cast<std::uint32_t>(first + i);
      const auto spec = f == CodeFormat::kE2M1 ? mxv::check::OutputSpec::packed_e2m1("e2m1", 1, elems)
                                               : mxv::check::OutputSpec::tensor("codes", code_kind(f), 1, elems);
      mxv::check::Context ctx;
      ctx.input_kind = mxv::check::InputKind::kFp32;
      ctx.input_bits = bits;
      const auto report = mxv::check::compare(spec, std::span(expected).subspan(lo, n), std::span(actual).subspan(lo, n), ctx);
      FAIL() << to_string(f) << ": chunk at input 0x" << std::hex << base << " differs; report of the first "
             << std::dec << elems << " inputs from 0x" << std::hex << first << ":\n" << report.text();
    }
  }
  EXPECT_EQ(backend().guard_damage(out), "");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: all 2^32 fp32 inputs equal the reference (%.1f s, %u host threads)\n",
              std::string(to_string(f)).c_str(), s, threads);
}

// GPU only: the emulator covers the same space by the strided sample of ConvertEncode.
INSTANTIATE_TEST_SUITE_P(AllFormats, ConvertExhaustive,
                         ::testing::Combine(::testing::Values(BackendKind::kCuda),
                                            ::testing::Values(CodeFormat::kE4M3, CodeFormat::kE2M1,
                                                              CodeFormat::kE8M0Rz, CodeFormat::kE8M0Rp)),
                         mxv::test::backend_case_names([](CodeFormat c) { return std::string(to_string(c)); }));

}  // namespace
