// The parameterised shape of the device tests that run a list of named cases on every backend
// (quantize, fused SwiGLU + quantize): a (backend, case) parameter named by its case, a fixture
// that skips an unavailable backend (and fails instead under MXV_REQUIRE_GPU=1) and the GPU-only
// shapes on the emulator, and the check after a run: no backend findings, no damaged guard.
// A Case has a `name` and a `gpu_only` flag.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "backend_fixture.h"
#include "mxv/device/backend.h"
#include "mxv/emulation/emulated_backend.h"
#include "mxv/fuzz/values.h"

namespace mxv::test {

template <class Case>
struct CaseParam {
  device::BackendKind backend;
  Case c;
};

// ctest lists the parameter with the test name: print the case name, not the parameter's bytes.
template <class Case>
void PrintTo(const CaseParam<Case>& p, std::ostream* os) {
  *os << device::to_string(p.backend) << ":" << p.c.name;
}

/// The test-name suffix: the case name.
template <class Case>
std::string case_param_name(const ::testing::TestParamInfo<CaseParam<Case>>& info) {
  return info.param.c.name;
}

/// A case's seed: the test seed (`base`, or MXV_TEST_SEED) mixed with the case's name, so each
/// case draws its own inputs.
inline std::uint64_t case_seed(std::uint64_t base, const std::string& name) {
  return fuzz::mix_seed(fuzz::test_seed(base), fuzz::name_hash(name));
}

/// The trace a case prints with its seed.
inline std::string seed_note(std::uint64_t seed) {
  return "seed " + std::to_string(seed) + " (MXV_TEST_SEED overrides the base seed)";
}

/// Every case on one backend.
template <class Case>
std::vector<CaseParam<Case>> case_params(device::BackendKind kind, const std::vector<Case>& cases) {
  std::vector<CaseParam<Case>> out;
  for (const Case& c : cases) out.push_back({kind, c});
  return out;
}

template <class Case>
class CaseBackendTest : public ::testing::TestWithParam<CaseParam<Case>> {
 protected:
  void SetUp() override {
    const CaseParam<Case>& p = this->GetParam();
    const device::Availability a = emu::availability(p.backend);
    if (!a.available) {
      if (p.backend == device::BackendKind::kCuda && gpu_required()) FAIL() << "MXV_REQUIRE_GPU=1 but: " << a.reason;
      GTEST_SKIP() << a.reason;
    }
    if (p.c.gpu_only && p.backend != device::BackendKind::kCuda) GTEST_SKIP() << "shape too large for the emulator in CI";
    backend_ = emu::make_backend(p.backend);
  }

  /// The backend found nothing since the last call, and no guard of `buffers` is damaged.
  void expect_clean(std::initializer_list<const device::DeviceBuffer*> buffers) {
    const std::vector<std::string> findings = backend_->take_findings();
    std::string all;
    for (const auto& f : findings) all += f + "\n";
    EXPECT_TRUE(findings.empty()) << "emulator findings:\n" << all;
    for (const device::DeviceBuffer* b : buffers) EXPECT_EQ(backend_->guard_damage(*b), "") << b->name();
  }

  std::unique_ptr<device::Backend> backend_;
};

}  // namespace mxv::test
