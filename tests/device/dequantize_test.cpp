// Tests of the weight-dequantize kernels (kernels/dequantize_scalar.h, kernels/dequantize_tiled.h,
// launcher dequantize.h) on every backend (backend_fixture.h): MXFP4 and NVFP4 weights,
// K-packed [E, N, K/2] and N-packed [E, K, N/2] -> [E, N, K] fp32 / bf16 / fp16, byte for byte
// equal to the reference (mxv::dequantize_weights_to) through the check library; the test asserts
// which kernel ran (the gate boundary on both sides of every condition). Coalescing regression
// tests on the emulator pin the scalar kernel's per-lane sector pattern and the tiled kernel's full
// 128-byte store lines and load efficiency.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "backend_fixture.h"
#include "dequantize_inputs.h"
#include "device_weights.h"
#include "mxv/device/convert.h"
#include "mxv/device/dequantize.h"
#include "mxv/check/check.h"
#include "mxv/check/gtest.h"
#include "mxv/reference/weight_layout.h"

namespace {

using namespace mxv::device;
using mxv::WideType;
using mxv::WeightPacking;
using mxv::test::BackendParamTest;
using mxv::test::Inputs;
using mxv::test::make_inputs;
using mxv::test::Shape;

constexpr std::uint8_t kSentinel = 0xCD;

struct Case {
  const char* recipe;
  WideType out;
  Shape shape;
};

mxv::WideType ref_type(WideType t) {
  return t == WideType::kFp32 ? mxv::WideType::kFp32 : t == WideType::kBf16 ? mxv::WideType::kBf16 : mxv::WideType::kFp16;
}
mxv::check::CodeKind out_kind(WideType t) {
  return t == WideType::kFp32 ? mxv::check::CodeKind::kFp32
         : t == WideType::kBf16 ? mxv::check::CodeKind::kBf16
                                : mxv::check::CodeKind::kFp16;
}

/// Dequantizes `in` on `be` and holds the output to the reference byte for byte (sentinel-filled,
/// guards checked); `s.expect` is the kernel the gate must pick.
void expect_matches_reference(Backend& be, const mxv::Recipe& recipe, WideType out_type, const Shape& s,
                              const Inputs& in) {
  const mxv::test::DeviceWeights w(be, recipe, s, out_type, in, kSentinel);
  const DequantizeArgs& a = w.args;
  const DequantizeLaunch planned = plan_dequantize(a);
  be.clear_launch_log();
  dequantize(be, a);
  be.synchronize();
  ASSERT_EQ(be.launch_log().size(), 1u);
  EXPECT_EQ(be.launch_log().back().kernel, s.expect) << "gate: " << planned.gate.reason;

  const mxv::WeightPacking ref_packing =
      s.packing == WeightPacking::kKPacked ? mxv::WeightPacking::kKPacked : mxv::WeightPacking::kNPacked;
  const std::vector<std::uint8_t> expected = mxv::dequantize_weights_to(
      recipe, ref_packing, mxv::WeightShape{s.e, s.n, s.k}, in.packed, in.scales, in.s_dec, ref_type(out_type));
  const auto actual = be.download<std::uint8_t>(w.out);
  auto spec = mxv::check::OutputSpec::tensor("out", out_kind(out_type), static_cast<std::size_t>(s.n),
                                             static_cast<std::size_t>(s.k), static_cast<std::size_t>(s.e));
  spec.axes = {"expert", "n", "k"};
  mxv::check::Options opt;
  opt.sentinel = kSentinel;
  EXPECT_TRUE(mxv::check::matches(mxv::check::compare(spec, expected, actual, {}, opt)))
      << recipe.name << " " << s.why << " on " << be.name();
  for (const DeviceBuffer* b : {&w.packed, &w.scales, &w.s_dec, &w.out}) EXPECT_EQ(be.guard_damage(*b), "");
}

class DequantizeMatchesReference : public BackendParamTest<Case> {};

TEST_P(DequantizeMatchesReference, ByteExactAndRightKernel) {
  const Case& c = param();
  const mxv::Recipe recipe = mxv::Recipe::by_name(c.recipe);
  expect_matches_reference(backend(), recipe, c.out, c.shape, make_inputs(recipe, c.shape, mxv::test::case_salt(c.shape)));
}

constexpr auto K = WeightPacking::kKPacked;
constexpr auto N = WeightPacking::kNPacked;
constexpr const char* kTiled = "dequantize_tiled";
constexpr const char* kScalar = "dequantize_scalar";

// Shapes small enough for the emulator; each names the edge it covers.
const std::vector<Shape>& shapes() {
  static const std::vector<Shape> v = {
      {K, 1, 1, 16, kScalar, "one row, N odd, K = one NVFP4 block"},
      {K, 1, 3, 48, kScalar, "odd N, K = 48 (one block short of 64)"},
      {K, 2, 5, 80, kScalar, "odd N, K = 80 (one block past 64), two experts"},
      {K, 1, 2, 400, kScalar, "K = 400, not a multiple of 64"},
      {K, 1, 63, 64, kScalar, "gate: N odd (63) with K = 64"},
      {K, 1, 64, 64, kTiled, "gate: N even (64) with K = 64"},
      {K, 1, 64, 96, kScalar, "gate: K = 96, not a multiple of 64"},
      {K, 1, 64, 128, kTiled, "gate: K = 128"},
      {K, 2, 66, 128, kTiled, "partial row tile (66 rows), two experts"},
      {K, 2, 127, 64, kScalar, "127 rows per expert (odd)"},
      {K, 1, 128, 64, kTiled, "128 rows"},
      {K, 1, 129, 64, kScalar, "129 rows (odd)"},
      {K, 2, 130, 192, kTiled, "130 rows, K = 3 tiles"},
      {N, 1, 2, 16, kScalar, "N-packed, N = 2, K = 16"},
      {N, 1, 2, 17, kScalar, "N-packed, odd K (partial scale block)"},
      {N, 3, 64, 64, kTiled, "N-packed tile, three experts"},
      {N, 1, 66, 128, kTiled, "N-packed partial row tile (33-byte packed rows)"},
      {N, 1, 128, 48, kScalar, "N-packed, K one block short of 64"},
      {N, 1, 128, 80, kScalar, "N-packed, K one block past 64"},
      {N, 2, 130, 400, kScalar, "N-packed, K = 400"},
      {N, 1, 128, 128, kTiled, "N-packed, 128 rows"},
      {N, 1, 96, 128, kTiled, "N-packed, N = 96: the last 16-byte chunk of each packed row tile unused"},
      {N, 2, 288, 64, kTiled, "N-packed, two 256-row tiles, the second 32 rows"},
      {K, 1, 256, 256, kTiled, "larger tiled shape (emulator-sized)"},
  };
  return v;
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (const char* r : {"nvfp4_te", "mxfp4_nvidia", "ort_qmoe"}) {
    for (WideType t : {WideType::kFp32, WideType::kBf16, WideType::kFp16}) {
      for (const Shape& s : shapes()) v.push_back({r, t, s});
    }
  }
  return v;
}

std::string case_name(const Case& c) {
  const Shape& s = c.shape;
  return std::string(c.recipe) + "_" + std::string(to_string(c.out)) + (s.packing == K ? "_kpacked_" : "_npacked_") +
         "E" + std::to_string(s.e) + "_N" + std::to_string(s.n) + "_K" + std::to_string(s.k);
}

INSTANTIATE_TEST_SUITE_P(Shapes, DequantizeMatchesReference,
                         ::testing::Combine(mxv::test::all_backends(), ::testing::ValuesIn(cases())),
                         mxv::test::backend_case_names(case_name));

// Large tiled shapes, GPU only (the emulator would take minutes).
std::vector<Case> large_cases() {
  std::vector<Case> v;
  for (const char* r : {"nvfp4_te", "mxfp4_nvidia"}) {
    for (WideType t : {WideType::kFp32, WideType::kBf16}) {
      v.push_back({r, t, {K, 8, 1024, 2048, kTiled, "large K-packed"}});
      v.push_back({r, t, {N, 8, 2048, 1024, kTiled, "large N-packed (ONNX Runtime QMoE layout)"}});
      v.push_back({r, t, {N, 4, 2880, 2944, kTiled, "gpt-oss-like: N = 2880 (45 row tiles), K = 46 tiles"}});
    }
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(LargeShapes, DequantizeMatchesReference,
                         ::testing::Combine(::testing::Values(BackendKind::kCuda), ::testing::ValuesIn(large_cases())),
                         mxv::test::backend_case_names(case_name));

// The tiled kernel's fast path multiplies by s_dec * 2^8, which is exact only for |s_dec| < 2^120;
// from there on the general path must take over. Random weights under s_dec just below 2^120, at
// it, at 2^125 and at FLT_MAX (products overflow to Inf where the reference's do), NVFP4, a tiled
// shape of each packing, every output type.
class DequantizeTiledLargeSdec : public BackendParamTest<WideType> {};

TEST_P(DequantizeTiledLargeSdec, GeneralPathPastTheFastLimit) {
  const mxv::Recipe recipe = mxv::Recipe::nvfp4_te();
  for (const Shape& s : {Shape{K, 1, 64, 64, kTiled, "K-packed tile, large s_dec"},
                         Shape{N, 1, 64, 64, kTiled, "N-packed tile, large s_dec"}}) {
    for (const float s_dec : {0x1.fffffep119f, 0x1p120f, 0x1p125f, std::numeric_limits<float>::max()}) {
      Inputs in = make_inputs(recipe, s, mxv::test::case_salt(s));
      std::fill(in.s_dec.begin(), in.s_dec.end(), s_dec);
      SCOPED_TRACE(std::string(s.why) + ", s_dec = " + std::to_string(s_dec));
      expect_matches_reference(backend(), recipe, param(), s, in);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Outputs, DequantizeTiledLargeSdec,
                         ::testing::Combine(mxv::test::all_backends(),
                                            ::testing::Values(WideType::kFp32, WideType::kBf16, WideType::kFp16)),
                         mxv::test::backend_case_names([](WideType out) { return std::string(to_string(out)); }));

// ---- gate limits and argument validation (planning only; nothing launches) ----------------------

class DequantizePlan : public BackendParamTest<mxv::test::NoCase> {};

TEST_P(DequantizePlan, GridLimitOnBothSides) {
  // E <= 65535 (gridDim.z) takes the tiled kernel; 65536 experts fall back to the scalar one.
  const mxv::Recipe r = mxv::Recipe::mxfp4_nvidia();
  for (const std::int64_t e : {std::int64_t{65535}, std::int64_t{65536}}) {
    DeviceBuffer packed = backend().alloc(static_cast<std::size_t>(e * 2 * 64 / 2), "packed");
    DeviceBuffer scales = backend().alloc(static_cast<std::size_t>(e * 2 * 2), "scales");
    DeviceBuffer out = backend().alloc(static_cast<std::size_t>(e * 2 * 64 * 2), "out");
    DequantizeArgs a;
    a.recipe = r;
    a.out_type = WideType::kBf16;
    a.experts = e;
    a.n = 2;
    a.k = 64;
    a.packed = &packed;
    a.scales = &scales;
    a.out = &out;
    const DequantizeLaunch l = plan_dequantize(a);
    EXPECT_EQ(l.plan.kernel, e <= 65535 ? kTiled : kScalar) << l.gate.reason;
    if (e > 65535) {
      EXPECT_NE(l.gate.reason.find("gridDim.z"), std::string::npos) << l.gate.reason;
      a.variant = DequantizeVariant::kTiled;
      EXPECT_THROW(plan_dequantize(a), std::invalid_argument);
    }
  }
}

// The launcher accepts exactly the presets it declares (mxv verify and these tests check the
// kernels against that list), and the list is every preset with E2M1 elements.
TEST_P(DequantizePlan, AcceptsExactlyTheDeclaredPresets) {
  DeviceBuffer packed = backend().alloc(2 * 64 / 2, "packed");
  DeviceBuffer scales = backend().alloc(2 * 4, "scales");
  DeviceBuffer s_dec = backend().alloc(4, "s_dec");
  DeviceBuffer out = backend().alloc(2 * 64 * 4, "out");
  std::vector<std::string> accepted;
  for (const auto name : mxv::Recipe::preset_names()) {
    DequantizeArgs a;
    a.recipe = mxv::Recipe::by_name(name);
    a.n = 2;
    a.k = 64;
    a.packed = &packed;
    a.scales = &scales;
    a.s_dec = &s_dec;
    a.out = &out;
    try {
      (void)plan_dequantize(a);
      accepted.emplace_back(name);
    } catch (const std::invalid_argument&) {
    }
  }
  const auto list = dequantize_supported_presets();
  const std::vector<std::string> declared(list.begin(), list.end());
  EXPECT_EQ(accepted, declared);
  EXPECT_EQ(declared, (std::vector<std::string>{"nvfp4_te", "nvfp4_trtllm", "nvfp4_cutlass_ref", "mxfp4_nvidia",
                                                "mxfp4_ocp", "ort_qmoe"}));
}

TEST_P(DequantizePlan, RejectsBadArguments) {
  DeviceBuffer small = backend().alloc(16, "small");
  DeviceBuffer big = backend().alloc(4096, "big");
  DequantizeArgs a;
  a.recipe = mxv::Recipe::nvfp4_te();
  a.n = 4;
  a.k = 32;
  a.packed = &big;
  a.scales = &big;
  a.s_dec = nullptr;  // NVFP4 needs it
  a.out = &big;
  EXPECT_THROW(plan_dequantize(a), std::invalid_argument);
  a.s_dec = &small;  // 16 bytes: neither 1 float nor E = 1 floats
  EXPECT_THROW(plan_dequantize(a), std::invalid_argument);
  a.recipe = mxv::Recipe::mxfp4_nvidia();
  a.packed = &small;  // 4 * 32 / 2 = 64 bytes needed
  try {
    plan_dequantize(a);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("packed"), std::string::npos) << e.what();
  }
  a.packed = &big;
  a.k = 33;  // odd K cannot be K-packed
  EXPECT_THROW(plan_dequantize(a), std::invalid_argument);
  a.k = 32;
  a.n = 0;
  EXPECT_THROW(plan_dequantize(a), std::invalid_argument);
  a.n = 3;
  a.packing = WeightPacking::kNPacked;  // odd N cannot be N-packed
  EXPECT_THROW(plan_dequantize(a), std::invalid_argument);
  a.recipe = mxv::Recipe::mxfp8_nvidia();  // E4M3 elements: not FP4 weights
  a.packing = WeightPacking::kKPacked;
  EXPECT_THROW(plan_dequantize(a), std::invalid_argument);
  EXPECT_TRUE(backend().launch_log().empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, DequantizePlan,
                         ::testing::Combine(mxv::test::all_backends(), ::testing::Values(mxv::test::NoCase{})),
                         mxv::test::backend_only_names());

// ---- coalescing regression (emulator) -------------------------------------------------------------

class DequantizeCoalescing : public BackendParamTest<mxv::test::NoCase> {
 protected:
  /// Runs one dequantize of zeros-free random weights and returns the kernel's coalescing report.
  mxv::emu::CoalescingReport run(WeightPacking packing, std::int64_t n, std::int64_t k, WideType t,
                                 DequantizeVariant variant, const char* recipe_name) {
    const mxv::Recipe r = mxv::Recipe::by_name(recipe_name);
    const Shape s{packing, 1, n, k, "", ""};
    const Inputs in = make_inputs(r, s, 7);
    mxv::test::DeviceWeights w(backend(), r, s, t, in);
    DequantizeArgs& a = w.args;
    a.variant = variant;
    emulated()->reset_coalescing();
    const LaunchPlan plan = dequantize(backend(), a);
    return emulated()->coalescing(plan.kernel);
  }
};

// The scalar kernel on N-packed weights: lane i of a warp has output i (k fastest), so it reads
// packed byte k*(N/2) + n/2. Expected sectors per request derived from that layout formula here
// (distinct 32-byte sectors among the 32 lane addresses; buffers are 256-byte aligned).
TEST_P(DequantizeCoalescing, ScalarNPackedShowsOneSectorPerLane) {
  const std::int64_t n = 256, k = 64;
  const auto report = run(WeightPacking::kNPacked, n, k, WideType::kBf16, DequantizeVariant::kScalar, "mxfp4_nvidia");
  std::uint64_t sectors = 0, requests = 0;
  for (std::int64_t w = 0; w < n * k / 32; ++w) {
    std::set<std::int64_t> touched;
    for (std::int64_t lane = 0; lane < 32; ++lane) {
      const std::int64_t i = w * 32 + lane, nn = i / k, kk = i % k;
      touched.insert((kk * (n / 2) + nn / 2) / 32);
    }
    sectors += touched.size();
    ++requests;
  }
  const double expected_spr = static_cast<double>(sectors) / static_cast<double>(requests);  // 32: N/2 = 128 >= 32
  ASSERT_EQ(expected_spr, 32.0);
  const mxv::emu::SiteCoalescing* packed_site = nullptr;
  for (const auto& site : report.sites) {
    if (site.kind == mxv::emu::AccessKind::kLoad && site.figures.sectors_per_request() == expected_spr) packed_site = &site;
  }
  ASSERT_NE(packed_site, nullptr) << "no load site with " << expected_spr << " sectors/request:\n" << report.to_string();
  EXPECT_EQ(packed_site->figures.requests, requests) << report.to_string();
  // 32 one-byte lanes over 32 sectors: 32 / 1024 bytes = 3.1%.
  EXPECT_DOUBLE_EQ(packed_site->figures.efficiency(), 32.0 / 1024.0) << report.to_string();
}

// The tiled kernel's stores: the 8 lanes of each row write one contiguous, aligned 128-byte run,
// so a warp request (4 rows) is exactly 4 full lines = 16 sectors, efficiency 1 (fp32: each of the
// two stores per thread is such a request; bf16/fp16: the one store).
TEST_P(DequantizeCoalescing, TiledStoresAreFullLines) {
  for (WeightPacking packing : {WeightPacking::kKPacked, WeightPacking::kNPacked}) {
    for (WideType t : {WideType::kFp32, WideType::kBf16, WideType::kFp16}) {
      const auto report = run(packing, 128, 128, t, DequantizeVariant::kTiled, "nvfp4_te");
      const auto* st = report.only(mxv::emu::AccessKind::kStore);
      ASSERT_NE(st, nullptr) << report.to_string();
      EXPECT_EQ(st->figures.lines_per_request(), 4.0) << report.to_string();
      EXPECT_EQ(st->figures.sectors_per_request(), 16.0) << report.to_string();
      EXPECT_EQ(st->figures.efficiency(), 1.0) << report.to_string();
      const std::uint64_t stores_per_thread = t == WideType::kFp32 ? 2 : 1;
      EXPECT_EQ(st->figures.requests, 128 * 128 / 8 / 32 * stores_per_thread) << report.to_string();
    }
  }
}

// The tiled kernel's loads, MXFP4 (no s_dec), N = K = 128, derived per warp.
//   K-packed ("units"): one 32-bit load per lane; each row's 8 lanes read 32 contiguous bytes at
//     row*64 + 32*blockIdx.x, 32-aligned -> 4 sectors for 128 bytes. Scales: row*4 + (k0 + 8x)/32,
//     rows 4r..4r+3 -> 16 contiguous bytes in one sector, 32 one-byte lanes -> 32 bytes for 1
//     sector. Every fetched byte is requested: kernel-level load efficiency >= 1.0.
TEST_P(DequantizeCoalescing, TiledKPackedLoadEfficiencyAtLeastOne) {
  const auto report = run(WeightPacking::kKPacked, 128, 128, WideType::kBf16, DequantizeVariant::kTiled, "mxfp4_nvidia");
  EXPECT_GE(report.loads.efficiency(), 1.0) << report.to_string();
  EXPECT_TRUE(report.violations({0, 1.0}).empty()) << report.to_string();
}

//   N-packed ("transpose", N % 32 == 0; grid (2, 1, 1) x block (8, 32): 2 blocks of 8 warps):
//   - packed staging: thread l loads 16-byte chunks q = l and l + 256 of the 64 k rows x 128
//     bytes, k row q/8, bytes 16*(q%8) of the row tile; N/2 = 64, so chunks q%8 = 0..3 exist.
//     Each warp request covers 4 k rows x 64 contiguous, 64-aligned bytes: 8 sectors, all
//     requested. 2 blocks x 8 warps x 2 = 32 requests, 100%;
//   - scale words: thread l < 128 (rows that exist: warps 0..3) loads the 2 scale bytes of row l
//     for its 64-k tile (16 bits at row*4 + k0/32): 32 rows x 2 bytes 4 apart = 64 of the 128
//     bytes of 4 sectors. 2 x 4 = 8 requests, 50% (the other k tile reads the other halves).
TEST_P(DequantizeCoalescing, TiledNPackedStagingLoadsAreWholeLines) {
  const auto report = run(WeightPacking::kNPacked, 128, 128, WideType::kBf16, DequantizeVariant::kTiled, "mxfp4_nvidia");
  using P = std::pair<std::uint64_t, std::uint64_t>;
  std::vector<P> loads;
  for (const auto& site : report.sites) {
    if (site.kind == mxv::emu::AccessKind::kLoad) loads.emplace_back(site.figures.requests, site.figures.sectors);
  }
  std::sort(loads.begin(), loads.end());
  EXPECT_EQ(loads, (std::vector<P>{{8, 8 * 4}, {32, 32 * 8}})) << report.to_string();
  EXPECT_DOUBLE_EQ(report.loads.efficiency(), (32.0 * 256 + 8.0 * 64) / (32.0 * 256 + 8.0 * 128)) << report.to_string();
}

INSTANTIATE_TEST_SUITE_P(Emulator, DequantizeCoalescing,
                         ::testing::Combine(::testing::Values(BackendKind::kEmulated), ::testing::Values(mxv::test::NoCase{})),
                         mxv::test::backend_only_names());

}  // namespace
