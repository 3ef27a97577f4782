// Tests of the device conversion primitives (device/include/mxv/device/cvt.h), host build: the
// software branch that the emulator runs and sm_90 uses for E2M1 / UE8M0. Held to the reference
// (mxv::encode / decode, an independent algorithm) on every bf16 and fp16 bit pattern, a strided
// sample of all 2^32 fp32 patterns, and every midpoint of each format with its fp32 neighbours;
// plus hand-derived known answers from docs/semantics.md section 2. The GPU branch (PTX cvt) is
// held to the reference over all 2^32 inputs by convert_test's gpu cases. The branch-free E2M1
// encoder (e2m1_from_f32_sw_branchless) runs through every E2M1 check below, and the finite-input
// bf16x2 / fp16x2 pair conversions (the dequantize fast path) are held to wide_float over their
// documented domain, every finite fp32 input class. The packed bf16 clamp (the clamped SwiGLU's up
// factor) is held to the fp32 clamp on every bf16 pattern.
#include "mxv/device/cvt.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

#include "mxv/reference/float_format.h"
#include "mxv/reference/wide_float.h"

namespace {

using namespace mxv::device;

constexpr mxv::ConvertMode kRz{mxv::Rounding::kTowardZero, mxv::Saturation::kFinite, mxv::Dialect::kCuda};
constexpr mxv::ConvertMode kRp{mxv::Rounding::kUp, mxv::Saturation::kFinite, mxv::Dialect::kCuda};

float f(std::uint32_t bits) { return std::bit_cast<float>(bits); }
unsigned e8m0_rz(float x) { return cvt::e8m0_from_f32<cvt::E8m0Rounding::kTowardZero>(x); }
unsigned e8m0_rp(float x) { return cvt::e8m0_from_f32<cvt::E8m0Rounding::kUp>(x); }

// Checks every encoder of cvt.h against the reference on one fp32 input; returns "" or a message.
std::string check_all(std::uint32_t bits) {
  const float x = f(bits);
  char buf[160];
  auto fail = [&](const char* what, unsigned got, unsigned want) {
    std::snprintf(buf, sizeof buf, "%s of fp32 0x%08X: device 0x%02X, reference 0x%02X", what, bits, got, want);
    return std::string(buf);
  };
  if (unsigned g = cvt::e4m3_from_f32(x), w = mxv::encode(mxv::kE4M3, x); g != w) return fail("e4m3", g, w);
  if (unsigned g = cvt::e2m1_from_f32(x), w = mxv::encode(mxv::kE2M1, x); g != w) return fail("e2m1", g, w);
  // The branch-free encoder the vector quantize kernels use (software on the host and sm_90).
  if (unsigned g = cvt::e2m1_from_f32_sw_branchless(x), w = mxv::encode(mxv::kE2M1, x); g != w) {
    return fail("e2m1 branchless", g, w);
  }
  if (unsigned g = e8m0_rz(x), w = mxv::encode(mxv::kE8M0, x, kRz); g != w) return fail("e8m0 rz", g, w);
  if (unsigned g = e8m0_rp(x), w = mxv::encode(mxv::kE8M0, x, kRp); g != w) return fail("e8m0 rp", g, w);
  return {};
}

// Known answers derived by hand from docs/semantics.md section 2 (not from any implementation).
TEST(CvtKnownAnswers, E4M3) {
  EXPECT_EQ(cvt::e4m3_from_f32(448.0f), 0x7E);
  EXPECT_EQ(cvt::e4m3_from_f32(464.0f), 0x7E);    // 448 + half ulp: tie to even (mantissa 110)
  EXPECT_EQ(cvt::e4m3_from_f32(464.5f), 0x7E);    // above: would be 480, satfinite clamps
  EXPECT_EQ(cvt::e4m3_from_f32(-1e30f), 0xFE);    // -448
  EXPECT_EQ(cvt::e4m3_from_f32(INFINITY), 0x7E);
  EXPECT_EQ(cvt::e4m3_from_f32(-NAN), 0x7F);      // NaN of either sign -> 0x7F
  EXPECT_EQ(cvt::e4m3_from_f32(248.0f), 0x78);    // tie between 240 (0x77) and 256 (0x78): even
  EXPECT_EQ(cvt::e4m3_from_f32(272.0f), 0x78);    // tie between 256 (0x78) and 288 (0x79): even
  EXPECT_EQ(cvt::e4m3_from_f32(0x1p-10f), 0x00);  // half the min subnormal: tie to 0
  EXPECT_EQ(cvt::e4m3_from_f32(-0x1p-10f), 0x80);
  EXPECT_EQ(cvt::e4m3_from_f32(0x1.000002p-10f), 0x01);  // just above: 2^-9
  EXPECT_EQ(cvt::e4m3_from_f32(0x1.Ep-7f), 0x08);  // 15 * 2^-11 = 7.5 quanta of 2^-9 -> 8: 2^-6
}

TEST(CvtKnownAnswers, E2M1) {
  // Interval table of docs/semantics.md section 2, endpoints included per the table.
  EXPECT_EQ(cvt::e2m1_from_f32(0.25f), 0x0);
  EXPECT_EQ(cvt::e2m1_from_f32(0.2500001f), 0x1);
  EXPECT_EQ(cvt::e2m1_from_f32(0.75f), 0x2);
  EXPECT_EQ(cvt::e2m1_from_f32(1.25f), 0x2);
  EXPECT_EQ(cvt::e2m1_from_f32(1.75f), 0x4);
  EXPECT_EQ(cvt::e2m1_from_f32(2.5f), 0x4);
  EXPECT_EQ(cvt::e2m1_from_f32(3.5f), 0x6);
  EXPECT_EQ(cvt::e2m1_from_f32(5.0f), 0x6);
  EXPECT_EQ(cvt::e2m1_from_f32(5.0000005f), 0x7);
  EXPECT_EQ(cvt::e2m1_from_f32(-0.0f), 0x8);
  EXPECT_EQ(cvt::e2m1_from_f32(-NAN), 0x7);  // NaN -> +6
  EXPECT_EQ(cvt::e2m1_from_f32(-INFINITY), 0xF);
  // Packing: operand a (hi) lands in bits [7:4].
  EXPECT_EQ(cvt::e2m1x2_from_f32(6.0f, -0.5f), 0x79);
}

TEST(CvtKnownAnswers, E8M0) {
  EXPECT_EQ(e8m0_rz(1.0f), 127);
  EXPECT_EQ(e8m0_rp(1.0f), 127);
  EXPECT_EQ(e8m0_rz(3.0f), 128);
  EXPECT_EQ(e8m0_rp(-3.0f), 129);  // sign ignored
  EXPECT_EQ(e8m0_rz(0.0f), 0x00);
  EXPECT_EQ(e8m0_rp(f(0x00400001u)), 0x01);  // (2^-127, 2^-126) -> 2^-126
  EXPECT_EQ(e8m0_rp(f(0x00400000u)), 0x00);  // exactly 2^-127
  EXPECT_EQ(e8m0_rp(f(0x7F000001u)), 0xFE);  // just above 2^127: satfinite
  EXPECT_EQ(e8m0_rz(INFINITY), 0xFE);
  EXPECT_EQ(e8m0_rz(NAN), 0xFF);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(cvt::f32_from_e8m0(0x00)), 0x00400000u);  // subnormal kept
}

