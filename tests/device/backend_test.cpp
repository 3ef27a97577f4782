// Tests of the Backend interface (device/include/mxv/device/backend.h) on every backend: guarded
// allocation, upload / download, sentinel fill and data set, guard checking (with a planted out-of-bounds
// write that the guard check must catch), launch-plan validation, the kernel families both
// backends dispatch over (kernel_family.h) and backend selection.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "backend_fixture.h"
#include "mxv/device/convert.h"
#include "mxv/device/dequantize.h"
#include "mxv/device/kernel_families.h"

namespace {

using namespace mxv::device;
using mxv::test::NoCase;

class BackendMemory : public mxv::test::BackendOnlyTest {};

TEST_P(BackendMemory, UploadDownloadRoundTripAndSentinel) {
  std::vector<std::uint32_t> v(1000);
  std::iota(v.begin(), v.end(), 7u);
  DeviceBuffer b = backend().alloc_upload(std::span<const std::uint32_t>(v), "words");
  EXPECT_EQ(b.bytes(), 4000u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % 256, 0u) << "user region must stay 256-byte aligned";
  EXPECT_EQ(backend().download<std::uint32_t>(b), v);
  backend().fill(b, 0xCD);
  for (std::byte x : backend().download_bytes(b)) ASSERT_EQ(x, std::byte{0xCD});
  EXPECT_EQ(backend().guard_damage(b), "");
  const auto all = backend().download_with_guards(b);
  ASSERT_EQ(all.size(), 4000u + 2 * kGuardBytes);
  EXPECT_EQ(all[0], std::byte{guard_byte(0)});
  EXPECT_EQ(all[kGuardBytes + 4000], std::byte{guard_byte(0)});
}

// set_bytes writes data a kernel may read: an encode of its 64 zero words runs clean. The same
// launch over fill's sentinel bytes is the planted bug: the emulator reports every read of them
// (uninitialized-read), and the cuda backend has no such check, so only the bytes are compared there.
TEST_P(BackendMemory, SetBytesIsDataAndFillIsNot) {
  DeviceBuffer in = backend().alloc(256, "words");
  DeviceBuffer filled = backend().alloc(256, "sentinel words");
  DeviceBuffer out = backend().alloc(64, "codes");
  const auto encode = [&](const DeviceBuffer& words) {
    ConvertParams p;
    p.count = 64;
    p.in = words.as<std::uint8_t>();
    p.out = out.as<std::uint8_t>();
    backend().launch(LaunchPlan{"convert", {1, 1, 1}, {64, 1, 1}, 0}, p);
    backend().synchronize();
    return backend().take_findings();
  };
  backend().set_bytes(in, 0x00);
  for (std::byte x : backend().download_bytes(in)) ASSERT_EQ(x, std::byte{0});
  EXPECT_EQ(backend().guard_damage(in), "");
  EXPECT_EQ(encode(in), std::vector<std::string>{});
  for (std::byte x : backend().download_bytes(out)) ASSERT_EQ(x, std::byte{0}) << "E4M3 of +0 is code 0";

  backend().fill(filled, 0x00);
  const std::vector<std::string> findings = encode(filled);
  if (backend().kind() == BackendKind::kEmulated) {
    ASSERT_FALSE(findings.empty());
    EXPECT_NE(findings[0].find("uninitialized-read"), std::string::npos) << findings[0];
  }
}

TEST_P(BackendMemory, UploadTooLargeIsRejected) {
  DeviceBuffer b = backend().alloc(8, "small");
  const std::vector<std::uint8_t> v(9);
  EXPECT_THROW(backend().upload(b, std::span<const std::uint8_t>(v)), std::invalid_argument);
}

// Planted bug: a convert launch whose params claim more elements than the output holds (bypassing
// the launcher's validation) writes past the end; the trailing guard check must report it.
TEST_P(BackendMemory, GuardCatchesPlantedOutOfBoundsWrite) {
  DeviceBuffer out = backend().alloc(10, "codes");
  ConvertParams p;
  p.format = CodeFormat::kE4M3;
  p.count = 12;  // 2 bytes past the end
  p.input_is_index = true;
  p.index_base = 0x3F800000u;  // 1.0f, 1.0000001f, ...: code 0x38, never the guard pattern
  p.out = out.as<std::uint8_t>();
  LaunchPlan plan{"convert", {1, 1, 1}, {256, 1, 1}, 0};
  backend().launch(plan, p);
  backend().synchronize();
  const std::string damage = backend().guard_damage(out);
  EXPECT_NE(damage.find("after"), std::string::npos) << damage;
  EXPECT_NE(damage.find("2 guard byte(s)"), std::string::npos) << damage;
  EXPECT_NE(damage.find("offset 10"), std::string::npos) << damage;
  (void)backend().take_findings();  // the emulator sees writes inside its allocation: no finding expected
}

TEST_P(BackendMemory, LaunchLogRecordsThePlan) {
  DeviceBuffer out = backend().alloc(4, "codes");
  ConvertArgs a;
  a.count = 4;
  a.out = &out;
  a.input_is_index = true;
  const LaunchPlan plan = convert(backend(), a);
  ASSERT_EQ(backend().launch_log().size(), 1u);
  EXPECT_EQ(backend().launch_log()[0].describe(), plan.describe());
  EXPECT_THROW(backend().launch(LaunchPlan{"no_such_kernel", {1, 1, 1}, {1, 1, 1}, 0}, DequantizeParams{}), std::logic_error);
}

// A plan runs only the family its parameters belong to: another family's variant name, or
// parameters no family takes, start nothing and are not logged.
TEST_P(BackendMemory, PlanAndParametersOfDifferentFamiliesAreNotLaunched) {
  struct NoFamilyParams {};
  EXPECT_THROW(backend().launch(LaunchPlan{"convert", {1, 1, 1}, {256, 1, 1}, 0}, DequantizeParams{}), std::logic_error);
  EXPECT_THROW(backend().launch(LaunchPlan{"dequantize_tiled", {1, 1, 1}, {256, 1, 1}, 0}, ConvertParams{}),
               std::logic_error);
  EXPECT_THROW(backend().launch(LaunchPlan{"convert", {1, 1, 1}, {256, 1, 1}, 0}, NoFamilyParams{}), std::logic_error);
  EXPECT_TRUE(backend().launch_log().empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendMemory, ::testing::Combine(mxv::test::all_backends(), ::testing::Values(NoCase{})),
                         mxv::test::backend_only_names());

// ---- no backend needed ----

TEST(LaunchPlan, ValidationNamesTheLimit) {
  EXPECT_NO_THROW(validate_launch_plan({"k", {1, 65535, 65535}, {1024, 1, 1}, 0}));
  try {
    validate_launch_plan({"k", {1, 65536, 1}, {32, 1, 1}, 0});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("65535"), std::string::npos) << e.what();
  }
  EXPECT_THROW(validate_launch_plan({"k", {1, 1, 1}, {1025, 1, 1}, 0}), std::invalid_argument);
  EXPECT_THROW(validate_launch_plan({"k", {0, 1, 1}, {1, 1, 1}, 0}), std::invalid_argument);
  EXPECT_THROW(validate_launch_plan({"", {1, 1, 1}, {1, 1, 1}, 0}), std::invalid_argument);
}

// A one-wave plan (the CUDA backend caps its grid.x at the resident blocks) strides over x alone,
// and says so in its description.
TEST(LaunchPlan, OneWaveIsOneDimensionalAndDescribed) {
  LaunchPlan plan{"k", {4096, 1, 1}, {256, 1, 1}, 0};
  plan.one_wave = true;
  EXPECT_NO_THROW(validate_launch_plan(plan));
  EXPECT_EQ(plan.describe(), "k grid=(4096,1,1) block=(256,1,1) smem=0 one_wave");
  plan.grid.y = 2;
  try {
    validate_launch_plan(plan);
    FAIL() << "a two-dimensional one-wave grid passed";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("one-dimensional"), std::string::npos) << e.what();
  }
}

