// Tests of `mxv verify` (golden/include/mxv/golden/verify.h): the catalogue covers every kernel and
// exactly the presets each kernel's launcher declares or accepts (asked of the launchers here, not
// copied), and the edge shapes of docs/verification.md section 5; a --quick run on the emulator
// passes; planted bugs (a nibble swap and a damaged guard byte injected through the test hook) make
// verify report FAIL with the right mismatch class and exit 1; an unavailable or unknown backend is
// a usage error (exit 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "mxv/device/quantize.h"
#include "mxv/device/swiglu_quantize.h"
#include "mxv/device/backend.h"
#include "mxv/device/dequantize.h"
#include "mxv/emulation/emulated_backend.h"
#include "mxv/golden/verify.h"
#include "mxv/test_support/contains.h"

namespace mxv::golden {
namespace {

std::set<std::string> catalogue_presets(const std::vector<VerifyCase>& cases, VerifyKernel k) {
  std::set<std::string> s;
  for (const VerifyCase& c : cases) {
    if (c.kernel == k) s.insert(c.preset);
  }
  return s;
}

std::set<std::string> as_set(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

std::set<std::string> declared(std::span<const std::string_view> presets) { return {presets.begin(), presets.end()}; }

TEST(VerifyCatalogue, CoversEveryKernelAndExactlyTheSupportedPresets) {
  // The declared lists; the device tests (QuantizePlan.SupportsExactlyTheDeclaredPresets,
  // DequantizePlan and SwigluQuantizePlan .AcceptsExactlyTheDeclaredPresets) hold each launcher to
  // its list.
  const std::set<std::string> quantize_declared = declared(device::quantize_supported_presets());
  const std::set<std::string> dequantize_declared = declared(device::dequantize_supported_presets());
  const std::set<std::string> swiglu_declared = declared(device::swiglu_quantize_supported_presets());
  const std::set<std::string> convert_formats = {"e4m3", "e2m1", "e8m0-rz", "e8m0-rp"};
  ASSERT_FALSE(dequantize_declared.empty());
  ASSERT_FALSE(swiglu_declared.empty());
  for (const bool quick : {false, true}) {
    SCOPED_TRACE(quick ? "--quick" : "full");
    const std::vector<VerifyCase> cases = verify_catalogue(quick);
    EXPECT_EQ(catalogue_presets(cases, VerifyKernel::kQuantize), quantize_declared);
    EXPECT_EQ(catalogue_presets(cases, VerifyKernel::kDequantize), dequantize_declared);
    EXPECT_EQ(catalogue_presets(cases, VerifyKernel::kSwigluQuantize), swiglu_declared);
    EXPECT_EQ(catalogue_presets(cases, VerifyKernel::kConvert), convert_formats);
  }
  EXPECT_EQ(as_set(supported_presets(VerifyKernel::kQuantize)), quantize_declared);
  EXPECT_EQ(as_set(supported_presets(VerifyKernel::kDequantize)), dequantize_declared);
  EXPECT_EQ(as_set(supported_presets(VerifyKernel::kSwigluQuantize)), swiglu_declared);
}

TEST(VerifyCatalogue, FullCatalogueHasTheIssue5EdgeShapesAndEveryDtype) {
  const std::vector<VerifyCase> cases = verify_catalogue(false);
  std::set<std::int64_t> quantize_k;
  std::set<std::string> dequant_variants, quantize_variants;
  std::set<WideType> dequant_dtypes, quantize_dtypes, swiglu_dtypes;
  bool rows_of_one = false, odd_n = false, grouped = false, n_packed = false;
  std::set<std::string> ids;
  for (const VerifyCase& c : cases) {
    EXPECT_TRUE(ids.insert(c.id()).second) << "duplicate case " << c.id();
    EXPECT_FALSE(c.why.empty()) << c.id();
    if (c.kernel == VerifyKernel::kQuantize) {
      quantize_k.insert(c.cols);
      quantize_variants.insert(c.expect_variant);
      quantize_dtypes.insert(c.dtype);
      rows_of_one |= c.rows == 1;
      grouped |= c.groups == std::vector<std::int64_t>{1, 127, 128, 129};
    }
    if (c.kernel == VerifyKernel::kDequantize) {
      dequant_variants.insert(c.expect_variant);
      dequant_dtypes.insert(c.dtype);
      odd_n |= c.rows % 2 == 1;
      n_packed |= c.n_packed;
    }
    if (c.kernel == VerifyKernel::kSwigluQuantize) swiglu_dtypes.insert(c.dtype);
  }
  for (const std::int64_t k : {16, 48, 80, 400}) EXPECT_TRUE(quantize_k.count(k)) << "K = " << k;
  EXPECT_EQ(dequant_variants, (std::set<std::string>{"dequantize_scalar", "dequantize_tiled"}));
  EXPECT_EQ(quantize_variants, (std::set<std::string>{"quantize_scalar", "quantize_vector"}));
  EXPECT_EQ(dequant_dtypes, (std::set<WideType>{WideType::kFp32, WideType::kBf16, WideType::kFp16}));
  EXPECT_EQ(quantize_dtypes, (std::set<WideType>{WideType::kFp32, WideType::kBf16}));
  EXPECT_EQ(swiglu_dtypes, (std::set<WideType>{WideType::kFp32, WideType::kBf16}));
  EXPECT_TRUE(rows_of_one && odd_n && grouped && n_packed);
  EXPECT_LT(verify_catalogue(true).size(), cases.size() / 4);
}

TEST(VerifyInputs, CaseSeedDependsOnRunSeedAndCase) {
  // A case's seed depends on the run seed and on the case, nothing else.
  const VerifyCase c = verify_catalogue(true).front();
  EXPECT_EQ(case_seed(7, c), case_seed(7, c));
  EXPECT_NE(case_seed(7, c), case_seed(8, c));
}

/// A usage error: exit code 2 before any case ran, the error stream naming the problem.
::testing::AssertionResult usage_error(const VerifyRun& run, const std::ostringstream& err, const std::string& names) {
  if (run.exit_code != 2) return ::testing::AssertionFailure() << "exit code " << run.exit_code << ", not 2";
  if (!run.results.empty()) return ::testing::AssertionFailure() << run.results.size() << " cases ran";
  if (err.str().find(names) == std::string::npos) {
    return ::testing::AssertionFailure() << "the error stream does not name '" << names << "':\n" << err.str();
  }
  return ::testing::AssertionSuccess();
}

/// Options of a quick run (the catalogue's small subset) of `kernel` on `backend`.
VerifyOptions quick(const std::string& backend, const std::string& kernel = "all") {
  VerifyOptions o;
  o.backend = backend;
  o.kernel = kernel;
  o.quick = true;
  return o;
}

TEST(VerifyRun, emulated_QuickRunPasses) {
  VerifyOptions o = quick("emulated");
  std::ostringstream out, err;
  const VerifyRun run = run_verify(o, out, err);
  EXPECT_EQ(run.exit_code, 0) << out.str() << err.str();
  EXPECT_EQ(run.results.size(), verify_catalogue(true).size());
  std::set<VerifyKernel> kernels;
  for (const CaseResult& r : run.results) {
    EXPECT_TRUE(r.pass) << r.vcase.id() << ": " << r.full_report;
    EXPECT_GT(r.bytes_compared, 0u) << r.vcase.id();
    EXPECT_FALSE(r.variant.empty()) << r.vcase.id();
    EXPECT_EQ(r.backend, "emulated");
    kernels.insert(r.vcase.kernel);
  }
  EXPECT_EQ(kernels.size(), kAllVerifyKernels.size());
  EXPECT_NE(out.str().find("total emulated: " + std::to_string(run.results.size()) + " passed, 0 failed"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("seed " + std::to_string(kDefaultVerifySeed)), std::string::npos) << out.str();
}

// Planted bug: the first quantize case's elements come back with one byte's nibbles swapped.
TEST(VerifyRun, emulated_PlantedNibbleSwapFailsWithItsClassAndExitsOne) {
  VerifyOptions o = quick("emulated", "quantize");
  bool planted = false;
  o.tamper = [&](const VerifyCase&, std::string_view output, std::vector<std::uint8_t>& actual) {
    if (planted || output != "elements") return;
    for (std::size_t i = device::kGuardBytes; i + device::kGuardBytes < actual.size(); ++i) {
      if ((actual[i] >> 4) != (actual[i] & 0xF)) {
        actual[i] = static_cast<std::uint8_t>((actual[i] << 4) | (actual[i] >> 4));
        planted = true;
        return;
      }
    }
  };
  std::ostringstream out, err;
  const VerifyRun run = run_verify(o, out, err);
  ASSERT_TRUE(planted);
  EXPECT_EQ(run.exit_code, 1);
  ASSERT_FALSE(run.results.empty());
  const CaseResult& bad = run.results.front();
  EXPECT_FALSE(bad.pass);
  EXPECT_EQ(bad.class_counts[static_cast<std::size_t>(check::MismatchClass::kNibbleSwap)], 2u) << bad.full_report;
  EXPECT_NE(bad.summary.find("nibble-swap"), std::string::npos) << bad.summary;
  for (std::size_t i = 1; i < run.results.size(); ++i) EXPECT_TRUE(run.results[i].pass) << run.results[i].vcase.id();
  EXPECT_NE(out.str().find("FAIL elements"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("first failure: quantize"), std::string::npos) << out.str();
}

// Planted bug: a byte past the end of a dequantize output (its trailing guard) changed.
TEST(VerifyRun, emulated_PlantedGuardDamageIsOutOfBounds) {
  VerifyOptions o = quick("emulated", "dequantize");
  o.tamper = [](const VerifyCase&, std::string_view output, std::vector<std::uint8_t>& actual) {
    if (output == "out") actual[actual.size() - device::kGuardBytes + 3] ^= 0x40;
  };
  std::ostringstream out, err;
  const VerifyRun run = run_verify(o, out, err);
  EXPECT_EQ(run.exit_code, 1);
  for (const CaseResult& r : run.results) {
    EXPECT_FALSE(r.pass) << r.vcase.id();
    EXPECT_EQ(r.class_counts[static_cast<std::size_t>(check::MismatchClass::kOutOfBounds)], 1u) << r.full_report;
    EXPECT_NE(r.summary.find("out-of-bounds"), std::string::npos) << r.summary;
  }
}

TEST(VerifyUsage, UnavailableOrUnknownBackendExitsTwoWithTheReason) {
  const device::Availability cuda = emu::availability(device::BackendKind::kCuda);
  std::ostringstream out, err;
  VerifyOptions o;
  o.quick = true;
  o.backend = "tpu";
  EXPECT_TRUE(usage_error(run_verify(o, out, err), err, "--backend 'tpu'"));
  o.backend = "emulated";
  o.kernel = "gemm";
  err.str("");
  EXPECT_TRUE(usage_error(run_verify(o, out, err), err, "--kernel 'gemm'"));
  if (cuda.available) GTEST_SKIP() << "a GPU is present: the unavailable-cuda path cannot be exercised here";
  o.backend = "cuda";
  o.kernel = "all";
  err.str("");
  const VerifyRun run = run_verify(o, out, err);
  EXPECT_TRUE(usage_error(run, err, "unavailable: "));
  EXPECT_NE(err.str().find(cuda.reason), std::string::npos) << err.str();
}

// --require-backend cuda turns a missing GPU from a skip into a usage error, before any case runs.
TEST(VerifyUsage, RequireBackendCudaFailsWithoutAGpu) {
  const device::Availability cuda = emu::availability(device::BackendKind::kCuda);
  if (cuda.available) GTEST_SKIP() << "a GPU is present: the requirement is met";
  VerifyOptions o;
  o.quick = true;
  o.require_backend = "cuda";
  std::ostringstream out, err;
  EXPECT_TRUE(usage_error(run_verify(o, out, err), err, "--require-backend cuda"));
  o.require_backend = "tpu";
  EXPECT_EQ(run_verify(o, out, err).exit_code, 2);
}

// A --json path that cannot be written is a usage error found before the run, not after it.
TEST(VerifyUsage, BadJsonPathFailsBeforeRunning) {
  VerifyOptions o = quick("emulated");
  o.json_path = "/nonexistent-folder/report.json";
  std::ostringstream out, err;
  EXPECT_TRUE(usage_error(run_verify(o, out, err), err, "--json: '/nonexistent-folder/report.json'"));
}

// --json -: the JSON alone on the output stream, with totals; the text report on the error stream.
TEST(VerifyRun, emulated_JsonToStandardOutputHasTotals) {
  VerifyOptions o = quick("emulated", "convert");
  o.json_path = "-";
  std::ostringstream out, err;
  const VerifyRun run = run_verify(o, out, err);
  ASSERT_EQ(run.exit_code, 0) << err.str();
  const std::string j = out.str();
  EXPECT_EQ(j.front(), '{') << j;
  const std::size_t totals = j.find("\"totals\": {");
  ASSERT_NE(totals, std::string::npos) << j;
  const std::string n = std::to_string(run.results.size());
  EXPECT_EQ(j.find("\"cases\": " + n + ",", totals), j.find("\"cases\"", totals)) << j;
  EXPECT_NE(j.find("\"passed\": " + n + ",", totals), std::string::npos) << j;
  EXPECT_NE(j.find("\"failed\": 0", totals), std::string::npos) << j;
  EXPECT_NE(j.find("\"not_run\""), std::string::npos) << j;
  EXPECT_EQ(j.find("Summary"), std::string::npos) << j;
  EXPECT_NE(err.str().find("Summary per kernel and backend"), std::string::npos) << err.str();
}

// The report says what it did not run (a backend without its hardware, presets and formats no
// kernel supports, the unfused pair), a summary row per kernel and a legend; progress lines
// (not a terminal) name each finished kernel.
TEST(VerifyRun, emulated_ReportHasSummaryNotRunAndLegend) {
  VerifyOptions o = quick("emulated", "swiglu-quantize");
  std::ostringstream out, err;
  const VerifyRun run = run_verify(o, out, err);
  ASSERT_EQ(run.exit_code, 0) << out.str();
  const std::string text = out.str();
  EXPECT_TRUE(test_support::contains_all(text, {
      "swiglu-quantize  emulated", "Not run here:", "swiglu-quantize --unfused", "Legend:", "swz",
      "on emulated only (the GPU was not tested)"}));
  EXPECT_NE(err.str().find("mxv verify: emulated swiglu-quantize: " + std::to_string(run.results.size()) + " cases, 0 failed"),
            std::string::npos)
      << err.str();
}

TEST(VerifyRun, emulated_AutoWithoutGpuReportsTheSkippedBackend) {
  const device::Availability cuda = emu::availability(device::BackendKind::kCuda);
  if (cuda.available) GTEST_SKIP() << "a GPU is present: auto runs cuda";
  VerifyOptions o = quick("auto", "convert");
  std::ostringstream out, err;
  EXPECT_EQ(run_verify(o, out, err).exit_code, 0) << out.str();
  // "convert ue4m3": a format no convert kernel supports, so not in the catalogue.
  EXPECT_TRUE(test_support::contains_all(out.str(), {"cuda backend skipped: ", cuda.reason, "convert ue4m3"}));
}

}  // namespace
}  // namespace mxv::golden