TEST(CvtVsReference, EveryBf16AndFp16Pattern) {
  for (std::uint32_t b = 0; b < 0x10000u; ++b) {
    const auto h = static_cast<std::uint16_t>(b);
    ASSERT_EQ(std::bit_cast<std::uint32_t>(cvt::f32_from_bf16(h)), std::bit_cast<std::uint32_t>(mxv::bf16_to_float(h))) << b;
    const float wf = mxv::fp16_to_float(h);
    const float gf = cvt::f32_from_fp16(h);
    ASSERT_EQ(std::bit_cast<std::uint32_t>(gf), std::bit_cast<std::uint32_t>(wf)) << "fp16 0x" << std::hex << b;
    const std::string a = check_all(std::bit_cast<std::uint32_t>(cvt::f32_from_bf16(h)));
    ASSERT_EQ(a, "") << "input bf16 0x" << std::hex << b;
    const std::string c = check_all(std::bit_cast<std::uint32_t>(gf));
    ASSERT_EQ(c, "") << "input fp16 0x" << std::hex << b;
  }
}

TEST(CvtVsReference, StridedFp32Sample) {
  // Stride 4093 (prime: every residue class of the low bits is visited) plus an offset that an
  // environment variable can move, so another run samples other inputs. ~1.05M inputs.
  std::uint32_t offset = 0;
  if (const char* e = std::getenv("MXV_CVT_SAMPLE_OFFSET")) offset = static_cast<std::uint32_t>(std::strtoul(e, nullptr, 0));
  std::printf("MXV_CVT_SAMPLE_OFFSET=%u (stride 4093)\n", offset);
  for (std::uint64_t i = offset; i < (std::uint64_t{1} << 32); i += 4093) {
    const std::string m = check_all(static_cast<std::uint32_t>(i));
    ASSERT_EQ(m, "");
  }
}

