// Tests of the format models (float_format.h, small_float.h, dialect_rules.h) against facts
// written by hand from the specs: OCP MX v1.0 section 5 (E2M1, E8M0), OCP 8-bit FP v1.0 (E4M3),
// docs/semantics.md sections 1-3. Expectations never come from the code under test: code values are
// written out or computed with std::ldexp from the format's definition, midpoints from those.
// The independent whole-range oracles are cuda_header_exhaustive_test (CUDA 13.0 headers) and
// ml_dtypes_dialect_test (the installed ml_dtypes release, held to its own dialect).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "mxv/reference/float_format.h"
#include "mxv/reference/small_float.h"

namespace mxv {
namespace {

constexpr ConvertMode kRneFinite{Rounding::kNearestEven, Saturation::kFinite, Dialect::kCuda};
constexpr ConvertMode kRneNone{Rounding::kNearestEven, Saturation::kNone, Dialect::kCuda};
constexpr ConvertMode kRzFinite{Rounding::kTowardZero, Saturation::kFinite, Dialect::kCuda};
constexpr ConvertMode kRzNone{Rounding::kTowardZero, Saturation::kNone, Dialect::kCuda};
constexpr ConvertMode kUpFinite{Rounding::kUp, Saturation::kFinite, Dialect::kCuda};
constexpr ConvertMode kUpNone{Rounding::kUp, Saturation::kNone, Dialect::kCuda};

float from_bits(std::uint32_t b) { return std::bit_cast<float>(b); }
constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNegNan = from_bits(0xFFC0'0000u);
const float kPosNan = from_bits(0x7FC0'0000u);

std::string hex(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%02X", v);
  return buf;
}

// ---- Decode: every code, expectations from the definitions ----------------------------------

TEST(FloatFormatDecode, E2M1EveryCodeMatchesTheOcpTable) {
  // OCP MX v1.0 table 5 (FP4 E2M1): 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives.
  const float expected[16] = {0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                              -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};
  for (unsigned c = 0; c < 16; ++c) {
    const float v = decode(kE2M1, static_cast<std::uint8_t>(c));
    EXPECT_EQ(std::bit_cast<std::uint32_t>(v), std::bit_cast<std::uint32_t>(expected[c]))
        << "code " << hex(c);
  }
}

// E4M3 value from the definition: s eeee mmm, bias 7, subnormals at exponent field 0.
float e4m3_value_by_definition(unsigned c) {
  const int e = static_cast<int>((c >> 3) & 0xF);
  const int m = static_cast<int>(c & 7);
  const double mag = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7);
  return static_cast<float>((c & 0x80) != 0 ? -mag : mag);
}

TEST(FloatFormatDecode, E4M3EveryCode) {
  for (unsigned c = 0; c < 256; ++c) {
    const float v = decode(kE4M3, static_cast<std::uint8_t>(c));
    if ((c & 0x7F) == 0x7F) {
      EXPECT_TRUE(std::isnan(v)) << "code " << hex(c) << " is NaN in E4M3FN";
      continue;
    }
    EXPECT_EQ(std::bit_cast<std::uint32_t>(v),
              std::bit_cast<std::uint32_t>(e4m3_value_by_definition(c)))
        << "code " << hex(c);
  }
  // The spec's landmarks, written out.
  EXPECT_EQ(decode(kE4M3, 0x7E), 448.0f);
  EXPECT_EQ(decode(kE4M3, 0xFE), -448.0f);
  EXPECT_EQ(decode(kE4M3, 0x01), 0x1p-9f);
  EXPECT_EQ(decode(kE4M3, 0x08), 0x1p-6f);
  EXPECT_EQ(decode(kE4M3, 0x38), 1.0f);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(decode(kE4M3, 0x80)), 0x8000'0000u);  // -0
}

TEST(FloatFormatDecode, UE4M3IsE4M3WithoutTheSignBit) {
  for (unsigned c = 0; c < 0x7F; ++c) {
    EXPECT_EQ(decode(kUE4M3, static_cast<std::uint8_t>(c)), e4m3_value_by_definition(c))
        << "code " << hex(c);
  }
  EXPECT_TRUE(std::isnan(decode(kUE4M3, 0x7F)));
  for (unsigned c = 0x80; c < 256; ++c) {
    EXPECT_THROW(decode(kUE4M3, static_cast<std::uint8_t>(c)), std::invalid_argument);
  }
}

TEST(FloatFormatDecode, E8M0EveryCodeIsAPowerOfTwo) {
  for (unsigned c = 0; c < 255; ++c) {
    EXPECT_EQ(decode(kE8M0, static_cast<std::uint8_t>(c)),
              static_cast<float>(std::ldexp(1.0, static_cast<int>(c) - 127)))
        << "code " << hex(c);
  }
  // 0x00 is 2^-127: an fp32 subnormal (bit pattern 0x00400000), not zero.
  EXPECT_EQ(std::bit_cast<std::uint32_t>(decode(kE8M0, 0x00)), 0x0040'0000u);
  EXPECT_EQ(decode(kE8M0, 0x7F), 1.0f);
  EXPECT_EQ(decode(kE8M0, 0xFE), 0x1p127f);
  EXPECT_TRUE(std::isnan(decode(kE8M0, 0xFF)));
}

TEST(FloatFormatDecode, CodesOutsideTheFormatThrowNamingTheCode) {
  try {
    decode(kE2M1, 0x10);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("0x10"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("e2m1"), std::string::npos) << e.what();
  }
  std::vector<std::uint8_t> codes{0x1, 0x2, 0x13};
  std::vector<float> out(3);
  try {
    decode(kE2M1, codes, out);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("[2]"), std::string::npos) << e.what();
  }
  std::vector<float> short_out(2);
  EXPECT_THROW(decode(kE2M1, std::vector<std::uint8_t>{1, 2, 3}, short_out),
               std::invalid_argument);
}

// ---- Encode: every midpoint and both fp32 neighbours ----------------------------------------

// The representable non-negative finite values of a format, ascending, with their codes, from
// the definitions above (not from the code under test).
struct Point {
  double value;
  unsigned code;
};

std::vector<Point> e2m1_points() {
  const double v[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  std::vector<Point> p;
  for (unsigned c = 0; c < 8; ++c) p.push_back({v[c], c});
  return p;
}

std::vector<Point> e4m3_points() {
  std::vector<Point> p;
  for (unsigned c = 0; c < 0x7F; ++c) p.push_back({e4m3_value_by_definition(c), c});
  return p;
}

float below(float x) { return std::nextafter(x, -kInf); }
float above(float x) { return std::nextafter(x, kInf); }

// Checks, for each adjacent pair (lo, hi) and both signs: the midpoint goes to the even code
// under nearest-even and to lo under toward-zero; its neighbours go to the nearer value / lo.
void check_midpoints(const FloatFormat& f, const std::vector<Point>& pts, ConvertMode mode,
                     bool negative) {
  const unsigned sign = negative ? 1u << (f.bits() - 1) : 0u;
  for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
    const Point lo = pts[i];
    const Point hi = pts[i + 1];
    const float mid = static_cast<float>((lo.value + hi.value) / 2);  // exact: 5 significant bits
    ASSERT_EQ(static_cast<double>(mid), (lo.value + hi.value) / 2);
    const float s = negative ? -1.0f : 1.0f;
    const bool rne = mode.rounding == Rounding::kNearestEven;
    const unsigned even = (lo.code & 1) == 0 ? lo.code : hi.code;
    const unsigned at_mid = rne ? even : lo.code;
    const unsigned at_below = lo.code;
    const unsigned at_above = rne ? hi.code : lo.code;
    const std::string where = std::string(f.name) + " between " + std::to_string(lo.value) +
                              " and " + std::to_string(hi.value) + (negative ? " (negative)" : "");
    EXPECT_EQ(encode(f, s * mid, mode), at_mid | sign) << "midpoint, " << where;
    EXPECT_EQ(encode(f, s * below(mid), mode), at_below | sign) << "below midpoint, " << where;
    EXPECT_EQ(encode(f, s * above(mid), mode), at_above | sign) << "above midpoint, " << where;
    // The representable value itself and its neighbours.
    const auto hv = static_cast<float>(hi.value);
    EXPECT_EQ(encode(f, s * hv, mode), hi.code | sign) << "exact, " << where;
    EXPECT_EQ(encode(f, s * above(hv), mode), hi.code | sign) << "above exact, " << where;
    EXPECT_EQ(encode(f, s * below(hv), mode), (rne ? hi.code : lo.code) | sign)
        << "below exact, " << where;
  }
}

TEST(FloatFormatEncode, E2M1MidpointsAndNeighbours) {
  for (ConvertMode mode : {kRneFinite, kRzFinite}) {
    check_midpoints(kE2M1, e2m1_points(), mode, false);
    check_midpoints(kE2M1, e2m1_points(), mode, true);
  }
  // docs/semantics.md section 2 intervals at the ends: [0, 0.25] -> 0; (5, inf] -> 6; 7 (midpoint
  // of 6 and the would-be 8) saturates.
  EXPECT_EQ(encode(kE2M1, 0.25f, kRneFinite), 0x0);
  EXPECT_EQ(encode(kE2M1, above(0.25f), kRneFinite), 0x1);
  EXPECT_EQ(encode(kE2M1, 7.0f, kRneFinite), 0x7);
  EXPECT_EQ(encode(kE2M1, 1e30f, kRzFinite), 0x7);
  EXPECT_EQ(encode(kE2M1, -1e30f, kRzFinite), 0xF);
  // The double-rounding example of docs/semantics.md section 2: 3.4999998 is 3, not 4.
  EXPECT_EQ(encode(kE2M1, 3.4999998f, kRneFinite), 0x5);
}

TEST(FloatFormatEncode, E4M3AndUE4M3MidpointsAndNeighbours) {
  for (ConvertMode mode : {kRneFinite, kRneNone}) {
    check_midpoints(kE4M3, e4m3_points(), mode, false);
    check_midpoints(kE4M3, e4m3_points(), mode, true);
    check_midpoints(kUE4M3, e4m3_points(), mode, false);
  }
  // docs/semantics.md section 2: 248 -> 256 and 272 -> 256 (ties to the even code 0x78).
  EXPECT_EQ(encode(kE4M3, 248.0f), 0x78);
  EXPECT_EQ(encode(kE4M3, 272.0f), 0x78);
  // Smallest: |x| <= 2^-10 (half the smallest subnormal) -> signed zero.
  EXPECT_EQ(encode(kE4M3, 0x1p-10f), 0x00);
  EXPECT_EQ(encode(kE4M3, -0x1p-10f), 0x80);
  EXPECT_EQ(encode(kE4M3, above(0x1p-10f)), 0x01);
  EXPECT_EQ(encode(kE4M3, from_bits(0x0000'0001u)), 0x00);  // fp32 subnormals are honoured
}

TEST(FloatFormatEncode, E4M3OverflowSaturatesOrBecomesNaN) {
  // 464 = 448 + half an ulp: a tie, to the even 448. Anything larger overflows.
  EXPECT_EQ(encode(kE4M3, 464.0f, kRneFinite), 0x7E);
  EXPECT_EQ(encode(kE4M3, 464.0f, kRneNone), 0x7E);
  EXPECT_EQ(encode(kE4M3, above(464.0f), kRneFinite), 0x7E);
  EXPECT_EQ(encode(kE4M3, above(464.0f), kRneNone), 0x7F);
  EXPECT_EQ(encode(kE4M3, -above(464.0f), kRneFinite), 0xFE);
  EXPECT_EQ(encode(kE4M3, -above(464.0f), kRneNone), 0xFF);
  EXPECT_EQ(encode(kE4M3, kInf, kRneFinite), 0x7E);
  EXPECT_EQ(encode(kE4M3, -kInf, kRneNone), 0xFF);
  EXPECT_EQ(encode(kE4M3, 1e38f, kRneNone), 0x7F);
}

TEST(FloatFormatEncode, E8M0FloorAndCeilOfLog2) {
  for (int k = -126; k <= 127; ++k) {
    const auto p = static_cast<float>(std::ldexp(1.0, k));
    const auto code = static_cast<unsigned>(k + 127);
    const std::string where = "2^" + std::to_string(k);
    for (ConvertMode mode : {kRzFinite, kUpFinite, kRzNone, kUpNone}) {
      EXPECT_EQ(encode(kE8M0, p, mode), code) << where;
      EXPECT_EQ(encode(kE8M0, -p, mode), code) << "sign ignored, " << where;
    }
    // 1.5 * 2^k (the linear midpoint) and the neighbours of the power itself.
    if (k < 127) {
      EXPECT_EQ(encode(kE8M0, 1.5f * p, kRzFinite), code) << where;
      EXPECT_EQ(encode(kE8M0, 1.5f * p, kUpFinite), code + 1) << where;
      EXPECT_EQ(encode(kE8M0, above(p), kRzFinite), code) << where;
      EXPECT_EQ(encode(kE8M0, above(p), kUpFinite), code + 1) << where;
    }
    EXPECT_EQ(encode(kE8M0, below(p), kRzFinite), code - 1) << where;
    EXPECT_EQ(encode(kE8M0, below(p), kUpFinite), code) << where;
  }
}

TEST(FloatFormatEncode, E8M0EdgesOfTheRange) {
  // 2^-127 is the fp32 subnormal 0x00400000 and exactly code 0x00.
  const float two_m127 = from_bits(0x0040'0000u);
  EXPECT_EQ(encode(kE8M0, two_m127, kUpFinite), 0x00);
  EXPECT_EQ(encode(kE8M0, two_m127, kRzFinite), 0x00);
  // (2^-127, 2^-126): floor -> 0x00, ceil -> 0x01 (docs/semantics.md section 2: "RP maps it to
  // 0x01").
  EXPECT_EQ(encode(kE8M0, from_bits(0x0040'0001u), kUpFinite), 0x01);
  EXPECT_EQ(encode(kE8M0, from_bits(0x007F'FFFFu), kRzFinite), 0x00);
  // Below 2^-127, and zero: clamp to 0x00.
  for (ConvertMode mode : {kRzFinite, kUpFinite, kRzNone, kUpNone}) {
    EXPECT_EQ(encode(kE8M0, from_bits(0x003F'FFFFu), mode), 0x00);
    EXPECT_EQ(encode(kE8M0, from_bits(0x0000'0001u), mode), 0x00);
    EXPECT_EQ(encode(kE8M0, 0.0f, mode), 0x00);
    EXPECT_EQ(encode(kE8M0, -0.0f, mode), 0x00);
    EXPECT_EQ(encode(kE8M0, kPosNan, mode), 0xFF);
    EXPECT_EQ(encode(kE8M0, kNegNan, mode), 0xFF);
  }
  // Above 2^127 (ceil) and Inf: satfinite 0xFE, otherwise NaN.
  EXPECT_EQ(encode(kE8M0, above(0x1p127f), kUpFinite), 0xFE);
  EXPECT_EQ(encode(kE8M0, above(0x1p127f), kUpNone), 0xFF);
  EXPECT_EQ(encode(kE8M0, std::numeric_limits<float>::max(), kRzNone), 0xFE);
  EXPECT_EQ(encode(kE8M0, kInf, kRzFinite), 0xFE);
  EXPECT_EQ(encode(kE8M0, -kInf, kRzNone), 0xFF);
}

// ---- Specials, per dialect (docs/semantics.md section 3)
// -----------------------------------------

TEST(FloatFormatEncode, CudaSpecials) {
  EXPECT_EQ(encode(kE4M3, kPosNan), 0x7F);
  EXPECT_EQ(encode(kE4M3, kNegNan), 0x7F);  // sign dropped
  EXPECT_EQ(encode(kE4M3, -0.0f), 0x80);
  EXPECT_EQ(encode(kE2M1, kPosNan, kRneFinite), 0x7);  // NaN -> +6
  EXPECT_EQ(encode(kE2M1, kNegNan, kRzFinite), 0x7);
  EXPECT_EQ(encode(kE2M1, -0.0f), 0x8);
  EXPECT_EQ(encode(kE2M1, kInf), 0x7);
  EXPECT_EQ(encode(kE2M1, -kInf), 0xF);
}

TEST(FloatFormatEncode, UE4M3NegativeInputs) {
  // mxv's documented rule (dialect_rules.h): -0 -> 0; a negative that rounds to a nonzero
  // magnitude is below the range: satfinite clamps to 0, non-saturating gives NaN 0x7F.
  EXPECT_EQ(encode(kUE4M3, -0.0f, kRneFinite), 0x00);
  EXPECT_EQ(encode(kUE4M3, -0.0f, kRneNone), 0x00);
  EXPECT_EQ(encode(kUE4M3, -0x1p-11f, kRneNone), 0x00);  // rounds to -0
  EXPECT_EQ(encode(kUE4M3, -1.0f, kRneFinite), 0x00);
  EXPECT_EQ(encode(kUE4M3, -1.0f, kRneNone), 0x7F);
  EXPECT_EQ(encode(kUE4M3, -kInf, kRneFinite), 0x00);
  EXPECT_EQ(encode(kUE4M3, kInf, kRneFinite), 0x7E);
  EXPECT_EQ(encode(kUE4M3, kNegNan, kRneFinite), 0x7F);
  EXPECT_EQ(encode(kUE4M3, 1.0f, kRneFinite), 0x38);
}

TEST(FloatFormatEncode, MlDtypesSpecials) {
  const ConvertMode e4m3{Rounding::kNearestEven, Saturation::kNone, Dialect::kMlDtypes};
  const ConvertMode e2m1{Rounding::kNearestEven, Saturation::kFinite, Dialect::kMlDtypes};
  const ConvertMode e8m0{Rounding::kNearestEven, Saturation::kNone, Dialect::kMlDtypes};
  EXPECT_EQ(encode(kE4M3, kNegNan, e4m3), 0xFF);
  EXPECT_EQ(encode(kE4M3, -kInf, e4m3), 0xFF);
  EXPECT_EQ(encode(kE4M3, 464.0f, e4m3), 0x7E);
  EXPECT_EQ(encode(kE2M1, kPosNan, e2m1), 0x8);
  EXPECT_EQ(encode(kE2M1, kNegNan, e2m1), 0x0);
  EXPECT_EQ(encode(kE2M1, -kInf, e2m1), 0xF);
  EXPECT_EQ(encode(kE8M0, 3.0f, e8m0), 0x81);   // tie rounds up: 4.0
  EXPECT_EQ(encode(kE8M0, 0.75f, e8m0), 0x7F);  // tie rounds up: 1.0
  EXPECT_EQ(encode(kE8M0, below(3.0f), e8m0), 0x80);
  EXPECT_EQ(encode(kE8M0, 0.0f, e8m0), 0xFF);
  EXPECT_EQ(encode(kE8M0, -2.0f, e8m0), 0xFF);
  EXPECT_EQ(encode(kE8M0, 0x1.8p127f, e8m0), 0xFF);
  // fp32 subnormals (ml_dtypes 0.7): nearest by value between 2^-127 and 2^-126, the tie
  // 1.5 * 2^-127 (0x00600000) up.
  EXPECT_EQ(encode(kE8M0, from_bits(0x0040'0000u), e8m0), 0x00);
  EXPECT_EQ(encode(kE8M0, from_bits(0x0040'0001u), e8m0), 0x00);
  EXPECT_EQ(encode(kE8M0, from_bits(0x005F'FFFFu), e8m0), 0x00);
  EXPECT_EQ(encode(kE8M0, from_bits(0x0060'0000u), e8m0), 0x01);
  EXPECT_EQ(encode(kE8M0, from_bits(0x003F'FFFFu), e8m0), 0x00);
}

TEST(FloatFormatEncode, MlDtypes06RoundsSubnormalsUpAndIsOtherwiseTheNewest) {
  const ConvertMode e8m0_06{Rounding::kNearestEven, Saturation::kNone, Dialect::kMlDtypes06};
  const ConvertMode e8m0{Rounding::kNearestEven, Saturation::kNone, Dialect::kMlDtypes};
  // ml_dtypes 0.6: exactly 2^-127 -> 0x00, anything above -> 0x01 (field-based tie-break).
  EXPECT_EQ(encode(kE8M0, from_bits(0x0040'0000u), e8m0_06), 0x00);
  EXPECT_EQ(encode(kE8M0, from_bits(0x0040'0001u), e8m0_06), 0x01);
  EXPECT_EQ(encode(kE8M0, from_bits(0x003F'FFFFu), e8m0_06), 0x00);
  // Outside E8M0 of fp32 subnormals the two releases agree: every normal, zero, Inf, NaN and
  // negative pattern of a stride-4099 sweep, and each format's specials.
  for (std::uint64_t b = 0; b <= 0xFFFF'FFFFu; b += 4099) {
    const auto bits = static_cast<std::uint32_t>(b);
    const float x = from_bits(bits);
    for (const FloatFormat* f : {&kE4M3, &kE2M1}) {
      const Saturation s = f == &kE2M1 ? Saturation::kFinite : Saturation::kNone;
      ASSERT_EQ(encode(*f, x, {Rounding::kNearestEven, s, Dialect::kMlDtypes06}),
                encode(*f, x, {Rounding::kNearestEven, s, Dialect::kMlDtypes}))
          << f->name << " 0x" << std::hex << bits;
    }
    if ((bits & 0x7F80'0000u) != 0 || (bits & 0x007F'FFFFu) == 0 || (bits >> 31) != 0) {
      ASSERT_EQ(encode(kE8M0, x, e8m0_06), encode(kE8M0, x, e8m0)) << "e8m0 0x" << std::hex << bits;
    }
  }
}

TEST(FloatFormatEncode, Torch211SpecialsFromTheC10Source) {
  // torch 2.11 c10/util/Float8_e4m3fn.h: |x| >= 480 (and Inf, NaN) -> 0x7F with the input's sign.
  const ConvertMode e4m3{Rounding::kNearestEven, Saturation::kNone, Dialect::kTorch211};
  EXPECT_EQ(encode(kE4M3, 480.0f, e4m3), 0x7F);
  EXPECT_EQ(encode(kE4M3, -480.0f, e4m3), 0xFF);
  EXPECT_EQ(encode(kE4M3, kInf, e4m3), 0x7F);
  EXPECT_EQ(encode(kE4M3, 464.0f, e4m3), 0x7E);
  EXPECT_EQ(encode(kE4M3, kNegNan, e4m3), 0xFF);
}

TEST(FloatFormatEncode, Torch215SaturatesE4m3AndKeepsTheNanSign) {
  // torch 2.15 (pytorch/pytorch#178817; docs/conformance.md): overflow and Inf -> +-448; a NaN
  // keeps its sign, where the cuda satfinite rule drops it.
  const ConvertMode e4m3{Rounding::kNearestEven, Saturation::kFinite, Dialect::kTorch};
  EXPECT_EQ(encode(kE4M3, 480.0f, e4m3), 0x7E);
  EXPECT_EQ(encode(kE4M3, -480.0f, e4m3), 0xFE);
  EXPECT_EQ(encode(kE4M3, kInf, e4m3), 0x7E);
  EXPECT_EQ(encode(kE4M3, -kInf, e4m3), 0xFE);
  EXPECT_EQ(encode(kE4M3, 464.0f, e4m3), 0x7E);
  EXPECT_EQ(encode(kE4M3, kNegNan, e4m3), 0xFF);
  EXPECT_EQ(encode(kE4M3, kNegNan, ConvertMode{Rounding::kNearestEven, Saturation::kFinite, Dialect::kCuda}), 0x7F);
}

TEST(FloatFormatEncode, TorchE8m0FromTheC10SourceInBothReleases) {
  // c10/util/Float8_e8m0fnu.h (unchanged from 2.11 to 2.15): the exponent field rounded by
  // guard/round/sticky, ties broken by the implicit bit; Inf/NaN -> 0xFF; sign ignored; zero -> 0x00.
  for (const Dialect d : {Dialect::kTorch, Dialect::kTorch211}) {
    SCOPED_TRACE(std::string(to_string(d)));
    const ConvertMode e8m0{Rounding::kNearestEven, Saturation::kNone, d};
    EXPECT_EQ(encode(kE8M0, 3.0f, e8m0), 0x81);
    EXPECT_EQ(encode(kE8M0, -3.0f, e8m0), 0x81);
    EXPECT_EQ(encode(kE8M0, below(3.0f), e8m0), 0x80);
    EXPECT_EQ(encode(kE8M0, 0.0f, e8m0), 0x00);
    EXPECT_EQ(encode(kE8M0, -kInf, e8m0), 0xFF);
    EXPECT_EQ(encode(kE8M0, 0x1.8p127f, e8m0), 0xFF);
    EXPECT_EQ(encode(kE8M0, from_bits(0x0040'0001u), e8m0), 0x01);
  }
}

// ---- Wide inputs: every bf16 and fp16 pattern widens exactly, never rounds twice ------------

TEST(FloatFormatEncode, EveryBf16AndFp16PatternEqualsItsExactFp32Widening) {
  // Oracle for the widening: bf16 is the top half of an fp32; fp16 is widened here by its
  // definition (ldexp), independently of wide_float.cpp. Every supported cuda mode.
  const FloatFormat* formats[] = {&kE2M1, &kE4M3, &kUE4M3, &kE8M0};
  std::vector<std::uint16_t> all(65536);
  for (unsigned i = 0; i < 65536; ++i) all[i] = static_cast<std::uint16_t>(i);
  std::vector<std::uint8_t> got(65536);
  for (const FloatFormat* f : formats) {
    for (ConvertMode mode : {kRneFinite, kRneNone, kRzFinite, kRzNone, kUpFinite, kUpNone}) {
      if (!supports(*f, mode)) continue;
      encode_bf16(*f, all, got, mode);
      for (unsigned i = 0; i < 65536; ++i) {
        const float x = from_bits(i << 16);
        ASSERT_EQ(got[i], encode(*f, x, mode)) << f->name << " bf16 " << hex(i);
      }
      encode_fp16(*f, all, got, mode);
      for (unsigned i = 0; i < 65536; ++i) {
        const unsigned e = (i >> 10) & 0x1F;
        const unsigned m = i & 0x3FF;
        double v = e == 0    ? std::ldexp(m, -24)
                   : e < 31 ? std::ldexp(1024 + m, static_cast<int>(e) - 25)
                   : m == 0 ? std::numeric_limits<double>::infinity()
                            : std::numeric_limits<double>::quiet_NaN();
        float x = static_cast<float>((i & 0x8000) != 0 ? -v : v);
        if (e == 31 && m != 0) x = from_bits(((i & 0x8000u) << 16) | 0x7FC0'0000u | (m << 13));
        ASSERT_EQ(got[i], encode(*f, x, mode)) << f->name << " fp16 " << hex(i);
        ASSERT_EQ(encode_fp16(*f, static_cast<std::uint16_t>(i), mode), got[i]);
      }
    }
  }
}

// ---- The API: batches agree with single values; bad modes and names are clear errors --------

TEST(FloatFormatApi, BatchAndPatternRangeAgreeWithSingleValues) {
  std::vector<float> xs;
  for (std::uint32_t b = 0; b < 0xFFFF'FFFFu - 0x0100'0000u; b += 0x00FF'FFF1u) {
    xs.push_back(from_bits(b));
  }
  std::vector<std::uint8_t> got(xs.size());
  encode(kE4M3, xs, got, kRneNone);
  for (std::size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(got[i], encode(kE4M3, xs[i], kRneNone));
  std::vector<std::uint8_t> range(1000);
  encode_fp32_pattern_range(kE8M0, 0x3F7F'FF00u, range, kUpFinite);
  for (std::uint32_t i = 0; i < 1000; ++i) {
    EXPECT_EQ(range[i], encode(kE8M0, from_bits(0x3F7F'FF00u + i), kUpFinite));
  }
  std::vector<std::uint8_t> past_end(2);
  EXPECT_THROW(encode_fp32_pattern_range(kE8M0, 0xFFFF'FFFFu, past_end, kUpFinite),
               std::invalid_argument);
  std::vector<std::uint8_t> too_short(1);
  EXPECT_THROW(encode(kE4M3, xs, too_short), std::invalid_argument);
}

TEST(FloatFormatApi, UnsupportedModesThrowNamingTheRule) {
  struct Case {
    const FloatFormat* f;
    ConvertMode mode;
    const char* rule;
  };
  const Case cases[] = {
      {&kE8M0, kRneFinite, "toward-zero (floor) or up (ceil)"},
      {&kE4M3, kRzFinite, "only nearest-even"},
      {&kE4M3, kUpNone, "only nearest-even"},
      {&kE2M1, kRneNone, "always saturates"},
      {&kE2M1, kUpFinite, "nearest-even or toward-zero"},
      {&kUE4M3, {Rounding::kNearestEven, Saturation::kNone, Dialect::kMlDtypes}, "no ue4m3"},
      {&kE4M3, {Rounding::kNearestEven, Saturation::kFinite, Dialect::kMlDtypes}, "saturate"},
      {&kE2M1, {Rounding::kNearestEven, Saturation::kFinite, Dialect::kTorch}, "float4"},
      {&kE8M0, {Rounding::kUp, Saturation::kNone, Dialect::kTorch}, "only nearest"},
      {&kE8M0, {Rounding::kNearestEven, Saturation::kFinite, Dialect::kTorch211}, "does not saturate"},
      {&kE4M3, {Rounding::kNearestEven, Saturation::kNone, Dialect::kTorch}, "2.15"},
      {&kE4M3, {Rounding::kNearestEven, Saturation::kFinite, Dialect::kTorch211}, "2.11"},
  };
  for (const Case& c : cases) {
    try {
      encode(*c.f, 1.0f, c.mode);
      ADD_FAILURE() << c.f->name << " " << to_string(c.mode.rounding) << ": no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(c.rule), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.f->name), std::string::npos) << e.what();
    }
    EXPECT_THROW(validate(*c.f, c.mode), std::invalid_argument);
  }
  const FloatFormat imposter{"e4m3", 4, 3, 8, true, NanEncoding::kAllOnes, true};  // bias 8
  EXPECT_THROW(encode(imposter, 1.0f), std::invalid_argument);
}

TEST(FloatFormatApi, NamesRoundTripAndUnknownNamesThrow) {
  for (const char* n : {"e2m1", "e4m3", "ue4m3", "e8m0"}) EXPECT_EQ(format_by_name(n).name, n);
  for (const char* n : {"nearest-even", "toward-zero", "up"}) {
    EXPECT_EQ(to_string(rounding_by_name(n)), n);
  }
  for (const char* n : {"finite", "none"}) EXPECT_EQ(to_string(saturation_by_name(n)), n);
  for (const char* n : {"cuda", "ml_dtypes", "ml_dtypes@0.6", "torch", "torch@2.11"}) {
    EXPECT_EQ(to_string(dialect_by_name(n)), n);
  }
  EXPECT_EQ(dialect_by_name("ml_dtypes@0.7"), Dialect::kMlDtypes);
  for (const Dialect d : kAllDialects) EXPECT_EQ(dialect_by_name(to_string(d)), d);
  EXPECT_EQ(dialect_by_name("torch@2.15"), Dialect::kTorch);  // the unversioned name is the newest
  EXPECT_THROW(dialect_by_name("torch@2.13"), std::invalid_argument);
  EXPECT_THROW(format_by_name("fp4"), std::invalid_argument);
  EXPECT_THROW(rounding_by_name("nearest"), std::invalid_argument);
  EXPECT_THROW(saturation_by_name("satfinite"), std::invalid_argument);
  EXPECT_THROW(dialect_by_name("CUDA"), std::invalid_argument);
}

// The typed API: supported modes compile and agree with the runtime API; unsupported ones are
// rejected at compile time (checked here through a requires-expression).
template <const FloatFormat& F, Rounding R, Saturation S, Dialect D>
concept TypedEncodable = requires(float x) { encode_as<F, R, S, D>(x); };

static_assert(TypedEncodable<kE4M3, Rounding::kNearestEven, Saturation::kFinite, Dialect::kCuda>);
static_assert(TypedEncodable<kE8M0, Rounding::kUp, Saturation::kNone, Dialect::kCuda>);
static_assert(!TypedEncodable<kE8M0, Rounding::kNearestEven, Saturation::kFinite, Dialect::kCuda>);
static_assert(!TypedEncodable<kE2M1, Rounding::kNearestEven, Saturation::kNone, Dialect::kCuda>);
static_assert(!TypedEncodable<kE4M3, Rounding::kTowardZero, Saturation::kFinite, Dialect::kCuda>);
static_assert(!TypedEncodable<kE2M1, Rounding::kNearestEven, Saturation::kFinite, Dialect::kTorch>);
// Typed encodes are constant expressions.
static_assert(encode_as<kE4M3>(448.0f) == 0x7E);
static_assert(encode_as<kE2M1, Rounding::kTowardZero>(5.9f) == 0x6);
static_assert(encode_as<kE8M0, Rounding::kUp, Saturation::kFinite>(3.0f) == 0x81);

TEST(FloatFormatApi, TypedAgreesWithRuntime) {
  for (float x : {0.3f, -2.75f, 449.0f, 1e-9f, 3.0f, -kInf}) {
    EXPECT_EQ((encode_as<kE4M3, Rounding::kNearestEven, Saturation::kNone>(x)),
              encode(kE4M3, x, kRneNone));
    EXPECT_EQ((encode_as<kE2M1, Rounding::kTowardZero>(x)), encode(kE2M1, x, kRzFinite));
    EXPECT_EQ((encode_as<kE8M0, Rounding::kTowardZero, Saturation::kNone>(x)),
              encode(kE8M0, x, kRzNone));
  }
}

}  // namespace
}  // namespace mxv
