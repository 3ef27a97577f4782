// Tests of the emulator's memory checkers (emulation/src/access_checks.cpp; docs/design.md
// section 4.2, "Memory checking"). Each checker is shown catching a planted bug, and the fixed
// kernel beside it is shown to produce no finding at all.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "filled_buffer.h"
#include "mxv/emulation/emulator.h"

namespace mxv::emu {
namespace {

using device::Dim3;
using device::GlobalPtr;
using device::Vec16;

// A tiled copy: blocks of 64 threads cover n elements; `bound` is the planted bug's knob.
void tiled_copy(Emulator& emu, GlobalPtr<float> in, GlobalPtr<float> out, unsigned n, bool off_by_one) {
  const unsigned grid = (n + 63) / 64;
  emu.launch("tiled_copy", {grid, 1, 1}, {64, 1, 1}, 0, [&](EmuCtx& ctx) {
    const unsigned i = ctx.block_idx().x * 64 + ctx.thread_idx().x;
    const bool inside = off_by_one ? i <= n : i < n;  // planted bug: <= lets i == n through
    if (inside) ctx.store(out, i, ctx.load(in, i) * 2.0f);
  });
}

TEST(AccessChecks, OutOfBoundsByOneElementAtTheTileEdge) {
  Emulator emu;
  const unsigned n = 100;  // the second tile covers 64..127: only 64..99 are inside
  auto in = filled_buffer(emu, n, "in", 1.5f);
  auto out = emu.alloc<float>(n, "out");
  tiled_copy(emu, in, out, n, /*off_by_one=*/false);
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
  tiled_copy(emu, in, out, n, /*off_by_one=*/true);
  // The load of in[100] and the store of out[100]: one finding each, from block 1 thread 36.
  ASSERT_EQ(emu.finding_count(FindingKind::kOutOfBounds), 2u) << emu.findings_report();
  ASSERT_EQ(emu.finding_count(), 2u) << emu.findings_report();
  const Finding& load = emu.findings()[0];
  const Finding& store = emu.findings()[1];
  EXPECT_EQ(load.buffer, "in");
  EXPECT_EQ(store.buffer, "out");
  for (const Finding* f : {&load, &store}) {
    EXPECT_EQ(f->kernel, "tiled_copy");
    EXPECT_EQ(f->block.x, 1u);
    EXPECT_EQ(f->thread.x, 36u);
    EXPECT_EQ(f->offset, 400);
    EXPECT_NE(f->site.find("access_checks_test.cpp:"), std::string::npos) << f->site;
    EXPECT_NE(f->detail.find("1 element(s) past the end"), std::string::npos) << f->detail;
  }
  EXPECT_EQ(emu.corrupted_red_zone_bytes(), 0u) << "the out-of-bounds store was not performed";
}

TEST(AccessChecks, UninitialisedReadIsReportedAndSentinelFillIsNotAWrite) {
  Emulator emu;
  auto in = emu.alloc<float>(64, "in");
  auto out = emu.alloc<float>(64, "out");
  emu.fill(in, 0xA5);                          // sentinel everywhere: not data
  std::vector<float> first_half(32, 2.0f);
  emu.upload(in, std::span<const float>(first_half));  // planted bug: the second half never written
  emu.launch("read_all", {1, 1, 1}, {64, 1, 1}, 0, [&](EmuCtx& ctx) {
    const unsigned i = ctx.thread_idx().x;
    ctx.store(out, i, ctx.load(in, i));
  });
  EXPECT_EQ(emu.finding_count(FindingKind::kUninitializedRead), 32u) << emu.findings_report();
  const Finding& f = emu.findings().front();
  EXPECT_EQ(f.buffer, "in");
  EXPECT_EQ(f.thread.x, 32u);
  EXPECT_EQ(f.offset, 128);
  // The copied sentinel arrives in out, where a downstream check can see it.
  std::vector<std::uint32_t> got(64);
  emu.download(std::span(got), GlobalPtr<std::uint32_t>{reinterpret_cast<std::uint32_t*>(out.raw)});
  EXPECT_EQ(got[40], 0xA5A5A5A5u);
  EXPECT_EQ(emu.count_unwritten(out, 64), 0u);
  EXPECT_EQ(emu.count_unwritten(in, 64), 128u);
}

TEST(AccessChecks, TwoBlocksWritingOneByte) {
  Emulator emu;
  auto out = emu.alloc<std::uint8_t>(256, "out");
  // Clean: block b writes bytes [128 b, 128 b + 128).
  emu.launch("disjoint", {2, 1, 1}, {128, 1, 1}, 0, [&](EmuCtx& ctx) {
    ctx.store(out, ctx.block_idx().x * 128 + ctx.thread_idx().x, std::uint8_t{1});
  });
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
  // Planted bug: block 1 also writes byte 127, which block 0 wrote in this launch.
  emu.launch("overlap", {2, 1, 1}, {128, 1, 1}, 0, [&](EmuCtx& ctx) {
    const unsigned i = ctx.block_idx().x * 127 + ctx.thread_idx().x;
    ctx.store(out, i, std::uint8_t{2});
  });
  ASSERT_EQ(emu.finding_count(FindingKind::kCrossBlockWrite), 1u) << emu.findings_report();
  const Finding& f = emu.findings().front();
  EXPECT_EQ(f.block.x, 1u);
  EXPECT_EQ(f.thread.x, 0u);
  EXPECT_EQ(f.offset, 127);
  EXPECT_NE(f.detail.find("after block 0"), std::string::npos) << f.detail;
  // Rewriting in a later launch is not a conflict.
  emu.clear_findings();
  emu.launch("disjoint", {2, 1, 1}, {128, 1, 1}, 0, [&](EmuCtx& ctx) {
    ctx.store(out, ctx.block_idx().x * 128 + ctx.thread_idx().x, std::uint8_t{3});
  });
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
}

TEST(AccessChecks, AtomicsFromManyBlocksAreNotCrossBlockWrites) {
  Emulator emu;
  auto amax = emu.alloc<std::uint32_t>(1, "amax");
  std::vector<std::uint32_t> zero{0};
  emu.upload(amax, std::span<const std::uint32_t>(zero));
  emu.launch("atomics", {4, 1, 1}, {64, 1, 1}, 0, [&](EmuCtx& ctx) {
    (void)ctx.atomic_max(amax, 0, ctx.block_idx().x * 1000 + ctx.thread_idx().x);
  });
  std::vector<std::uint32_t> got(1);
  emu.download(std::span(got), amax);
  EXPECT_EQ(got[0], 3063u);
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
}

// Block 0 publishes 64 floats; block 1 reads them back in the same launch (planted bug: on the
// GPU block 1 may run first), with scalar loads or, when `vector`, with 16-byte loads.
void handoff(Emulator& emu, GlobalPtr<float> partial, GlobalPtr<float> out, bool vector) {
  emu.launch("handoff", {2, 1, 1}, {64, 1, 1}, 0, [&](EmuCtx& ctx) {
    const unsigned t = ctx.thread_idx().x;
    if (ctx.block_idx().x == 0) {
      ctx.store(partial, t, static_cast<float>(t));
    } else if (!vector) {
      ctx.store(out, t, ctx.load(partial, t));
    } else if (t % 4 == 0) {
      ctx.store16(out, t, ctx.load16(partial, t));
    }
  });
}

TEST(AccessChecks, BlockReadingWhatAnotherBlockWroteInTheSameLaunch) {
  Emulator emu;
  auto partial = emu.alloc<float>(64, "partial");
  auto out = emu.alloc<float>(64, "out");
  handoff(emu, partial, out, /*vector=*/false);
  // One finding per load of block 1; the serial block order gave the "right" values anyway.
  ASSERT_EQ(emu.finding_count(FindingKind::kCrossBlockRead), 64u) << emu.findings_report();
  ASSERT_EQ(emu.finding_count(), 64u) << emu.findings_report();
  const Finding& f = emu.findings()[5];
  EXPECT_EQ(f.kind, FindingKind::kCrossBlockRead);
  EXPECT_EQ(f.kernel, "handoff");
  EXPECT_EQ(f.launch, 1u);
  EXPECT_EQ(f.block.x, 1u);
  EXPECT_EQ(f.thread.x, 5u);
  EXPECT_NE(f.site.find("access_checks_test.cpp:"), std::string::npos) << f.site;
  EXPECT_EQ(f.buffer, "partial");
  EXPECT_EQ(f.offset, 20);
  EXPECT_NE(f.detail.find("load in block 1"), std::string::npos) << f.detail;
  EXPECT_NE(f.detail.find("which block 0 wrote in the same launch"), std::string::npos) << f.detail;
  EXPECT_NE(f.to_string().find("cross-block-read in handoff"), std::string::npos) << f.to_string();
  // 16-byte loads take the same check: one finding per load, at its first byte.
  emu.clear_findings();
  handoff(emu, partial, out, /*vector=*/true);
  ASSERT_EQ(emu.finding_count(FindingKind::kCrossBlockRead), 16u) << emu.findings_report();
  ASSERT_EQ(emu.finding_count(), 16u) << emu.findings_report();
  EXPECT_EQ(emu.findings()[1].thread.x, 4u);
  EXPECT_EQ(emu.findings()[1].offset, 16);
  EXPECT_EQ(emu.findings()[1].buffer, "partial");
}

TEST(AccessChecks, OwnWritesAndEarlierLaunchesAreNotCrossBlockReads) {
  Emulator emu;
  auto partial = emu.alloc<float>(128, "partial");
  auto out = emu.alloc<float>(128, "out");
  // Each block reads back what its own threads wrote (across warps, after a barrier).
  emu.launch("own", {2, 1, 1}, {64, 1, 1}, 0, [&](EmuCtx& ctx) {
    const unsigned b = ctx.block_idx().x * 64, t = ctx.thread_idx().x;
    ctx.store(partial, b + t, static_cast<float>(b + t));
    ctx.syncthreads();
    ctx.store(out, b + t, ctx.load(partial, b + (t + 32) % 64));
  });
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
  // A later launch reads everything both blocks of the earlier launches wrote, scalar and vector.
  emu.launch("consume", {2, 1, 1}, {64, 1, 1}, 0, [&](EmuCtx& ctx) {
    const unsigned i = (1 - ctx.block_idx().x) * 64 + ctx.thread_idx().x;
    const float x = ctx.load(partial, i);
    const Vec16 v = ctx.load16(out, i / 4 * 4);
    ctx.store(partial, i, x + static_cast<float>(v.w[0] & 1u));
  });
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
}

TEST(AccessChecks, AtomicsOverAtomicsAreCleanPlainAccessesAcrossThemAreNot) {
  Emulator emu;
  auto word = emu.alloc<std::uint32_t>(1, "word");
  auto out = emu.alloc<std::uint32_t>(4, "out");
  std::vector<std::uint32_t> zero{0};
  emu.upload(word, std::span<const std::uint32_t>(zero));
  // Every block updates the word atomically and reads back only its own atomic's result: clean.
  emu.launch("atomics", {4, 1, 1}, {1, 1, 1}, 0, [&](EmuCtx& ctx) {
    const std::uint32_t old = ctx.atomic_max(word, 0, ctx.block_idx().x + 1);
    ctx.store(out, ctx.block_idx().x, old);
  });
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
  // Planted bug: blocks 1..3 load the word that block 0 (first) updated atomically in this launch.
  emu.launch("atomic_then_load", {4, 1, 1}, {1, 1, 1}, 0, [&](EmuCtx& ctx) {
    (void)ctx.atomic_max(word, 0, ctx.block_idx().x + 10);
    ctx.store(out, ctx.block_idx().x, ctx.load(word, 0));
  });
  ASSERT_EQ(emu.finding_count(FindingKind::kCrossBlockRead), 3u) << emu.findings_report();
  ASSERT_EQ(emu.finding_count(), 3u) << emu.findings_report();
  EXPECT_EQ(emu.findings()[0].kernel, "atomic_then_load");
  EXPECT_EQ(emu.findings()[0].block.x, 1u);
  EXPECT_EQ(emu.findings()[0].buffer, "word");
  EXPECT_EQ(emu.findings()[0].offset, 0);
  EXPECT_NE(emu.findings()[2].detail.find("which block 0 (atomically) wrote"), std::string::npos)
      << emu.findings()[2].detail;
  // Planted bug: block 1's atomic reads the word block 0 stored plainly in this launch.
  emu.clear_findings();
  emu.launch("store_then_atomic", {2, 1, 1}, {1, 1, 1}, 0, [&](EmuCtx& ctx) {
    if (ctx.block_idx().x == 0) {
      ctx.store(word, 0, std::uint32_t{5});
    } else {
      (void)ctx.atomic_max(word, 0, std::uint32_t{7});
    }
  });
  ASSERT_EQ(emu.finding_count(FindingKind::kCrossBlockRead), 1u) << emu.findings_report();
  ASSERT_EQ(emu.finding_count(), 1u) << emu.findings_report();
  EXPECT_EQ(emu.findings()[0].block.x, 1u);
  const std::string& detail = emu.findings()[0].detail;
  EXPECT_NE(detail.find("atomic in block 1 reads byte 0 of 'word', which block 0 wrote"),
            std::string::npos)
      << detail;
  // Planted bug: block 1 stores plainly over the word block 0 updated atomically in this launch
  // (the final value depends on the order of the blocks): a cross-block write.
  emu.clear_findings();
  emu.launch("atomic_then_store", {2, 1, 1}, {1, 1, 1}, 0, [&](EmuCtx& ctx) {
    if (ctx.block_idx().x == 0) {
      (void)ctx.atomic_max(word, 0, std::uint32_t{9});
    } else {
      ctx.store(word, 0, std::uint32_t{3});
    }
  });
  ASSERT_EQ(emu.finding_count(FindingKind::kCrossBlockWrite), 1u) << emu.findings_report();
  ASSERT_EQ(emu.finding_count(), 1u) << emu.findings_report();
  EXPECT_EQ(emu.findings()[0].block.x, 1u);
  EXPECT_EQ(emu.findings()[0].buffer, "word");
}

TEST(AccessChecks, MisalignedVectorAccess) {
  Emulator emu;
  auto buf = filled_buffer(emu, 64, "buf", 1.0f);
  emu.launch("vec_ok", {1, 1, 1}, {16, 1, 1}, 0, [&](EmuCtx& ctx) {
    const Vec16 v = ctx.load16(buf, ctx.thread_idx().x * 4);
    ctx.store16(buf, ctx.thread_idx().x * 4, v);
  });
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
  // Planted bug: element 2 of a float buffer is 8-byte but not 16-byte aligned.
  emu.launch("vec_misaligned", {1, 1, 1}, {1, 1, 1}, 0, [&](EmuCtx& ctx) { (void)ctx.load16(buf, 2); });
  ASSERT_EQ(emu.finding_count(FindingKind::kMisaligned), 1u) << emu.findings_report();
  EXPECT_EQ(emu.findings().front().offset, 8);
}

TEST(AccessChecks, PointerOutsideEveryAllocation) {
  Emulator emu;
  std::vector<float> host_only(8, 0.0f);
  const GlobalPtr<float> wild{host_only.data()};
  emu.launch("wild", {1, 1, 1}, {1, 1, 1}, 0, [&](EmuCtx& ctx) { ctx.store(wild, 0, 1.0f); });
  EXPECT_EQ(emu.finding_count(FindingKind::kInvalidPointer), 1u) << emu.findings_report();
  EXPECT_EQ(host_only[0], 0.0f) << "the wild store was not performed";
}

// Each thread publishes tid + 1 in shared memory and reads its left neighbour's value.
void neighbour_exchange(Emulator& emu, GlobalPtr<std::uint32_t> out, bool with_barrier, Schedule s) {
  LaunchOptions options;
  options.schedule = s;
  emu.launch("neighbour", {1, 1, 1}, {64, 1, 1}, 0, [&](EmuCtx& ctx) {
    auto tile = ctx.shared_array<std::uint32_t, 64, 0>();
    const unsigned t = ctx.thread_idx().x;
    ctx.store(tile, t, t + 1);
    if (with_barrier) ctx.syncthreads();  // planted bug when false
    ctx.store(out, t, ctx.load(tile, t == 0 ? 0 : t - 1));
  }, options);
}

TEST(AccessChecks, MissingSyncthreadsOnlyReversedSchedulingExposesInTheValues) {
  for (Schedule s : {Schedule::kForward, Schedule::kReversed, Schedule::kShuffled}) {
    Emulator emu;
    auto out = emu.alloc<std::uint32_t>(64, "out");
    neighbour_exchange(emu, out, /*with_barrier=*/true, s);
    std::vector<std::uint32_t> got(64);
    emu.download(std::span(got), out);
    for (unsigned t = 0; t < 64; ++t) EXPECT_EQ(got[t], t == 0 ? 1u : t) << t;
    EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
  }
  // Without the barrier, forward order happens to give the right values...
  {
    Emulator emu;
    auto out = emu.alloc<std::uint32_t>(64, "out");
    neighbour_exchange(emu, out, /*with_barrier=*/false, Schedule::kForward);
    std::vector<std::uint32_t> got(64);
    emu.download(std::span(got), out);
    for (unsigned t = 0; t < 64; ++t) EXPECT_EQ(got[t], t == 0 ? 1u : t) << t;
    // ...but the race checker sees warp 1 read what warp 0 wrote in the same barrier epoch.
    EXPECT_EQ(emu.finding_count(FindingKind::kSharedRace), 1u) << emu.findings_report();
    const Finding& f = emu.findings().front();
    EXPECT_EQ(f.thread.x, 32u);
    EXPECT_EQ(f.buffer.rfind("shared:", 0), 0u) << f.buffer;
    EXPECT_NE(f.detail.find("read-after-write"), std::string::npos) << f.detail;
  }
  // ...while reversed order reads neighbours that have not written yet: wrong values.
  {
    Emulator emu;
    auto out = emu.alloc<std::uint32_t>(64, "out");
    neighbour_exchange(emu, out, /*with_barrier=*/false, Schedule::kReversed);
    std::vector<std::uint32_t> got(64);
    emu.download(std::span(got), out);
    unsigned wrong = 0;
    for (unsigned t = 1; t < 64; ++t) wrong += got[t] != t;
    EXPECT_EQ(wrong, 63u);
    EXPECT_GE(emu.finding_count(FindingKind::kSharedRace), 1u) << emu.findings_report();
    EXPECT_EQ(emu.finding_count(FindingKind::kUninitializedRead), 63u) << emu.findings_report();
  }
}

TEST(AccessChecks, SharedWriteAfterReadAcrossWarps) {
  // Planted bug: warp 1 overwrites a slot warp 0 read in the same epoch (a missing barrier
  // before reusing a shared buffer).
  Emulator emu;
  emu.launch("war", {1, 1, 1}, {64, 1, 1}, 0, [&](EmuCtx& ctx) {
    auto buf = ctx.shared_array<float, 64, 1>();
    const unsigned t = ctx.thread_idx().x;
    ctx.store(buf, t, 1.0f);
    ctx.syncthreads();
    const float v = ctx.load(buf, (t + 32) % 64);
    ctx.store(buf, t, v + 1.0f);
  });
  EXPECT_GE(emu.finding_count(FindingKind::kSharedRace), 1u) << emu.findings_report();
  EXPECT_NE(emu.findings_report().find("write-after-read"), std::string::npos) << emu.findings_report();
}

TEST(AccessChecks, SharedArraysDynamicSharedAndTheirBounds) {
  Emulator emu;
  auto out = emu.alloc<float>(32, "out");
  emu.launch("smem", {2, 1, 1}, {32, 1, 1}, 32 * sizeof(float), [&](EmuCtx& ctx) {
    auto dyn = ctx.dynamic_shared<float>();
    auto stat = ctx.shared_array<float, 32, 7>();
    const unsigned t = ctx.thread_idx().x;
    ctx.store(dyn, t, static_cast<float>(t));
    ctx.store(stat, t, 2.0f * static_cast<float>(t));
    ctx.syncthreads();
    if (ctx.block_idx().x == 0) ctx.store(out, t, ctx.load(dyn, 31 - t) + ctx.load(stat, 31 - t));
  });
  std::vector<float> got(32);
  emu.download(std::span(got), out);
  for (unsigned t = 0; t < 32; ++t) EXPECT_EQ(got[t], 3.0f * static_cast<float>(31 - t)) << t;
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
  // Planted bug: element 32 of a 32-element static array.
  emu.launch("smem_oob", {1, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
    auto stat = ctx.shared_array<float, 32, 7>();
    ctx.store(stat, ctx.thread_idx().x + 1, 0.0f);
  });
  EXPECT_EQ(emu.finding_count(FindingKind::kOutOfBounds), 1u) << emu.findings_report();
  // Planted bug: reading shared memory nobody wrote in this block (block 1 reads what only
  // block 0 wrote: shared memory does not survive a block).
  emu.clear_findings();
  emu.launch("smem_uninit", {2, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
    auto stat = ctx.shared_array<float, 32, 9>();
    if (ctx.block_idx().x == 0) ctx.store(stat, ctx.thread_idx().x, 1.0f);
    ctx.syncthreads();
    (void)ctx.load(stat, ctx.thread_idx().x);
  });
  EXPECT_EQ(emu.finding_count(FindingKind::kUninitializedRead), 32u) << emu.findings_report();
  EXPECT_EQ(emu.findings().front().block.x, 1u);
}

// The 227 KiB per-block limit counts static arrays and the dynamic region together: a static
// array that takes a block over it is a finding (once per block), one that fits beside the same
// dynamic region is not, and one that does not fit in the emulator's shared memory at all (twice
// the limit) is a finding too.
TEST(AccessChecks, SharedMemoryOverThePerBlockLimit) {
  Emulator emu;
  const auto touch = [](EmuCtx& ctx, auto arr) { ctx.store(arr, ctx.thread_idx().x, 1.0f); };
  emu.launch("smem_fits", {1, 1, 1}, {32, 1, 1}, 190 * 1024, [&](EmuCtx& ctx) {
    touch(ctx, ctx.shared_array<float, 8192, 11>());  // 190 + 32 KiB = 222 KiB
  });
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
  // Planted bug: the same array beside a larger dynamic region, 200 + 32 KiB = 232 KiB.
  emu.launch("smem_over", {1, 1, 1}, {32, 1, 1}, 200 * 1024, [&](EmuCtx& ctx) {
    touch(ctx, ctx.shared_array<float, 8192, 12>());
  });
  EXPECT_EQ(emu.finding_count(FindingKind::kSharedOverflow), 1u) << emu.findings_report();
  emu.clear_findings();
  // Planted bug: 300 KiB of static array after 200 KiB of dynamic, beyond what the emulator holds.
  emu.launch("smem_nowhere", {1, 1, 1}, {32, 1, 1}, 200 * 1024, [&](EmuCtx& ctx) {
    touch(ctx, ctx.shared_array<float, 76800, 13>());
  });
  EXPECT_EQ(emu.finding_count(FindingKind::kSharedOverflow), 1u) << emu.findings_report();
  EXPECT_NE(emu.findings_report().find("does not fit at all"), std::string::npos) << emu.findings_report();
}

TEST(AccessChecks, FindingsPerSiteAreCappedButCounted) {
  Emulator emu;
  auto buf = emu.alloc<float>(4, "tiny");
  emu.launch("many_oob", {4, 1, 1}, {256, 1, 1}, 0, [&](EmuCtx& ctx) {
    ctx.store(buf, 4 + ctx.block_idx().x * 256 + ctx.thread_idx().x, 0.0f);
  });
  EXPECT_EQ(emu.finding_count(FindingKind::kOutOfBounds), 1024u);
  EXPECT_EQ(emu.findings().size(), kMaxStoredFindingsPerSite);
}

}  // namespace
}  // namespace mxv::emu