TEST(CvtVsReference, EveryMidpointAndNeighbours) {
  // Each format's decoded values, midpoints between neighbours, and the 8 fp32 values on either
  // side of each: where a rounding bug shows first.
  for (const auto* format : {&mxv::kE4M3, &mxv::kE2M1, &mxv::kE8M0}) {
    const unsigned codes = 1u << format->bits();
    for (unsigned c = 0; c + 1 < codes; ++c) {
      const float a = mxv::decode(*format, static_cast<std::uint8_t>(c));
      const float b = mxv::decode(*format, static_cast<std::uint8_t>(c + 1));
      if (!(a == a) || !(b == b)) continue;
      for (float v : {a, b, (a + b) * 0.5f, std::sqrt(a * b)}) {
        for (int d = -8; d <= 8; ++d) {
          const std::uint32_t base = std::bit_cast<std::uint32_t>(v);
          for (std::uint32_t sign : {0u, 0x80000000u}) {
            const std::string m = check_all((base + static_cast<std::uint32_t>(d)) ^ sign);
            ASSERT_EQ(m, "") << format->name;
          }
        }
      }
    }
  }
}

TEST(CvtVsReference, DecodeEveryCode) {
  for (unsigned c = 0; c < 256; ++c) {
    const auto code = static_cast<std::uint8_t>(c);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(cvt::f32_from_e4m3(code)),
              std::bit_cast<std::uint32_t>(mxv::decode(mxv::kE4M3, code))) << c;
    EXPECT_EQ(std::bit_cast<std::uint32_t>(cvt::f32_from_e8m0(code)),
              std::bit_cast<std::uint32_t>(mxv::decode(mxv::kE8M0, code))) << c;
    if (c < 16) {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(cvt::f32_from_e2m1(c)),
                std::bit_cast<std::uint32_t>(mxv::decode(mxv::kE2M1, code))) << c;
    }
  }
}

TEST(CvtVsReference, NarrowToBf16AndFp16) {
  // Strided fp32 sample through the device narrowing vs the reference's wide_float.
  for (std::uint64_t i = 7; i < (std::uint64_t{1} << 32); i += 65521) {
    const float x = f(static_cast<std::uint32_t>(i));
    ASSERT_EQ(cvt::bf16_from_f32(x), mxv::float_to_bf16(x)) << std::hex << i;
    ASSERT_EQ(cvt::fp16_from_f32(x), mxv::float_to_fp16(x)) << std::hex << i;
  }
}

// ---- the branch-free E2M1 encoder ----------------------------------------------------------------

