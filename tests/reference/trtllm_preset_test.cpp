// The nvfp4_trtllm preset with the committed rcp.approx table (docs/semantics.md section 4.3, the
// NVFP4 operation-order table; recipe.cpp cites TensorRT-LLM's cvt_warp_fp16_to_fp4):
//   nvfp4_te:     sf = E4M3(amax * (S_enc * fl(1/6)))      factor = 1 / (fp32(sf) * S_dec)
//   nvfp4_trtllm: sf = E4M3(S_enc * (amax * rcp(6)))       factor = rcp(fp32(sf) * rcp(S_enc))
// with rcp = rcp.approx.ftz.f32 (the committed H200 capture, golden/captures/, 2026-11-29).
//
// Known answers where the two presets store different bytes, each derived by hand below and
// re-derived in the test with its own arithmetic (IEEE fp32 operations written out here, the
// correctly rounded reciprocal through double, the table's delta added to the bit pattern by
// hand); never by the code under test. Then agreement on ordinary random blocks, where every
// disagreement must be a near-tie that a one-ulp change of an intermediate can flip.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "mxv/reference/block_scale.h"
#include "mxv/reference/quantize.h"
#include "mxv/reference/quantize_command.h"
#include "mxv/reference/rcp_approx.h"
#include "mxv/reference/recipe.h"

