// Tests of the emulator's host API (emulation/src/emulator.cpp, device_memory.cpp): the
// cudaMalloc-like allocator (alignment, red zones, written shadow), upload/download/fill/free and
// their argument validation.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "mxv/emulation/emulator.h"

namespace mxv::emu {
namespace {

using device::GlobalPtr;

TEST(Emulator, AllocationsAre256ByteAlignedAndDistinct) {
  Emulator emu;
  std::vector<GlobalPtr<std::uint8_t>> ptrs;
  for (std::size_t n : {1u, 3u, 255u, 256u, 257u, 4096u}) ptrs.push_back(emu.alloc<std::uint8_t>(n, "b"));
  for (std::size_t i = 0; i < ptrs.size(); ++i) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(ptrs[i].raw) % 256, 0u) << i;
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(ptrs[i].raw, ptrs[j].raw);
  }
}

TEST(Emulator, UploadDownloadRoundTripAndWrittenShadow) {
  Emulator emu;
  auto p = emu.alloc<std::uint16_t>(10, "p");
  EXPECT_EQ(emu.count_unwritten(p, 10), 20u);
  std::vector<std::uint16_t> in{1, 2, 3, 4, 5};
  emu.upload(GlobalPtr<std::uint16_t>{p.raw + 5}, std::span<const std::uint16_t>(in));
  EXPECT_EQ(emu.count_unwritten(p, 10), 10u);
  EXPECT_EQ(emu.count_unwritten(GlobalPtr<std::uint16_t>{p.raw + 5}, 5), 0u);
  std::vector<std::uint16_t> out(5);
  emu.download(std::span(out), GlobalPtr<std::uint16_t>{p.raw + 5});
  EXPECT_EQ(out, in);
}

TEST(Emulator, FillWritesTheSentinelWithoutMarkingWritten) {
  Emulator emu;
  auto p = emu.alloc<std::uint32_t>(4, "p");
  emu.fill(p, 0xEE);
  std::vector<std::uint32_t> out(4);
  emu.download(std::span(out), p);
  for (auto v : out) EXPECT_EQ(v, 0xEEEEEEEEu);
  EXPECT_EQ(emu.count_unwritten(p, 4), 16u);
}

TEST(Emulator, RedZoneCorruptionByHostCodeIsDetected) {
  Emulator emu;
  auto p = emu.alloc<std::uint8_t>(100, "p");
  EXPECT_EQ(emu.corrupted_red_zone_bytes(), 0u);
  p.raw[100] = 0;   // planted bug: host code writes one past the end (into the padding)
  p.raw[-1] = 0;    // and one before the start (into the leading red zone)
  EXPECT_EQ(emu.corrupted_red_zone_bytes(), 2u);
}

TEST(Emulator, BadHostArgumentsThrowInvalidArgument) {
  Emulator emu;
  EXPECT_THROW(emu.alloc<float>(0, "x"), std::invalid_argument);
  EXPECT_THROW(emu.alloc<float>(4, ""), std::invalid_argument);
  auto p = emu.alloc<float>(4, "p");
  std::vector<float> five(5, 1.0f);
  EXPECT_THROW(emu.upload(p, std::span<const float>(five)), std::invalid_argument);
  EXPECT_THROW(emu.download(std::span(five), p), std::invalid_argument);
  float host = 0;
  EXPECT_THROW(emu.download(std::span(&host, 1), GlobalPtr<float>{&host}), std::invalid_argument);
  EXPECT_THROW(emu.free(GlobalPtr<float>{p.raw + 1}), std::invalid_argument);
  emu.free(p);
  EXPECT_THROW(emu.free(p), std::invalid_argument);
}

TEST(Emulator, FreedMemoryIsAnInvalidPointerInKernels) {
  Emulator emu;
  auto p = emu.alloc<float>(32, "gone");
  emu.free(p);
  emu.launch("use_after_free", {1, 1, 1}, {1, 1, 1}, 0, [&](EmuCtx& ctx) { (void)ctx.load(p, 0); });
  EXPECT_EQ(emu.finding_count(FindingKind::kInvalidPointer), 1u) << emu.findings_report();
}

TEST(Emulator, CallSiteNamesTheCallersLine) {
  const CallSite here;
  const unsigned expected_line = __LINE__ - 1;
  EXPECT_EQ(here.line, expected_line);
  EXPECT_EQ(here.to_string(), "emulator_test.cpp:" + std::to_string(expected_line));
}

}  // namespace
}  // namespace mxv::emu