TEST(CvtKnownAnswers, E2M1Branchless) {
  // The same interval table as CvtKnownAnswers.E2M1 (docs/semantics.md section 2), hand-derived.
  EXPECT_EQ(cvt::e2m1_from_f32_sw_branchless(0.25f), 0x0u);       // tie to 0 (even)
  EXPECT_EQ(cvt::e2m1_from_f32_sw_branchless(0.2500001f), 0x1u);
  EXPECT_EQ(cvt::e2m1_from_f32_sw_branchless(0.75f), 0x2u);       // tie to 1.0 (even mantissa)
  EXPECT_EQ(cvt::e2m1_from_f32_sw_branchless(0.7499999f), 0x1u);
  EXPECT_EQ(cvt::e2m1_from_f32_sw_branchless(1.25f), 0x2u);
  EXPECT_EQ(cvt::e2m1_from_f32_sw_branchless(1.75f), 0x4u);
  EXPECT_EQ(cvt::e2m1_from_f32_sw_branchless(2.5f), 0x4u);
  EXPECT_EQ(cvt::e2m1_from_f32_sw_branchless(3.5f), 0x6u);
  EXPECT_EQ(cvt::e2m1_from_f32_sw_branchless(5.0f), 0x6u);
  EXPECT_EQ(cvt::e2m1_from_f32_sw_branchless(5.0000005f), 0x7u);
  EXPECT_EQ(cvt::e2m1_from_f32_sw_branchless(3.0e38f), 0x7u);     // satfinite
  EXPECT_EQ(cvt::e2m1_from_f32_sw_branchless(-0.0f), 0x8u);
  EXPECT_EQ(cvt::e2m1_from_f32_sw_branchless(-1e-45f), 0x8u);     // negative subnormal -> -0
  EXPECT_EQ(cvt::e2m1_from_f32_sw_branchless(-NAN), 0x7u);        // NaN of either sign -> +6
  EXPECT_EQ(cvt::e2m1_from_f32_sw_branchless(-INFINITY), 0xFu);
  // Pair packing: `hi` in bits [7:4].
  EXPECT_EQ(cvt::e2m1x2_from_f32_branchless(6.0f, -0.5f), 0x79u);
  EXPECT_EQ(cvt::e2m1x2_from_f32_branchless(-0.5f, 6.0f), 0x97u);
}

TEST(CvtVsReference, E2M1BranchlessEveryMidpointWideNeighbourhood) {
  // Every E2M1 value and midpoint (and the geometric mean, where a log-domain bug would show), with
  // the 64 fp32 neighbours on either side, both signs, through the single and the pair encoder
  // (the pair with a different partner so that a swapped or leaking nibble shows).
  for (unsigned c = 0; c < 7; ++c) {
    const float a = mxv::decode(mxv::kE2M1, static_cast<std::uint8_t>(c));
    const float b = mxv::decode(mxv::kE2M1, static_cast<std::uint8_t>(c + 1));
    for (float v : {a, b, (a + b) * 0.5f, std::sqrt(a * b)}) {
      for (int d = -64; d <= 64; ++d) {
        for (std::uint32_t sign : {0u, 0x80000000u}) {
          const std::uint32_t bits = (std::bit_cast<std::uint32_t>(v) + static_cast<std::uint32_t>(d)) ^ sign;
          const float x = f(bits);
          const unsigned want = mxv::encode(mxv::kE2M1, x);
          ASSERT_EQ(cvt::e2m1_from_f32_sw_branchless(x), want) << "fp32 0x" << std::hex << bits;
          const float partner = -x * 0.5f;
          const unsigned want_pair = (want << 4) | mxv::encode(mxv::kE2M1, partner);
          ASSERT_EQ(cvt::e2m1x2_from_f32_branchless(x, partner), want_pair) << "fp32 0x" << std::hex << bits;
        }
      }
    }
  }
}

// ---- the finite-input bf16x2 / fp16x2 pair conversions -------------------------------------------

// Checks both pair conversions against wide_float on one (hi, lo) pair of finite fp32 inputs.
std::string check_wide_pair(float hi, float lo) {
  const std::uint32_t want_bf16 = std::uint32_t{mxv::float_to_bf16(hi)} << 16 | mxv::float_to_bf16(lo);
  const std::uint32_t want_fp16 = std::uint32_t{mxv::float_to_fp16(hi)} << 16 | mxv::float_to_fp16(lo);
  const std::uint32_t got_bf16 = cvt::half2_from_f32_finite<true>(hi, lo);
  const std::uint32_t got_fp16 = cvt::half2_from_f32_finite<false>(hi, lo);
  if (got_bf16 == want_bf16 && got_fp16 == want_fp16) return {};
  char buf[200];
  std::snprintf(buf, sizeof buf, "hi 0x%08X lo 0x%08X: bf16x2 device 0x%08X reference 0x%08X, fp16x2 device 0x%08X reference 0x%08X",
                std::bit_cast<std::uint32_t>(hi), std::bit_cast<std::uint32_t>(lo), got_bf16, want_bf16, got_fp16, want_fp16);
  return buf;
}

