// The ml_dtypes dialects (dialect_rules.h) against the installed ml_dtypes itself over ALL 2^32
// fp32 bit patterns, per format: float8_e4m3fn, float4_e2m1fn, float8_e8m0fnu (docs/semantics.md
// section 3). The installed release picks the dialect it is held to: 0.6.x -> ml_dtypes@0.6,
// 0.7.x -> ml_dtypes; any other release is held to the newest (ml_dtypes) with a note, so a
// release that changes behaviour fails here rather than passing unnoticed.
// The oracle is ml_dtypes_dialect.py, run as two python3 processes (one per core) that stream
// the codes of their chunks through a pipe; each chunk is compared byte for byte with
// mxv::encode_fp32_pattern_range. Skips with the reason when python3, numpy or ml_dtypes is
// missing. The interpreter is $MXV_PYTHON (default python3).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mxv/reference/float_format.h"

#ifndef MXV_ML_DTYPES_SCRIPT
#error "MXV_ML_DTYPES_SCRIPT must name ml_dtypes_dialect.py"
#endif

namespace mxv {
namespace {

constexpr std::uint32_t kChunk = 1u << 24;

std::string python() {
  const char* p = std::getenv("MXV_PYTHON");
  return p != nullptr && *p != '\0' ? p : "python3";
}

// Runs a command and returns its stdout (first line), or nullopt-ish empty on failure.
bool run_capture(const std::string& cmd, std::string& out) {
  FILE* f = ::popen((cmd + " 2>/dev/null").c_str(), "r");
  if (f == nullptr) return false;
  char buf[256];
  out.clear();
  while (std::fgets(buf, sizeof buf, f) != nullptr) out += buf;
  return ::pclose(f) == 0;
}

struct Mismatch {
  std::uint32_t input;
  unsigned ml_dtypes;
  unsigned mxv;
};

struct Case {
  const char* name;  // the script's format name
  const FloatFormat* format;
  Saturation saturation;  // the one mode ml_dtypes has for the type (always nearest-even)
};

const Case kCases[] = {
    {"e4m3", &kE4M3, Saturation::kNone},
    {"e2m1", &kE2M1, Saturation::kFinite},
    {"e8m0", &kE8M0, Saturation::kNone},
};

// The dialect modelling the release the oracle script reports ("ml_dtypes X.Y.Z numpy ...").
Dialect dialect_for(const std::string& version) {
  if (version.rfind("ml_dtypes 0.6.", 0) == 0) return Dialect::kMlDtypes06;
  if (version.rfind("ml_dtypes 0.7.", 0) == 0) return Dialect::kMlDtypes;
  std::printf("note: no dialect models this release; held to the newest (ml_dtypes = 0.7)\n");
  return Dialect::kMlDtypes;
}

class MlDtypesDialect : public ::testing::TestWithParam<int> {};

TEST_P(MlDtypesDialect, AllFp32PatternsEqualMlDtypesAstype) {
  const Case& c = kCases[GetParam()];
  std::string version;
  if (!run_capture(python() + " " MXV_ML_DTYPES_SCRIPT " version", version)) {
    GTEST_SKIP() << python() << " with numpy and ml_dtypes is not available (pip install "
                 << "ml_dtypes numpy; ci/install-deps does): the ml_dtypes oracle cannot run";
  }
  std::printf("oracle: %s", version.c_str());
  const ConvertMode mode{Rounding::kNearestEven, c.saturation, dialect_for(version)};
  std::printf("dialect: %s\n", std::string(to_string(mode.dialect)).c_str());
  // Chunks [0, 256) split between two processes; each thread streams and compares its half.
  std::mutex mu;
  std::vector<Mismatch> first;
  std::uint64_t mismatches = 0;
  std::vector<std::string> errors;
  auto worker = [&](unsigned lo, unsigned hi) {
    const std::string cmd = python() + " " MXV_ML_DTYPES_SCRIPT " codes " + c.name + " " +
                            std::to_string(lo) + " " + std::to_string(hi);
    FILE* f = ::popen(cmd.c_str(), "r");
    if (f == nullptr) {
      const std::lock_guard<std::mutex> lock(mu);
      errors.push_back("cannot start: " + cmd);
      return;
    }
    std::vector<std::uint8_t> want(kChunk);
    std::vector<std::uint8_t> got(kChunk);
    std::uint64_t local = 0;
    std::vector<Mismatch> local_first;
    for (unsigned k = lo; k < hi; ++k) {
      if (std::fread(want.data(), 1, kChunk, f) != kChunk) {
        const std::lock_guard<std::mutex> lock(mu);
        errors.push_back("short read from the oracle at chunk " + std::to_string(k));
        break;
      }
      encode_fp32_pattern_range(*c.format, k * kChunk, got, mode);
      for (std::uint32_t i = 0; i < kChunk; ++i) {
        if (want[i] != got[i]) {
          ++local;
          if (local_first.size() < 8) local_first.push_back({k * kChunk + i, want[i], got[i]});
        }
      }
    }
    const int rc = ::pclose(f);
    const std::lock_guard<std::mutex> lock(mu);
    if (rc != 0) errors.push_back("oracle exited with status " + std::to_string(rc));
    mismatches += local;
    first.insert(first.end(), local_first.begin(), local_first.end());
  };
  const auto t0 = std::chrono::steady_clock::now();
  std::thread a(worker, 0u, 128u);
  std::thread b(worker, 128u, 256u);
  a.join();
  b.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: 2^32 patterns in %.1f s\n", c.name, s);
  for (const std::string& e : errors) ADD_FAILURE() << e;
  std::sort(first.begin(), first.end(),
            [](const Mismatch& x, const Mismatch& y) { return x.input < y.input; });
  std::string report;
  for (std::size_t i = 0; i < std::min<std::size_t>(first.size(), 8); ++i) {
    char line[128];
    std::snprintf(line, sizeof line, "\n  fp32 0x%08X (%.9g): ml_dtypes 0x%02X, mxv 0x%02X",
                  first[i].input, static_cast<double>(std::bit_cast<float>(first[i].input)),
                  first[i].ml_dtypes, first[i].mxv);
    report += line;
  }
  EXPECT_EQ(mismatches, 0u) << c.name << ": " << mismatches << " mismatches; first:" << report;
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, MlDtypesDialect, ::testing::Range(0, 3),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return std::string(kCases[param.param].name);
                         });

}  // namespace
}  // namespace mxv