// Every variant a family lists maps back from its name, and the names (which plans, launch logs,
// coalescing reports and `mxv verify` carry) are the ones the tests assert, each once.
TEST(KernelFamilies, EveryVariantNameMapsBackToItsVariantOnce) {
  std::multiset<std::string> names;
  [&]<class... Families>(FamilyList<Families...>) {
    const auto check = [&]<class Family>() {
      for (const auto v : Family::kVariants) {
        names.emplace(to_string(v));
        const auto back = variant_named<Family>(to_string(v));
        ASSERT_TRUE(back.has_value()) << to_string(v);
        EXPECT_EQ(*back, v) << to_string(v);
      }
      EXPECT_FALSE(variant_named<Family>("no_such_kernel").has_value());
    };
    (check.template operator()<Families>(), ...);
  }(KernelFamilies{});
  EXPECT_EQ(names, (std::multiset<std::string>{"convert", "dequantize_scalar", "dequantize_tiled", "amax", "quantize_vector",
                                               "quantize_scalar", "swiglu_bf16", "swiglu_gate_table",
                                               "swiglu_quantize_fused"}));
}

TEST(BackendSelection, NamesAndAuto) {
  EXPECT_EQ(backend_kind_by_name("cuda"), BackendKind::kCuda);
  EXPECT_EQ(backend_kind_by_name("emulated"), BackendKind::kEmulated);
  EXPECT_THROW(backend_kind_by_name("gpu"), std::invalid_argument);
  EXPECT_THROW(mxv::emu::make_backends("gpu"), std::invalid_argument);
  const auto all = mxv::emu::make_backends("auto");
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.back()->kind(), BackendKind::kEmulated);  // always available, listed last
  const bool cuda = mxv::emu::availability(BackendKind::kCuda).available;
  EXPECT_EQ(all.size(), cuda ? 2u : 1u);
  if (!cuda) {
    EXPECT_FALSE(mxv::emu::availability(BackendKind::kCuda).reason.empty());
    EXPECT_THROW(mxv::emu::make_backends("cuda"), std::runtime_error);
  }
}

}  // namespace