bool is_nan_bits(std::uint32_t b) { return (b & 0x7FFFFFFFu) > 0x7F800000u; }

TEST(CvtKnownAnswers, WidePairFinite) {
  // Hand-derived: 1.0 = bf16 0x3F80 = fp16 0x3C00; -2.0 = bf16 0xC000 = fp16 0xC000; `hi` on top.
  EXPECT_EQ(cvt::half2_from_f32_finite<true>(1.0f, -2.0f), 0x3F80C000u);
  EXPECT_EQ(cvt::half2_from_f32_finite<false>(1.0f, -2.0f), 0x3C00C000u);
  EXPECT_EQ(cvt::half2_from_f32_finite<true>(f(0x3F808000u), 0.0f), 0x3F800000u);  // tie to even, down
  EXPECT_EQ(cvt::half2_from_f32_finite<true>(f(0x3F818000u), 0.0f), 0x3F820000u);  // tie to even, up
  EXPECT_EQ(cvt::half2_from_f32_finite<false>(65520.0f, 65519.0f), 0x7C007BFFu);    // 65520 ties up to Inf
  EXPECT_EQ(cvt::half2_from_f32_finite<false>(INFINITY, -INFINITY), 0x7C00FC00u);
  EXPECT_EQ(cvt::half2_from_f32_finite<false>(0x1p-25f, -0x1.000002p-25f), 0x00008001u);  // half min subnormal
}

TEST(CvtVsReference, WidePairFiniteStridedSample) {
  // Every finite fp32 class (zeros, subnormals, normals, Inf; NaN is outside the documented
  // domain): stride 4093 over all 2^32 patterns, the partner a second stream with another stride.
  std::uint32_t offset = 0;
  if (const char* e = std::getenv("MXV_CVT_SAMPLE_OFFSET")) offset = static_cast<std::uint32_t>(std::strtoul(e, nullptr, 0));
  std::printf("MXV_CVT_SAMPLE_OFFSET=%u (stride 4093)\n", offset);
  std::uint32_t partner = 0x9E3779B9u + offset;
  for (std::uint64_t i = offset; i < (std::uint64_t{1} << 32); i += 4093) {
    partner += 0x6A09E667u;
    const auto hi = static_cast<std::uint32_t>(i);
    if (is_nan_bits(hi) || is_nan_bits(partner)) continue;
    const std::string m = check_wide_pair(f(hi), f(partner));
    ASSERT_EQ(m, "");
  }
}

TEST(CvtVsReference, WidePairFiniteEveryMidpoint) {
  // Every rounding boundary of both narrow types: for each finite bf16 / fp16 value and its
  // successor, the two values and their midpoint (exact in fp32) with 8 fp32 neighbours either side,
  // both signs. Covers ties to even, the subnormal ranges, and fp16 overflow to Inf.
  for (std::uint32_t h = 0; h < 0x7C00u; ++h) {
    const float lo_v[2] = {mxv::bf16_to_float(static_cast<std::uint16_t>(h)), mxv::fp16_to_float(static_cast<std::uint16_t>(h))};
    // fp16's successor of 65504 is Inf: the overflow boundary is the midpoint with 2^16.
    const float hi_v[2] = {mxv::bf16_to_float(static_cast<std::uint16_t>(h + 1)),
                           h + 1 == 0x7C00u ? 65536.0f : mxv::fp16_to_float(static_cast<std::uint16_t>(h + 1))};
    for (unsigned t = 0; t < 2; ++t) {
      for (float v : {lo_v[t], (lo_v[t] + hi_v[t]) * 0.5f}) {
        for (int d = -8; d <= 8; ++d) {
          for (std::uint32_t sign : {0u, 0x80000000u}) {
            const std::uint32_t bits = (std::bit_cast<std::uint32_t>(v) + static_cast<std::uint32_t>(d)) ^ sign;
            if (is_nan_bits(bits)) continue;
            const std::string m = check_wide_pair(f(bits), f(bits ^ 0x80000000u));
            ASSERT_EQ(m, "");
          }
        }
      }
    }
  }
  // bf16's upper range (fp16 stops at 0x7C00): finite bf16 values up to 0x7F7F and the overflow
  // boundary to Inf just above bf16 max.
  for (std::uint32_t h = 0x7C00u; h < 0x7F80u; ++h) {
    const float a = mxv::bf16_to_float(static_cast<std::uint16_t>(h));
    // The successor's bits: at h = 0x7F7F it is Inf's, so the midpoint is the overflow tie 0x7F7F8000.
    const std::uint32_t a_bits = std::bit_cast<std::uint32_t>(a);
    const std::uint32_t b_bits = (h + 1) << 16;
    for (std::uint32_t base : {a_bits, a_bits + (b_bits - a_bits) / 2}) {
      for (int d = -8; d <= 8; ++d) {
        const std::uint32_t bits = base + static_cast<std::uint32_t>(d);
        if (is_nan_bits(bits)) continue;
        const std::string m = check_wide_pair(f(bits), f(bits ^ 0x80000000u));
        ASSERT_EQ(m, "");
      }
    }
  }
}