namespace mxv {
namespace {

float hexf(std::uint32_t b) { return std::bit_cast<float>(b); }
std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }

// The committed capture, by the library's default lookup (rule 3 of rcp_approx.h). A test that
// needs exactly this table skips when MXV_RCP_APPROX_TABLE points elsewhere.
const RcpApproxTable& committed() {
  const RcpApproxTable* t = default_rcp_approx_table();
  if (t == nullptr) throw std::runtime_error("no default rcp.approx table");
  return *t;
}
bool default_is_committed() {
  const char* env = std::getenv("MXV_RCP_APPROX_TABLE");
  return env == nullptr || *env == '\0';
}
#define REQUIRE_COMMITTED_DEFAULT() \
  if (!default_is_committed()) GTEST_SKIP() << "MXV_RCP_APPROX_TABLE is set: the default is not the committed capture"

// rcp.approx(x) for a normal x with a normal result, computed independently of RcpApproxTable::rcp:
// the correctly rounded reciprocal (double quotient rounded to fp32: exact, see rcp_approx_test)
// with the table's delta for x's significand added to its bit pattern.
float rcp_by_hand(const RcpApproxTable& t, float x) {
  const float cr = static_cast<float>(1.0 / static_cast<double>(x));
  return hexf(static_cast<std::uint32_t>(static_cast<std::int64_t>(bits(cr)) + t.delta(bits(x) & 0x7fffffu)));
}

std::uint8_t nibble(const QuantizedActivations& q, std::int64_t col) { return q.element(0, col); }

QuantizedActivations quantize_row(const Recipe& r, const std::vector<float>& row, float tensor_amax,
                                  const RcpApproxTable* table = nullptr) {
  QuantizeOptions o;
  o.tensor_amax = tensor_amax;
  o.rcp_table = table;
  return quantize_activations(r, row, 1, static_cast<std::int64_t>(row.size()), o);
}

// --- Known answer 1: the element multiplier (the table's +1 at S_enc's significand) -----------
//
// Tensor amax 61: S_enc = fl(2688/61) = 0x1.60864cp+5 (44.0655...). Both presets compute it the
// same way (IEEE division on the host). TE: S_dec = fl(1/S_enc) = 0x1.73cf3cp-6. TRT-LLM:
// rcp.approx(S_enc): the committed table has delta +1 at S_enc's significand field 0x304326
// (S_enc = 0x42304326), so it is
// 0x1.73cf3ep-6, one ulp above S_dec.
// Block amax 35/256 = 0.13671875: amax * S_enc / 6 = 1.0041 in both orders, far from the E4M3
// decision points 0.96875 and 1.0625, so sf = 1.0 (0x38) in both.
// TE factor = fl(1/(1.0 * 0x1.73cf3cp-6)) = 0x1.60864cp+5 (back to S_enc).
// TRT factor = rcp.approx(1.0 * 0x1.73cf3ep-6) = fl(1/0x1.73cf3ep-6) + delta(0x39e79f) =
// 0x1.60864ap+5 + 0: one ulp below TE's.
// For each E2M1 decision point m (0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5) an x near m / factor was
// found (by a search over x = fl(m / 0x1.60864cp+5) +- 3 ulps) whose products land on opposite
// sides: TE's on or above m, TRT's on or below it. E2M1 RNE: a product exactly on m goes to the
// neighbour with even code (0.25 -> 0, 0.75 -> 1.0, 1.25 -> 1.0, 2.5 -> 2, 5 -> 4).
struct Straddle {
  float x;
  std::uint32_t te_product;   // fp32 bits of x * te_factor
  std::uint32_t trt_product;  // fp32 bits of x * trt_factor
  std::uint8_t te_code;
  std::uint8_t trt_code;
};
// product bits: 0x3e800001 = 0.25 + ulp, 0x3e800000 = 0.25; 0x3f400000 = 0.75, 0x3f3fffff = 0.75 - ulp;
// 0x3fa00001 = 1.25 + ulp; 0x3fe00001 = 1.75 + ulp, 0x3fdfffff = 1.75 - ulp; 0x40200001 = 2.5 + ulp;
// 0x40600001 = 3.5 + ulp, 0x405fffff = 3.5 - ulp; 0x40a00001 = 5 + ulp, 0x40a00000 = 5.
constexpr Straddle kStraddles[] = {
    {0x1.73cf3ep-8f, 0x3e800001u, 0x3e800000u, 0x1, 0x0},  // 0.25+ -> 0.5 | 0.25 tie -> 0
    {0x1.16db6ep-6f, 0x3f400000u, 0x3f3fffffu, 0x2, 0x1},  // 0.75 tie -> 1.0 | 0.75- -> 0.5
    {0x1.d0c30ep-6f, 0x3fa00001u, 0x3fa00000u, 0x3, 0x2},  // 1.25+ -> 1.5 | 1.25 tie -> 1.0
    {0x1.455556p-5f, 0x3fe00001u, 0x3fdfffffu, 0x4, 0x3},  // 1.75+ -> 2 | 1.75- -> 1.5
    {0x1.d0c30ep-5f, 0x40200001u, 0x40200000u, 0x5, 0x4},  // 2.5+ -> 3 | 2.5 tie -> 2
    {0x1.455556p-4f, 0x40600001u, 0x405fffffu, 0x6, 0x5},  // 3.5+ -> 4 | 3.5- -> 3
    {0x1.d0c30ep-4f, 0x40a00001u, 0x40a00000u, 0x7, 0x6},  // 5+ -> 6 | 5 tie -> 4
};
constexpr float kAmaxT1 = 61.0f;
constexpr float kBlockAmax1 = 0.13671875f;  // 35/256

// The block: amax, the seven straddles, their negatives, and a zero.
std::vector<float> block1() {
  std::vector<float> row{kBlockAmax1};
  for (const Straddle& s : kStraddles) row.push_back(s.x);
  for (const Straddle& s : kStraddles) row.push_back(-s.x);
  row.push_back(0.0f);
  return row;
}

TEST(TrtllmPresetKnownAnswer, ElementMultiplierDerivation) {
  REQUIRE_COMMITTED_DEFAULT();
  const RcpApproxTable& t = committed();
  // The derivation, step by step, with the test's own arithmetic.
  const float s_enc = 2688.0f / kAmaxT1;
  ASSERT_EQ(bits(s_enc), bits(0x1.60864cp+5f));
  const float s_dec = 1.0f / s_enc;
  ASSERT_EQ(bits(s_dec), bits(0x1.73cf3cp-6f));
  ASSERT_EQ(bits(s_enc) & 0x7fffffu, 0x304326u);
  ASSERT_EQ(t.delta(0x304326), 1);  // the captured fact the whole example rests on
  const float rcp_s_enc = rcp_by_hand(t, s_enc);
  ASSERT_EQ(bits(rcp_s_enc), bits(0x1.73cf3ep-6f));
  ASSERT_EQ(t.delta(0x39e79f), 0);
  const float te_factor = 1.0f / (1.0f * s_dec);
  const float trt_factor = rcp_by_hand(t, 1.0f * rcp_s_enc);
  ASSERT_EQ(bits(te_factor), bits(0x1.60864cp+5f));
  ASSERT_EQ(bits(trt_factor), bits(0x1.60864ap+5f));
  for (const Straddle& s : kStraddles) {
    EXPECT_EQ(bits(s.x * te_factor), s.te_product) << s.x;
    EXPECT_EQ(bits(s.x * trt_factor), s.trt_product) << s.x;
  }

  // The library's intermediates agree with the derivation.
  const Recipe te = Recipe::nvfp4_te();
  const Recipe trt = Recipe::nvfp4_trtllm();
  const TensorScale ts = tensor_scale(trt, kAmaxT1);
  EXPECT_EQ(bits(ts.s_enc), bits(s_enc));
  EXPECT_EQ(bits(t.rcp(s_enc)), bits(rcp_s_enc));
  const BlockScale b_te = choose_block_scale(te, kBlockAmax1, tensor_scale(te, kAmaxT1));
  const BlockScale b_trt = choose_block_scale(trt, kBlockAmax1, ts);
  EXPECT_EQ(b_te.code, 0x38);
  EXPECT_EQ(b_trt.code, 0x38);
  EXPECT_EQ(bits(b_te.factor), bits(te_factor));
  EXPECT_EQ(bits(b_trt.factor), bits(trt_factor));
}

TEST(TrtllmPresetKnownAnswer, ElementMultiplierStoresDifferentCodes) {
  REQUIRE_COMMITTED_DEFAULT();
  const std::vector<float> row = block1();
  const QuantizedActivations q_te = quantize_row(Recipe::nvfp4_te(), row, kAmaxT1);
  const QuantizedActivations q_trt = quantize_row(Recipe::nvfp4_trtllm(), row, kAmaxT1);  // default table
  ASSERT_EQ(q_te.scales, std::vector<std::uint8_t>{0x38});
  ASSERT_EQ(q_trt.scales, std::vector<std::uint8_t>{0x38});
  // Column 0: 0.13671875 * 44.07 = 6.02 -> 6 (code 7) in both. Column 15: +0 -> 0.
  EXPECT_EQ(nibble(q_te, 0), 0x7);
  EXPECT_EQ(nibble(q_trt, 0), 0x7);
  EXPECT_EQ(nibble(q_te, 15), 0x0);
  EXPECT_EQ(nibble(q_trt, 15), 0x0);
  for (std::size_t i = 0; i < std::size(kStraddles); ++i) {
    const Straddle& s = kStraddles[i];
    const auto pos = static_cast<std::int64_t>(1 + i);
    const auto neg = static_cast<std::int64_t>(8 + i);
    EXPECT_EQ(nibble(q_te, pos), s.te_code) << "x = " << s.x;
    EXPECT_EQ(nibble(q_trt, pos), s.trt_code) << "x = " << s.x;
    // Negatives: the same magnitude code with the sign bit 0x8 (-0.25 -> -0 is 0x8).
    EXPECT_EQ(nibble(q_te, neg), 0x8 | s.te_code) << "x = " << -s.x;
    EXPECT_EQ(nibble(q_trt, neg), 0x8 | s.trt_code) << "x = " << -s.x;
  }
  // The packed bytes, low nibble first: te 0x17 0x32 0x54 0x76 0xa9 0xcb 0xed 0x0f;
  // trt 0x07 0x21 0x43 0x65 0x98 0xba 0xdc 0x0e.
  EXPECT_EQ(q_te.elements, (std::vector<std::uint8_t>{0x17, 0x32, 0x54, 0x76, 0xa9, 0xcb, 0xed, 0x0f}));
  EXPECT_EQ(q_trt.elements, (std::vector<std::uint8_t>{0x07, 0x21, 0x43, 0x65, 0x98, 0xba, 0xdc, 0x0e}));
  // Same global decode scale: S_dec is computed the TE way in both presets.
  EXPECT_EQ(bits(q_te.tensor.at(0).s_dec), bits(q_trt.tensor.at(0).s_dec));
}

// The difference is the table's: with an all-zero table (the correctly rounded reciprocal),
// rcp(S_enc) = S_dec and the TRT-LLM factor is TE's, so the stored bytes are TE's.
TEST(TrtllmPresetKnownAnswer, ZeroDeltaTableGivesTeBytes) {
  const RcpApproxTable zero = RcpApproxTable::from_deltas(std::vector<std::int8_t>(RcpApproxTable::kEntries, 0));
  const std::vector<float> row = block1();
  const QuantizedActivations q_trt0 = quantize_row(Recipe::nvfp4_trtllm(), row, kAmaxT1, &zero);
  EXPECT_EQ(q_trt0.elements, (std::vector<std::uint8_t>{0x17, 0x32, 0x54, 0x76, 0xa9, 0xcb, 0xed, 0x0f}));
}

// --- Known answer 2: the block-scale operation order (no table delta involved) ----------------
//
// Tensor amax 7: S_enc = 2688/7 = 384 exactly. fl(1/6) = 11184811 * 2^-26; rcp.approx(6) is the
// same (table delta at 6's significand 0x400000 is 0). Block amax 25/1024 = 0.0244140625.
// TE:  S_enc * fl(1/6) = 384 * 11184811 * 2^-26 = (2^32 + 128) * 2^-26 = 64 + 2^-19 -> 64 (ulp
//      2^-17 at 64); amax * 64 = 1.5625 exactly: the E4M3 midpoint of 1.5 (0x3C) and 1.625
//      (0x3D); RNE to the even mantissa -> 0x3C.
// TRT: amax * fl(1/6) = 25 * 11184811 * 2^-36 = 279620275 * 2^-36 -> 24 bits: 279620275 / 32 =
//      8738133.59 -> 8738134 * 2^-31; * 384 = 3355443456 * 2^-31 = 1.5625 + 2^-23 (exact):
//      above the midpoint -> 0x3D.
// Elements: TE factor = fl(1 / fl(1.5 * fl(1/384))); 1.5 * 11184811 * 2^-32 = 16777216.5 * 2^-32
//      -> 2^-8 (24 bits), so 256. TRT factor = rcp.approx(fl(1.625 * rcp.approx(384))) ~ 236.3.
//      x = 3.5/256: TE 3.5 exactly -> tie -> 4 (code 6); TRT ~3.23 -> 3 (code 5).
//      amax: TE 6.25 -> 6 (code 7, satfinite); TRT ~5.77 -> 6 (code 7).
TEST(TrtllmPresetKnownAnswer, BlockScaleOrderStoresDifferentScale) {
  REQUIRE_COMMITTED_DEFAULT();
  const RcpApproxTable& t = committed();
  constexpr float kAmaxT = 7.0f;
  constexpr float kAmax = 0.0244140625f;  // 25/1024
  constexpr float kX = 0.013671875f;      // 3.5/256
  // Derivation with the test's own arithmetic.
  ASSERT_EQ(2688.0f / kAmaxT, 384.0f);
  ASSERT_EQ(t.delta(0x400000), 0);
  const float inv6 = 1.0f / 6.0f;
  ASSERT_EQ(bits(inv6), 0x3E2AAAABu);
  ASSERT_EQ(bits(rcp_by_hand(t, 6.0f)), 0x3E2AAAABu);
  ASSERT_EQ(384.0f * inv6, 64.0f);
  ASSERT_EQ(kAmax * (384.0f * inv6), 1.5625f);
  ASSERT_EQ(bits(384.0f * (kAmax * inv6)), bits(0x1.900002p+0f));
  const float te_factor = 1.0f / (1.5f * (1.0f / 384.0f));
  ASSERT_EQ(te_factor, 256.0f);
  const float trt_factor = rcp_by_hand(t, 1.625f * rcp_by_hand(t, 384.0f));
  ASSERT_GT(trt_factor, 236.0f);
  ASSERT_LT(trt_factor, 236.5f);
  ASSERT_EQ(kX * te_factor, 3.5f);
  ASSERT_GT(kX * trt_factor, 3.0f);
  ASSERT_LT(kX * trt_factor, 3.25f);

  std::vector<float> row(16, 0.0f);
  row[0] = kAmax;
  row[1] = kX;
  row[2] = -kX;
  const QuantizedActivations q_te = quantize_row(Recipe::nvfp4_te(), row, kAmaxT);
  const QuantizedActivations q_trt = quantize_row(Recipe::nvfp4_trtllm(), row, kAmaxT);
  EXPECT_EQ(q_te.scales, std::vector<std::uint8_t>{0x3C});
  EXPECT_EQ(q_trt.scales, std::vector<std::uint8_t>{0x3D});
  EXPECT_EQ(q_te.elements, (std::vector<std::uint8_t>{0x67, 0x0e, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(q_trt.elements, (std::vector<std::uint8_t>{0x57, 0x0d, 0, 0, 0, 0, 0, 0}));
}

// --- `mxv quantize --recipe nvfp4_trtllm` out of the box ---------------------------------------
// No --rcp-table: the committed table is used, so known answer 1's bytes come out.
std::vector<std::uint8_t> file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST(TrtllmPresetCommand, RunsWithTheCommittedTableByDefault) {
  REQUIRE_COMMITTED_DEFAULT();
  const auto dir = std::filesystem::temp_directory_path() / ("mxv_trtllm_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<float> row = block1();
  {
    std::ofstream in(dir / "in.f32", std::ios::binary);
    in.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(row.size() * sizeof(float)));
  }
  QuantizeRequest r;
  r.input = (dir / "in.f32").string();
  r.cols = "16";
  r.recipe = "nvfp4_trtllm";
  r.tensor_amax = "61";
  r.out_elements = (dir / "e.bin").string();
  r.out_scales = (dir / "s.bin").string();
  r.out_global = (dir / "g.bin").string();
  std::ostringstream log;
  ASSERT_NO_THROW(run_quantize(r, log)) << log.str();
  EXPECT_EQ(file_bytes(r.out_elements),
            (std::vector<std::uint8_t>{0x07, 0x21, 0x43, 0x65, 0x98, 0xba, 0xdc, 0x0e}));
  EXPECT_EQ(file_bytes(r.out_scales), std::vector<std::uint8_t>{0x38});
  std::filesystem::remove_all(dir);
}

// --- Agreement on ordinary random blocks ------------------------------------------------------
//
// Expected: the presets store the same bytes except at near-ties. The two orders differ only in
// (a) the rounding of the block-scale input (different association, and rcp(6) = fl(1/6)), at
// most a couple of ulps apart, and (b) the element factor, moved by the table's +-1 ulp deltas
// and the different rounding of sf * S_dec: a few ulps. A stored byte can only change when a
// rounded value lies within those few ulps of a decision point (an E4M3 midpoint for sf, an E2M1
// one for an element). For random data that is ~2^-21 per value, so with 16 values a block
// disagrees with probability ~1e-5 or less: over 20000 blocks we expect 0, maybe 1 (measured
// 2026-11-29: 2 of 1,060,000 blocks over seeds 1-3 and 100-149). The test asserts
// that every disagreement is such a near-tie (within 8 ulps), and that at most 0.1% of blocks
// disagree, a bound that holds for any seed with a wide margin.
std::uint64_t test_seed() {
  if (const char* s = std::getenv("MXV_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  return std::random_device{}();
}

// Distance in ulps of `v` (> 0) from the nearest odd multiple of `half_step`: how close it is to
// a rounding decision point of a grid with step 2 * half_step.
double ulps_from_midpoint(float v, double half_step) {
  const double q = static_cast<double>(v) / half_step;  // exact: power-of-two scaling of a float
  const double odd = 2.0 * std::round((q - 1.0) / 2.0) + 1.0;  // the nearest odd integer
  const double d = std::fabs(q - odd);
  const double ulp = std::ldexp(1.0, std::ilogb(v) - 23);
  return d * half_step / ulp;
}

// E4M3 decision points near v: step 2^(e-3) for a normal binade 2^e (e >= -6), 2^-9 below.
double e4m3_ulps_from_midpoint(float v) {
  const int e = std::max(std::ilogb(v), -6);
  return ulps_from_midpoint(v, std::ldexp(1.0, e - 4));
}

// E2M1 decision points: 0.25, 0.75, 1.25, 1.75 (step 0.5), 2.5, 3.5 (step 1), 5 (step 2).
double e2m1_ulps_from_midpoint(float v) {
  const float a = std::fabs(v);
  if (a == 0.0f || a > 6.0f) return 1e9;
  if (a < 2.0f) return ulps_from_midpoint(a, 0.25);
  if (a < 4.0f) return ulps_from_midpoint(a, 0.5);
  return ulps_from_midpoint(a, 1.0);
}

TEST(TrtllmPresetAgreement, OrdinaryRandomBlocksAgreeExceptNearTies) {
  REQUIRE_COMMITTED_DEFAULT();
  const std::uint64_t seed = test_seed();
  std::cout << "seed " << seed << " (override with MXV_TEST_SEED)\n";
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_real_distribution<float> log2_amax(-20.0f, 20.0f);
  const Recipe te = Recipe::nvfp4_te();
  const Recipe trt = Recipe::nvfp4_trtllm();
  constexpr int kTensors = 200;
  constexpr int kBlocks = 100;  // per tensor
  int differing_blocks = 0;
  for (int tensor = 0; tensor < kTensors; ++tensor) {
    const float amax_t = std::exp2(log2_amax(rng));  // a random global scale
    const TensorScale ts_te = tensor_scale(te, amax_t);
    const TensorScale ts_trt = tensor_scale(trt, amax_t);
    ASSERT_EQ(bits(ts_te.s_enc), bits(ts_trt.s_enc));
    for (int b = 0; b < kBlocks; ++b) {
      float block[16];
      const float spread = std::exp2(-8.0f * std::fabs(unit(rng)));  // block amax in (2^-8, 1] * amax_t
      for (float& x : block) x = unit(rng) * amax_t * spread;
      const float amax = block_amax(te, block);
      const BlockScale s_te = choose_block_scale(te, amax, ts_te);
      const BlockScale s_trt = choose_block_scale(trt, amax, ts_trt);
      bool differs = false;
      if (s_te.code != s_trt.code) {
        differs = true;
        EXPECT_LE(e4m3_ulps_from_midpoint(s_te.scale_input), 8.0)
            << "scale " << std::hex << int(s_te.code) << " vs " << int(s_trt.code) << " not a near-tie: amax_t "
            << std::hexfloat << amax_t << " amax " << amax << " scale_input " << s_te.scale_input;
      } else {
        for (const float x : block) {
          const float p_te = prescale(s_te, x);
          if (element_code(te, p_te) != element_code(trt, prescale(s_trt, x))) {
            differs = true;
            EXPECT_LE(e2m1_ulps_from_midpoint(p_te), 8.0)
                << "element not a near-tie: amax_t " << std::hexfloat << amax_t << " x " << x << " te " << p_te
                << " trt " << prescale(s_trt, x);
          }
        }
      }
      differing_blocks += differs ? 1 : 0;
    }
  }
  std::cout << differing_blocks << " of " << kTensors * kBlocks << " random blocks differ between nvfp4_te and nvfp4_trtllm\n";
  EXPECT_LE(differing_blocks, kTensors * kBlocks / 1000);
}

// The near-tie checker must be able to fail: a value far from any E2M1 or E4M3 decision point
// is many ulps away; one on a decision point is 0 ulps away.
TEST(TrtllmPresetAgreement, NearTieCheckerRejectsFarValues) {
  EXPECT_EQ(e2m1_ulps_from_midpoint(2.5f), 0.0);
  EXPECT_EQ(e2m1_ulps_from_midpoint(hexf(0x40200001u)), 1.0);  // 2.5 + ulp
  EXPECT_EQ(e2m1_ulps_from_midpoint(hexf(0x405ffffeu)), 2.0);  // 3.5 - 2 ulp
  EXPECT_GT(e2m1_ulps_from_midpoint(3.0f), 1e5);
  EXPECT_GT(e2m1_ulps_from_midpoint(1.1f), 1e5);
  EXPECT_EQ(e4m3_ulps_from_midpoint(1.5625f), 0.0);
  EXPECT_EQ(e4m3_ulps_from_midpoint(hexf(0x3fc80001u)), 1.0);  // 1.5625 + ulp
  EXPECT_GT(e4m3_ulps_from_midpoint(1.5f), 1e5);
  EXPECT_EQ(e4m3_ulps_from_midpoint(std::ldexp(3.0f, -10)), 0.0);  // subnormal E4M3 midpoint 1.5 * 2^-9
  EXPECT_GT(e4m3_ulps_from_midpoint(std::ldexp(1.0f, -9)), 1e5);
}

}  // namespace
}  // namespace mxv
