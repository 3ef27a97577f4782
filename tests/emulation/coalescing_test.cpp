// Tests of the coalescing figures (emulation/src/coalescing.cpp; docs/design.md section 4.3,
// "Coalescing figures"). Expected figures are worked out by hand from the access pattern and
// the 32-byte sector / 128-byte line sizes, with 256-byte aligned buffers.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "filled_buffer.h"
#include "mxv/emulation/emulator.h"

namespace mxv::emu {
namespace {

using device::Vec16;

TEST(Coalescing, ByteLoads32BytesApartTouch32SectorsPerRequest) {
  Emulator emu;
  auto buf = filled_buffer(emu, 32 * 32, "bytes", std::uint8_t{7});
  emu.launch("strided_bytes", {1, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
    (void)ctx.load(buf, ctx.lane() * 32);
  });
  const CoalescingReport r = emu.coalescing("strided_bytes");
  const SiteCoalescing* s = r.only(AccessKind::kLoad);
  ASSERT_NE(s, nullptr) << r.to_string();
  EXPECT_EQ(s->figures.requests, 1u);
  EXPECT_EQ(s->figures.sectors, 32u);   // one sector per lane
  EXPECT_EQ(s->figures.lines, 8u);      // 1024 bytes span 8 lines
  EXPECT_EQ(s->figures.bytes_requested, 32u);
  EXPECT_DOUBLE_EQ(s->figures.efficiency(), 32.0 / 1024.0);  // ~3.1%
  EXPECT_NE(s->site.find("coalescing_test.cpp:"), std::string::npos);
}

TEST(Coalescing, SixteenByteContiguousStoresAreFullyEfficient) {
  Emulator emu;
  auto buf = emu.alloc<float>(32 * 4 * 4, "vec");
  emu.launch("vec_store", {1, 1, 1}, {128, 1, 1}, 0, [&](EmuCtx& ctx) {
    const Vec16 v{{1, 2, 3, 4}};
    ctx.store16(buf, ctx.thread_idx().x * 4, v);
  });
  const CoalescingReport r = emu.coalescing("vec_store");
  const SiteCoalescing* s = r.only(AccessKind::kStore);
  ASSERT_NE(s, nullptr) << r.to_string();
  EXPECT_EQ(s->figures.requests, 4u);                 // four warps
  EXPECT_DOUBLE_EQ(s->figures.sectors_per_request(), 16.0);  // 512 bytes per warp
  EXPECT_DOUBLE_EQ(s->figures.lines_per_request(), 4.0);
  EXPECT_DOUBLE_EQ(s->figures.efficiency(), 1.0);
  EXPECT_TRUE(r.violations({16.0, 0.99}).empty());
  EXPECT_EQ(r.stores.requests, 4u);
  EXPECT_EQ(r.loads.requests, 0u);
}

TEST(Coalescing, ContiguousFloatsAndHalfWarps) {
  Emulator emu;
  auto buf = filled_buffer(emu, 64, "f", 1.0f);
  emu.launch("floats", {1, 1, 1}, {64, 1, 1}, 0, [&](EmuCtx& ctx) {
    (void)ctx.load(buf, ctx.thread_idx().x);
    if (ctx.lane() < 16) (void)ctx.load(buf, ctx.thread_idx().x);  // half the lanes: 64 bytes
  });
  const CoalescingReport r = emu.coalescing("floats");
  ASSERT_EQ(r.sites.size(), 2u) << r.to_string();
  const CoalescingFigures& full = r.sites[0].figures;
  const CoalescingFigures& half = r.sites[1].figures;
  EXPECT_EQ(full.requests, 2u);
  EXPECT_DOUBLE_EQ(full.sectors_per_request(), 4.0);
  EXPECT_DOUBLE_EQ(full.lines_per_request(), 1.0);
  EXPECT_DOUBLE_EQ(full.efficiency(), 1.0);
  EXPECT_EQ(half.requests, 2u);
  EXPECT_DOUBLE_EQ(half.sectors_per_request(), 2.0);
  EXPECT_EQ(half.lane_accesses, 32u);
  EXPECT_EQ(r.loads.requests, 4u);
}

TEST(Coalescing, LoopIterationsAreSeparateRequestsAndEpochsSplitThem) {
  Emulator emu;
  auto buf = filled_buffer(emu, 32 * 8, "f", 1.0f);
  emu.launch("loop", {1, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
    for (unsigned k = 0; k < 4; ++k) (void)ctx.load(buf, k * 32 + ctx.lane());
    // Lane-dependent trip count: iteration k has the lanes with lane >= 8 k.
    for (unsigned k = 0; k < 4 && ctx.lane() >= 8 * k; ++k) (void)ctx.load(buf, 128 + k * 32 + ctx.lane());
  });
  const CoalescingReport r = emu.coalescing("loop");
  ASSERT_EQ(r.sites.size(), 2u) << r.to_string();
  EXPECT_EQ(r.sites[0].figures.requests, 4u);
  EXPECT_EQ(r.sites[0].figures.sectors, 16u);
  EXPECT_EQ(r.sites[1].figures.requests, 4u);
  EXPECT_EQ(r.sites[1].figures.lane_accesses, 32u + 24u + 16u + 8u);
  EXPECT_EQ(r.sites[1].figures.sectors, 4u + 3u + 2u + 1u);
}

TEST(Coalescing, ViolationsNameTheUncoalescedSite) {
  // Planted bug: a transposed read (lanes stride by a row of 64 floats) next to a good write.
  Emulator emu;
  auto in = filled_buffer(emu, 64 * 32, "in", 1.0f);
  auto out = emu.alloc<float>(64 * 32, "out");
  emu.launch("transpose_bad", {1, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
    for (unsigned row = 0; row < 4; ++row) {
      ctx.store(out, row * 32 + ctx.lane(), ctx.load(in, ctx.lane() * 64 + row));
    }
  });
  const CoalescingReport r = emu.coalescing("transpose_bad");
  const auto v = r.violations({4.0, 0.5});
  ASSERT_EQ(v.size(), 2u) << r.to_string();  // the load breaks both limits, the store none
  EXPECT_NE(v[0].find("load: 32.00 sectors/request > 4.00"), std::string::npos) << v[0];
  EXPECT_NE(v[1].find("efficiency 12.5%"), std::string::npos) << v[1];
  EXPECT_NE(r.to_string().find("transpose_bad"), std::string::npos);
  EXPECT_EQ(r.find("coalescing_test.cpp", AccessKind::kStore)->figures.sectors_per_request(), 4.0);
}

TEST(Coalescing, AccumulatesAcrossLaunchesUntilReset) {
  Emulator emu;
  auto buf = emu.alloc<float>(32, "f");
  auto body = [&](EmuCtx& ctx) { ctx.store(buf, ctx.lane(), 0.0f); };
  emu.launch("acc", {1, 1, 1}, {32, 1, 1}, 0, body);
  emu.launch("acc", {1, 1, 1}, {32, 1, 1}, 0, body);
  EXPECT_EQ(emu.coalescing("acc").stores.requests, 2u);
  EXPECT_EQ(emu.coalescing("other").sites.size(), 0u);
  emu.reset_coalescing();
  EXPECT_EQ(emu.coalescing("acc").stores.requests, 0u);
  LaunchOptions off;
  off.record_coalescing = false;
  emu.launch("acc", {1, 1, 1}, {32, 1, 1}, 0, body, off);
  EXPECT_EQ(emu.coalescing("acc").stores.requests, 0u);
}

}  // namespace
}  // namespace mxv::emu