/// The model of bf16x2_clamp_nan for one half, from its contract: the fp32 clamp of the widened
/// value (u > l ? l : u < -l ? -l : u), a NaN staying some NaN.
float clamp_model(std::uint16_t u, float l) {
  const float v = mxv::bf16_to_float(u);
  return v > l ? l : (v < -l ? -l : v);
}

/// Pairs of every bf16 pattern u (low half) with u's neighbour (high half) whose clamp, with the
/// clamp `clamp2`, differs from the model; "" when none does, else the first.
template <class Clamp2>
std::string clamp_disagreement(float l, Clamp2 clamp2) {
  const std::uint32_t lb = mxv::float_to_bf16(l);
  for (std::uint32_t u = 0; u < 0x10000u; ++u) {
    const std::uint32_t hi_u = (u * 7919u + 1u) & 0xFFFFu;  // another pattern in the high half
    const std::uint32_t got = clamp2(u | (hi_u << 16), lb | (lb << 16));
    for (const auto& [in, out] : {std::pair{u, got & 0xFFFFu}, std::pair{hi_u, got >> 16}}) {
      const float want = clamp_model(static_cast<std::uint16_t>(in), l);
      const float have = mxv::bf16_to_float(static_cast<std::uint16_t>(out));
      const bool same = std::isnan(want) ? std::isnan(have) : std::bit_cast<std::uint32_t>(want) == std::bit_cast<std::uint32_t>(have);
      if (!same) {
        char buf[120];
        std::snprintf(buf, sizeof buf, "clamp of bf16 0x%04X to %g: 0x%04X", in, static_cast<double>(l), out);
        return buf;
      }
    }
  }
  return {};
}

// Every bf16 pattern in both halves, for limits that are bf16 numbers (the only ones the fused
// kernel passes it: gpt-oss's 7, a fraction, a tiny and a huge one, Inf).
TEST(CvtBf16x2Clamp, EveryBf16PatternEqualsTheFp32Clamp) {
  for (const float l : {7.0f, 0.75f, 0x1p-130f, 0x1.fep127f, INFINITY}) {
    EXPECT_EQ(clamp_disagreement(l, cvt::bf16x2_clamp_nan), "") << l;
  }
}

// The check can fail: a clamp that lets a NaN become a bound (a max / min that drops NaN), and one
// that mixes the halves up.
TEST(CvtBf16x2Clamp, PlantedBugsAreCaught) {
  const auto drops_nan = [](std::uint32_t u, std::uint32_t l2) {
    const std::uint32_t c = cvt::bf16x2_clamp_nan(u, l2);
    const auto fix = [&](std::uint32_t h) { return (h & 0x7FFFu) > 0x7F80u ? (l2 & 0xFFFFu) : h; };
    return fix(c & 0xFFFFu) | (fix(c >> 16) << 16);
  };
  const auto swapped = [](std::uint32_t u, std::uint32_t l2) {
    const std::uint32_t c = cvt::bf16x2_clamp_nan(u, l2);
    return (c >> 16) | (c << 16);
  };
  EXPECT_NE(clamp_disagreement(7.0f, drops_nan), "");
  EXPECT_NE(clamp_disagreement(7.0f, swapped), "");
}

}  // namespace
