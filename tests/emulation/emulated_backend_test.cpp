// Tests of the emulated backend (emulation/include/mxv/emulation/emulated_backend.h): it surfaces
// the emulator's findings (planted: a kernel reading an input that was never uploaded), records
// its launches, keeps the guard layout intact across sentinel fills, and reports coalescing for
// the plan's kernel name. Guard bands are out of bounds for kernels: planted loads one byte past
// the end, one byte before the start and at the far end of the trailing guard are each reported,
// while the host still reads the guards intact.
#include "mxv/emulation/emulated_backend.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mxv/device/convert.h"
#include "mxv/emulation/emu_ctx.h"

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
  // 100 fp32 = 25 lane groups of 4 (kernels/convert.h): lanes 0..24 of warp 0, one 4-byte store each.
  EXPECT_EQ(report.stores.requests, 1u) << report.to_string();
  ASSERT_EQ(b.launch_log().size(), 1u);
  EXPECT_EQ(b.launch_log()[0].kernel, "convert");
}

// A one-thread kernel that loads the byte at `offset` from the start of `buf`'s usable bytes.
std::vector<std::string> findings_of_planted_load(mxv::emu::EmulatedBackend& b, const DeviceBuffer& buf,
                                                  std::ptrdiff_t offset) {
  LaunchPlan plan;
  plan.kernel = "planted_guard_read";
  plan.grid = {1, 1, 1};
  plan.block = {1, 1, 1};
  const GlobalPtr<const std::uint8_t> p{reinterpret_cast<const std::uint8_t*>(buf.data() + offset)};
  std::uint8_t seen = 0;
  b.run(plan, [&](mxv::emu::EmuCtx& ctx) { seen = ctx.load(p, 0); });
  (void)seen;
  return b.take_findings();
}

TEST(EmulatedBackend, LoadsOfGuardBytesAreOutOfBounds) {
  mxv::emu::EmulatedBackend b;
  const std::vector<std::uint8_t> x(64, 7);
  DeviceBuffer in = b.alloc_upload(std::span<const std::uint8_t>(x), "weights");
  EXPECT_TRUE(findings_of_planted_load(b, in, 63).empty()) << "the last usable byte is in bounds";
  EXPECT_TRUE(findings_of_planted_load(b, in, 0).empty()) << "the first usable byte is in bounds";
  struct Planted {
    std::ptrdiff_t offset;
    const char* words;
  };
  for (const Planted& p : {Planted{64, "1 byte(s) past the end"}, Planted{-1, "1 byte(s) before the start"},
                           Planted{64 + static_cast<std::ptrdiff_t>(kGuardBytes) - 1, "256 byte(s) past the end"}}) {
    const std::vector<std::string> f = findings_of_planted_load(b, in, p.offset);
    ASSERT_EQ(f.size(), 1u) << "offset " << p.offset;
    EXPECT_NE(f[0].find("out-of-bounds"), std::string::npos) << f[0];
    EXPECT_NE(f[0].find("guard band"), std::string::npos) << f[0];
    EXPECT_NE(f[0].find("'weights'"), std::string::npos) << f[0];
    EXPECT_NE(f[0].find(p.words), std::string::npos) << f[0];
  }
  EXPECT_EQ(b.guard_damage(in), "") << "loads leave the guards intact and the host still reads them";
}

TEST(EmulatedBackend, StoresIntoGuardBytesAreReportedAndShowAsDamage) {
  mxv::emu::EmulatedBackend b;
  DeviceBuffer out = b.alloc(32, "codes");
  LaunchPlan plan;
  plan.kernel = "planted_guard_write";
  plan.grid = {1, 1, 1};
  plan.block = {1, 1, 1};
  const GlobalPtr<std::uint8_t> p{reinterpret_cast<std::uint8_t*>(out.data())};
  b.run(plan, [&](mxv::emu::EmuCtx& ctx) { ctx.store(p, 32, std::uint8_t{0}); });
  const std::vector<std::string> f = b.take_findings();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].find("guard band after 'codes'"), std::string::npos) << f[0];
  EXPECT_NE(b.guard_damage(out), "");
}

}  // namespace
