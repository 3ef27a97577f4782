// Exhaustive oracle test: the mxv format models (cuda dialect) against the CUDA 13.0 header host
// functions (cuda_fp8.hpp __nv_cvt_float_to_fp8 / __nv_cvt_float_to_e8m0, cuda_fp4.hpp
// __nv_cvt_float_to_fp4, and their bf16 / half variants) over ALL 2^32 fp32 bit patterns, every
// mode of the cuda dialect (docs/semantics.md section 2), and all 2^16 bf16 and fp16 patterns.
// The headers are an independent implementation that plain g++ compiles; this is the only
// target allowed to include them (the reference never does). Without them every test skips.
// Both cores: each sweep is split over std::thread::hardware_concurrency() threads (>= 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cctype>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mxv/reference/float_format.h"

#if MXV_HAVE_CUDA_FP_HEADERS
#include <cuda_fp4.h>
#include <cuda_fp8.h>
#endif

namespace mxv {
namespace {

struct Mismatch {
  std::uint32_t input;
  unsigned expected;  // oracle (header)
  unsigned actual;    // mxv
};

struct SweepResult {
  std::uint64_t mismatches = 0;
  std::vector<Mismatch> first;  // the lowest few inputs that differ
};

using Oracle = std::uint8_t (*)(std::uint32_t);  // a plain pointer: no std::function per call
using Model = std::function<void(std::uint32_t first, std::span<std::uint8_t> out)>;

/// Compares model and oracle on the patterns [begin, end) (end <= 2^32), chunk by chunk on
/// `threads` threads, keeping the 8 lowest mismatching inputs.
template <class OracleFn>
SweepResult sweep(const Model& model, OracleFn oracle, std::uint64_t begin, std::uint64_t end,
                  unsigned threads) {
  constexpr std::uint64_t kChunk = 1u << 20;
  std::atomic<std::uint64_t> next{begin};
  std::mutex mu;
  SweepResult result;
  auto worker = [&] {
    std::vector<std::uint8_t> got(kChunk);
    SweepResult local;
    for (;;) {
      const std::uint64_t lo = next.fetch_add(kChunk);
      if (lo >= end) break;
      const std::uint64_t n = std::min(kChunk, end - lo);
      const std::span<std::uint8_t> out(got.data(), n);
      model(static_cast<std::uint32_t>(lo), out);
      for (std::uint64_t i = 0; i < n; ++i) {
        const auto x = static_cast<std::uint32_t>(lo + i);
        const std::uint8_t want = oracle(x);
        if (want != out[i]) {
          ++local.mismatches;
          if (local.first.size() < 8) local.first.push_back({x, want, out[i]});
        }
      }
    }
    const std::lock_guard<std::mutex> lock(mu);
    result.mismatches += local.mismatches;
    result.first.insert(result.first.end(), local.first.begin(), local.first.end());
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  std::sort(result.first.begin(), result.first.end(),
            [](const Mismatch& a, const Mismatch& b) { return a.input < b.input; });
  if (result.first.size() > 8) result.first.resize(8);
  return result;
}

unsigned thread_count() { return std::max(2u, std::thread::hardware_concurrency()); }

std::string describe(const SweepResult& r, const char* input_kind) {
  std::string s = std::to_string(r.mismatches) + " mismatches; first inputs:";
  for (const Mismatch& m : r.first) {
    char line[128];
    if (std::string(input_kind) == "fp32") {
      std::snprintf(line, sizeof line, "\n  %s 0x%08X (%.9g): header 0x%02X, mxv 0x%02X",
                    input_kind, m.input, static_cast<double>(std::bit_cast<float>(m.input)),
                    m.expected, m.actual);
    } else {
      std::snprintf(line, sizeof line, "\n  %s 0x%04X: header 0x%02X, mxv 0x%02X", input_kind,
                    m.input, m.expected, m.actual);
    }
    s += line;
  }
  return s;
}

Model fp32_model(const FloatFormat& f, ConvertMode mode) {
  return [&f, mode](std::uint32_t first, std::span<std::uint8_t> out) {
    encode_fp32_pattern_range(f, first, out, mode);
  };
}

// ---- The checker itself must be able to fail: a planted bug (RNE checked against RZ) ------

TEST(CudaHeaderSweep, PlantedBugIsFoundAndReported) {
  // Oracle: an E2M1 toward-zero conversion written here by its intervals (no headers needed);
  // model: the nearest-even conversion. They differ on the upper half of every interval.
  const auto rz_by_hand = [](std::uint32_t b) -> std::uint8_t {
    const float x = std::bit_cast<float>(b);
    const float a = x < 0 ? -x : x;
    const std::uint8_t s = (b >> 31) != 0 ? 0x8 : 0x0;
    const float v[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
    std::uint8_t c = 0;
    while (c < 7 && v[c + 1] <= a) ++c;
    return static_cast<std::uint8_t>(c | s);
  };
  const ConvertMode rne{Rounding::kNearestEven, Saturation::kFinite, Dialect::kCuda};
  const SweepResult planted =
      sweep(fp32_model(kE2M1, rne), rz_by_hand, 0x3F00'0000u, 0x4100'0000u, thread_count());
  EXPECT_GT(planted.mismatches, 0u);
  ASSERT_FALSE(planted.first.empty());
  const std::string text = describe(planted, "fp32");
  EXPECT_NE(text.find("header 0x"), std::string::npos) << text;
  // And the honest pairing passes on the same range.
  const ConvertMode rz{Rounding::kTowardZero, Saturation::kFinite, Dialect::kCuda};
  const SweepResult honest =
      sweep(fp32_model(kE2M1, rz), rz_by_hand, 0x3F00'0000u, 0x4100'0000u, thread_count());
  EXPECT_EQ(honest.mismatches, 0u) << describe(honest, "fp32");
}

#if MXV_HAVE_CUDA_FP_HEADERS

struct FullCase {
  const char* name;
  const FloatFormat* format;
  ConvertMode mode;
  Oracle oracle;
  std::uint64_t begin = 0;
  std::uint64_t end = std::uint64_t{1} << 32;
};

std::uint8_t hdr_fp8(std::uint32_t b, __nv_saturation_t sat) {
  return __nv_cvt_float_to_fp8(std::bit_cast<float>(b), sat, __NV_E4M3);
}
std::uint8_t hdr_fp4(std::uint32_t b, cudaRoundMode r) {
  return __nv_cvt_float_to_fp4(std::bit_cast<float>(b), __NV_E2M1, r);
}
std::uint8_t hdr_e8m0(std::uint32_t b, __nv_saturation_t sat, cudaRoundMode r) {
  return __nv_cvt_float_to_e8m0(std::bit_cast<float>(b), sat, r);
}

constexpr ConvertMode kCuda(Rounding r, Saturation s) { return {r, s, Dialect::kCuda}; }

std::vector<FullCase> fp32_cases() {
  using R = Rounding;
  using S = Saturation;
  return {
      {"e4m3 nearest-even finite", &kE4M3, kCuda(R::kNearestEven, S::kFinite),
       [](std::uint32_t b) { return hdr_fp8(b, __NV_SATFINITE); }},
      {"e4m3 nearest-even none", &kE4M3, kCuda(R::kNearestEven, S::kNone),
       [](std::uint32_t b) { return hdr_fp8(b, __NV_NOSAT); }},
      // UE4M3 has no header function; on non-negative inputs it is E4M3 (its sign bit is 0).
      {"ue4m3 nearest-even finite (non-negative)", &kUE4M3, kCuda(R::kNearestEven, S::kFinite),
       [](std::uint32_t b) { return hdr_fp8(b, __NV_SATFINITE); }, 0, 0x8000'0000u},
      {"ue4m3 nearest-even none (non-negative)", &kUE4M3, kCuda(R::kNearestEven, S::kNone),
       [](std::uint32_t b) { return hdr_fp8(b, __NV_NOSAT); }, 0, 0x8000'0000u},
      {"e2m1 nearest-even finite", &kE2M1, kCuda(R::kNearestEven, S::kFinite),
       [](std::uint32_t b) { return hdr_fp4(b, cudaRoundNearest); }},
      {"e2m1 toward-zero finite", &kE2M1, kCuda(R::kTowardZero, S::kFinite),
       [](std::uint32_t b) { return hdr_fp4(b, cudaRoundZero); }},
      {"e8m0 toward-zero finite", &kE8M0, kCuda(R::kTowardZero, S::kFinite),
       [](std::uint32_t b) { return hdr_e8m0(b, __NV_SATFINITE, cudaRoundZero); }},
      {"e8m0 toward-zero none", &kE8M0, kCuda(R::kTowardZero, S::kNone),
       [](std::uint32_t b) { return hdr_e8m0(b, __NV_NOSAT, cudaRoundZero); }},
      {"e8m0 up finite", &kE8M0, kCuda(R::kUp, S::kFinite),
       [](std::uint32_t b) { return hdr_e8m0(b, __NV_SATFINITE, cudaRoundPosInf); }},
      {"e8m0 up none", &kE8M0, kCuda(R::kUp, S::kNone),
       [](std::uint32_t b) { return hdr_e8m0(b, __NV_NOSAT, cudaRoundPosInf); }},
  };
}

class CudaHeaderFp32 : public ::testing::TestWithParam<int> {};

TEST_P(CudaHeaderFp32, AllPatternsEqualTheHeader) {
  const FullCase c = fp32_cases()[static_cast<std::size_t>(GetParam())];
  const auto t0 = std::chrono::steady_clock::now();
  const SweepResult r =
      sweep(fp32_model(*c.format, c.mode), c.oracle, c.begin, c.end, thread_count());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: %.0f patterns in %.1f s on %u threads\n", c.name,
              static_cast<double>(c.end - c.begin), s, thread_count());
  EXPECT_EQ(r.mismatches, 0u) << c.name << ": " << describe(r, "fp32");
}

INSTANTIATE_TEST_SUITE_P(EveryCudaMode, CudaHeaderFp32, ::testing::Range(0, 10),
                         [](const ::testing::TestParamInfo<int>& param) {
                           std::string n = fp32_cases()[static_cast<std::size_t>(param.param)].name;
                           for (char& ch : n) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return n;
                         });

// All 2^16 bf16 and fp16 patterns through the header's own bf16 / half entry points.
void check_wide(const char* what, const char* kind, const FloatFormat& f, ConvertMode mode,
                bool bf16, const std::function<std::uint8_t(std::uint16_t)>& oracle) {
  std::vector<std::uint16_t> all(65536);
  for (unsigned i = 0; i < 65536; ++i) all[i] = static_cast<std::uint16_t>(i);
  std::vector<std::uint8_t> got(65536);
  if (bf16) {
    encode_bf16(f, all, got, mode);
  } else {
    encode_fp16(f, all, got, mode);
  }
  SweepResult r;
  for (unsigned i = 0; i < 65536; ++i) {
    const std::uint8_t want = oracle(static_cast<std::uint16_t>(i));
    if (want != got[i]) {
      ++r.mismatches;
      if (r.first.size() < 8) r.first.push_back({i, want, got[i]});
    }
  }
  EXPECT_EQ(r.mismatches, 0u) << what << ": " << describe(r, kind);
}

__nv_bfloat16_raw bf16_raw(std::uint16_t b) {
  __nv_bfloat16_raw r;
  r.x = b;
  return r;
}
__half_raw half_raw(std::uint16_t b) {
  __half_raw r;
  r.x = b;
  return r;
}

TEST(CudaHeaderWide, AllBf16AndFp16PatternsEqualTheHeader) {
  using R = Rounding;
  using S = Saturation;
  for (__nv_saturation_t sat : {__NV_SATFINITE, __NV_NOSAT}) {
    const ConvertMode m = kCuda(R::kNearestEven, sat == __NV_SATFINITE ? S::kFinite : S::kNone);
    check_wide("e4m3 from bf16", "bf16", kE4M3, m, true, [sat](std::uint16_t b) {
      return __nv_cvt_bfloat16raw_to_fp8(bf16_raw(b), sat, __NV_E4M3);
    });
    check_wide("e4m3 from fp16", "fp16", kE4M3, m, false, [sat](std::uint16_t b) {
      return __nv_cvt_halfraw_to_fp8(half_raw(b), sat, __NV_E4M3);
    });
    for (cudaRoundMode rm : {cudaRoundZero, cudaRoundPosInf}) {
      const ConvertMode e{rm == cudaRoundZero ? R::kTowardZero : R::kUp, m.saturation,
                          Dialect::kCuda};
      check_wide("e8m0 from bf16", "bf16", kE8M0, e, true, [sat, rm](std::uint16_t b) {
        return __nv_cvt_bfloat16raw_to_e8m0(bf16_raw(b), sat, rm);
      });
      // The header has no half -> e8m0 entry point: widen exactly, then its float one.
      check_wide("e8m0 from fp16", "fp16", kE8M0, e, false, [sat, rm](std::uint16_t b) {
        return __nv_cvt_float_to_e8m0(__half2float(__half(half_raw(b))), sat, rm);
      });
    }
  }
  for (cudaRoundMode rm : {cudaRoundNearest, cudaRoundZero}) {
    const ConvertMode m = kCuda(rm == cudaRoundNearest ? R::kNearestEven : R::kTowardZero,
                                S::kFinite);
    check_wide("e2m1 from bf16", "bf16", kE2M1, m, true, [rm](std::uint16_t b) {
      return __nv_cvt_bfloat16raw_to_fp4(bf16_raw(b), __NV_E2M1, rm);
    });
    check_wide("e2m1 from fp16", "fp16", kE2M1, m, false, [rm](std::uint16_t b) {
      return __nv_cvt_halfraw_to_fp4(half_raw(b), __NV_E2M1, rm);
    });
  }
}

#else

TEST(CudaHeaderFp32, AllPatternsEqualTheHeader) {
  GTEST_SKIP() << "CUDA 13.0 headers cuda_fp8.h / cuda_fp4.h not found at configure time "
                  "(set MXV_CUDA_FP_HEADERS_DIR): the header oracle cannot run";
}

#endif

}  // namespace
}  // namespace mxv
