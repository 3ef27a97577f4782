// Test fixture that runs each device test case on every backend (docs/design.md section 3.5,
// "Backends"). Cases are TEST_Ps over (backend, case); the generated names start with the backend
// ("cuda_..." / "emulated_..."), which is how mxv_add_backend_test (cmake/MxvHelpers.cmake) labels
// them `gpu` and `emu`. Without a GPU the cuda cases are SKIPPED with the reason, and FAIL instead
// when the environment says MXV_REQUIRE_GPU=1. After every case the backend's findings (emulator:
// memory errors, races, collective misuse) must be empty.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>

#include "mxv/device/backend.h"
#include "mxv/emulation/emulated_backend.h"

namespace mxv::test {

inline bool gpu_required() {
  const char* v = std::getenv("MXV_REQUIRE_GPU");
  return v != nullptr && std::string_view(v) == "1";
}

/// A case without further parameters (tests that only vary the backend).
struct NoCase {};

template <class Case>
class BackendParamTest : public ::testing::TestWithParam<std::tuple<device::BackendKind, Case>> {
 protected:
  void SetUp() override {
    const device::BackendKind kind = std::get<0>(this->GetParam());
    const device::Availability a = emu::availability(kind);
    if (!a.available) {
      if (gpu_required()) FAIL() << "MXV_REQUIRE_GPU=1 but the cuda backend is unavailable: " << a.reason;
      GTEST_SKIP() << "cuda backend unavailable: " << a.reason;
    }
    backend_ = emu::make_backend(kind);
  }
  void TearDown() override {
    if (backend_ == nullptr) return;
    backend_->synchronize();
    const auto findings = backend_->take_findings();
    std::string all;
    for (const auto& f : findings) all += f + "\n";
    EXPECT_TRUE(findings.empty()) << backend_->name() << " backend findings:\n" << all;
  }
  const Case& param() const { return std::get<1>(this->GetParam()); }
  device::Backend& backend() { return *backend_; }
  /// The emulated backend, or nullptr on cuda (for coalescing reports).
  emu::EmulatedBackend* emulated() { return dynamic_cast<emu::EmulatedBackend*>(backend_.get()); }

  std::unique_ptr<device::Backend> backend_;
};

using BackendOnlyTest = BackendParamTest<NoCase>;

inline auto all_backends() { return ::testing::Values(device::BackendKind::kCuda, device::BackendKind::kEmulated); }

/// Test-name generator: "<backend>_<case_name(case)>" (alphanumerics and '_' only).
template <class CaseName>
auto backend_case_names(CaseName case_name) {
  return [case_name](const auto& info) {
    std::string s = std::string(device::to_string(std::get<0>(info.param)));
    const std::string c = case_name(std::get<1>(info.param));
    if (!c.empty()) s += "_" + c;
    for (char& ch : s) {
      if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))) ch = '_';
    }
    return s;
  };
}

inline auto backend_only_names() {
  return backend_case_names([](const NoCase&) { return std::string(); });
}

}  // namespace mxv::test
