// Tests of the emulated backend (emulation/include/mxv/emulation/emulated_backend.h): it surfaces
// the emulator's findings (planted: a kernel reading an input that was never uploaded), records
// its launches, keeps the guard layout intact across sentinel fills, and reports coalescing for
// the plan's kernel name.
#include "mxv/emulation/emulated_backend.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mxv/device/convert.h"

namespace {

using namespace mxv::device;

TEST(EmulatedBackend, SurfacesUninitialisedReadOfPlantedUnwrittenInput) {
  mxv::emu::EmulatedBackend b;
  DeviceBuffer in = b.alloc(64 * 4, "never_uploaded");  // sentinel-filled: "unwritten" to the emulator
  DeviceBuffer out = b.alloc(64, "codes");
  ConvertArgs a;
  a.count = 64;
  a.in = &in;
  a.out = &out;
  convert(b, a);
  const std::vector<std::string> f = b.take_findings();
  ASSERT_FALSE(f.empty());
  EXPECT_NE(f[0].find("never_uploaded"), std::string::npos) << f[0];
  EXPECT_TRUE(b.take_findings().empty()) << "take_findings clears";
}

TEST(EmulatedBackend, CleanLaunchHasNoFindingsAndIntactGuards) {
  mxv::emu::EmulatedBackend b;
  const std::vector<float> x(100, 1.5f);
  DeviceBuffer in = b.alloc_upload(std::span<const float>(x), "x");
  DeviceBuffer out = b.alloc(100, "codes");
  b.fill(out, 0xEE);  // refilling must restore the trailing guard the emulator's fill runs over
  ConvertArgs a;
  a.count = 100;
  a.in = &in;
  a.out = &out;
  convert(b, a);
  EXPECT_TRUE(b.take_findings().empty());
  EXPECT_EQ(b.guard_damage(out), "");
  EXPECT_EQ(b.guard_damage(in), "");
  for (std::uint8_t c : b.download<std::uint8_t>(out)) ASSERT_EQ(c, 0x3C);  // 1.5 = E4M3 0b0'0111'100
  const auto report = b.coalescing("convert");
  EXPECT_EQ(report.stores.requests, 4u) << report.to_string();  // 100 threads: 4 warps, 1 store each
  ASSERT_EQ(b.launch_log().size(), 1u);
  EXPECT_EQ(b.launch_log()[0].kernel, "convert");
}

}  // namespace
