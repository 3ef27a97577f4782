// Tests of the emulator's execution model (emulation/src/scheduler.cpp; docs/design.md section
// 4.1, "Execution"):
// CUDA launch geometry, the three schedules, barriers, warp shuffles with width, votes, and the
// rendezvous checkers (divergent shuffle, divergent barrier), each caught on a planted bug.
// Expectations come from the CUDA C++ Programming Guide ("Warp Shuffle Functions") and the PTX
// ISA ("shfl.sync"), written out by hand here, never from the emulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "mxv/emulation/emulator.h"

namespace mxv::emu {
namespace {

using device::Dim3;
using device::GlobalPtr;
using device::kFullMask;

unsigned linear_tid(const EmuCtx& ctx) {
  const Dim3 t = ctx.thread_idx(), b = ctx.block_dim();
  return t.x + b.x * (t.y + b.y * t.z);
}

TEST(Scheduler, GeometryMatchesCuda) {
  // Every (block, thread) pair runs exactly once and sees CUDA's indices and dimensions.
  Emulator emu;
  const Dim3 grid{3, 2, 2}, block{4, 3, 2};
  const std::size_t n = 3 * 2 * 2 * 4 * 3 * 2;
  auto out = emu.alloc<std::uint32_t>(n * 4, "out");
  emu.launch("geometry", grid, block, 0, [&](EmuCtx& ctx) {
    const Dim3 b = ctx.block_idx(), t = ctx.thread_idx(), g = ctx.grid_dim(), d = ctx.block_dim();
    const std::size_t blin = b.x + g.x * (b.y + g.y * b.z);
    const std::size_t i = blin * (d.x * d.y * d.z) + t.x + d.x * (t.y + d.y * t.z);
    ctx.store(out, 4 * i + 0, b.x * 100 + b.y * 10 + b.z);
    ctx.store(out, 4 * i + 1, t.x * 100 + t.y * 10 + t.z);
    ctx.store(out, 4 * i + 2, g.x * 100 + g.y * 10 + g.z);
    ctx.store(out, 4 * i + 3, d.x * 100 + d.y * 10 + d.z);
  });
  std::vector<std::uint32_t> host(n * 4);
  emu.download(std::span(host), out);
  std::size_t i = 0;
  for (unsigned bz = 0; bz < 2; ++bz)
    for (unsigned by = 0; by < 2; ++by)
      for (unsigned bx = 0; bx < 3; ++bx)
        for (unsigned tz = 0; tz < 2; ++tz)
          for (unsigned ty = 0; ty < 3; ++ty)
            for (unsigned tx = 0; tx < 4; ++tx, ++i) {
              EXPECT_EQ(host[4 * i + 0], bx * 100 + by * 10 + bz) << i;
              EXPECT_EQ(host[4 * i + 1], tx * 100 + ty * 10 + tz) << i;
              EXPECT_EQ(host[4 * i + 2], 322u) << i;
              EXPECT_EQ(host[4 * i + 3], 432u) << i;
            }
  EXPECT_EQ(emu.count_unwritten(out, n * 4), 0u);
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
}

std::vector<unsigned> start_order(Schedule schedule, std::uint64_t seed) {
  Emulator emu;
  std::vector<unsigned> order;
  LaunchOptions options;
  options.schedule = schedule;
  options.seed = seed;
  emu.launch("order", {1, 1, 1}, {64, 1, 1}, 0, [&](EmuCtx& ctx) { order.push_back(linear_tid(ctx)); },
             options);
  return order;
}

TEST(Scheduler, ForwardReversedAndShuffledOrders) {
  std::vector<unsigned> forward(64), reversed(64);
  std::iota(forward.begin(), forward.end(), 0u);
  std::iota(reversed.rbegin(), reversed.rend(), 0u);
  EXPECT_EQ(start_order(Schedule::kForward, 0), forward);
  EXPECT_EQ(start_order(Schedule::kReversed, 0), reversed);
  const auto s1 = start_order(Schedule::kShuffled, 1);
  const auto s1_again = start_order(Schedule::kShuffled, 1);
  const auto s2 = start_order(Schedule::kShuffled, 2);
  EXPECT_EQ(s1, s1_again) << "a seed must reproduce its order";
  EXPECT_NE(s1, s2);
  EXPECT_NE(s1, forward);
  auto sorted = s1;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, forward) << "a shuffle is a permutation";
}

TEST(Scheduler, SyncthreadsSeparatesPhasesInEverySchedule) {
  for (Schedule s : {Schedule::kForward, Schedule::kReversed, Schedule::kShuffled}) {
    Emulator emu;
    std::vector<int> log;
    LaunchOptions options;
    options.schedule = s;
    options.seed = 7;
    emu.launch("phases", {2, 1, 1}, {96, 1, 1}, 0, [&](EmuCtx& ctx) {
      log.push_back(1);
      ctx.syncthreads();
      log.push_back(2);
      ctx.syncthreads();
      log.push_back(3);
    }, options);
    ASSERT_EQ(log.size(), 2u * 96 * 3);
    for (std::size_t b = 0; b < 2; ++b) {
      for (std::size_t i = 0; i < 96 * 3; ++i) {
        EXPECT_EQ(log[b * 288 + i], static_cast<int>(i / 96) + 1) << "block " << b << " entry " << i;
      }
    }
    EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
  }
}

// Runs one warp where lane l contributes 10*l + 1 and returns what each lane got back.
template <class Op>
std::vector<std::uint32_t> per_lane(Op op, Emulator& emu, unsigned threads = 32) {
  std::vector<std::uint32_t> got(threads, 0xDEADu);
  emu.launch("per_lane", {1, 1, 1}, {threads, 1, 1}, 0, [&](EmuCtx& ctx) {
    got[ctx.lane() + 32 * ctx.warp()] = op(ctx, 10u * ctx.lane() + 1u);
  });
  return got;
}

TEST(Scheduler, ShuffleVariantsFollowPtxSegmentRules) {
  Emulator emu;
  // __shfl_xor_sync(full, v, 1): neighbours swap.
  auto x1 = per_lane([](EmuCtx& c, std::uint32_t v) { return c.shfl_xor(kFullMask, v, 1); }, emu);
  // width 16, lane mask 16: lanes 0-15 would read a later segment -> own value; lanes 16-31 read
  // the earlier segment (allowed, CUDA guide: "threads may read from earlier groups").
  auto x16 = per_lane([](EmuCtx& c, std::uint32_t v) { return c.shfl_xor(kFullMask, v, 16, 16); }, emu);
  // shfl_up by 1 within 8-lane segments: the first lane of each segment keeps its own value.
  auto up = per_lane([](EmuCtx& c, std::uint32_t v) { return c.shfl_up(kFullMask, v, 1u, 8); }, emu);
  // shfl_down by 2 within 8-lane segments: the last two lanes keep their own value.
  auto down = per_lane([](EmuCtx& c, std::uint32_t v) { return c.shfl_down(kFullMask, v, 2u, 8); }, emu);
  // shfl (idx) 3 within 8-lane segments: every lane reads lane 3 of its own segment; 11 is taken
  // modulo the width as the PTX c operand masks it.
  auto idx = per_lane([](EmuCtx& c, std::uint32_t v) { return c.shfl(kFullMask, v, 11, 8); }, emu);
  for (unsigned l = 0; l < 32; ++l) {
    const auto v = [](unsigned lane) { return 10u * lane + 1u; };
    EXPECT_EQ(x1[l], v(l ^ 1u)) << l;
    EXPECT_EQ(x16[l], l < 16 ? v(l) : v(l - 16)) << l;
    EXPECT_EQ(up[l], l % 8 == 0 ? v(l) : v(l - 1)) << l;
    EXPECT_EQ(down[l], l % 8 >= 6 ? v(l) : v(l + 2)) << l;
    EXPECT_EQ(idx[l], v(l / 8 * 8 + 3)) << l;
  }
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
}

TEST(Scheduler, FloatShuffleMovesBitsExactly) {
  Emulator emu;
  std::vector<float> got(32);
  emu.launch("float_shfl", {1, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
    const float mine = ctx.lane() == 5 ? -0.0f : 1.0f + static_cast<float>(ctx.lane());
    got[ctx.lane()] = ctx.shfl(kFullMask, mine, 5);
  });
  for (float g : got) EXPECT_TRUE(g == 0.0f && std::signbit(g));
}

TEST(Scheduler, VotesOverTheMask) {
  Emulator emu;
  auto ballot = per_lane([](EmuCtx& c, std::uint32_t v) { return c.ballot(kFullMask, (v / 10) % 3 == 0); }, emu);
  auto any = per_lane([](EmuCtx& c, std::uint32_t v) { return std::uint32_t{c.any(kFullMask, v == 311)}; }, emu);
  auto all = per_lane([](EmuCtx& c, std::uint32_t v) { return std::uint32_t{c.all(kFullMask, v != 311)}; }, emu);
  auto none = per_lane([](EmuCtx& c, std::uint32_t v) { return std::uint32_t{c.any(kFullMask, v == 5)}; }, emu);
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(ballot[l], 0x49249249u) << l;  // lanes 0, 3, 6, ..., 30
    EXPECT_EQ(any[l], 1u) << l;               // lane 31 has 311
    EXPECT_EQ(all[l], 0u) << l;
    EXPECT_EQ(none[l], 0u) << l;
  }
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
}

TEST(Scheduler, HalfWarpMasksResolveIndependently) {
  // Lanes 0-15 and 16-31 take different branches, each with its own half mask: legal CUDA.
  Emulator emu;
  auto got = per_lane([](EmuCtx& c, std::uint32_t v) {
    if (c.lane() < 16) return c.shfl_xor(0x0000FFFFu, v, 1);
    return c.shfl_xor(0xFFFF0000u, v, 2);
  }, emu);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(got[l], 10u * (l < 16 ? l ^ 1u : l ^ 2u) + 1u) << l;
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
}

TEST(Scheduler, OverlappingMasksResolveInAnyOrder) {
  // Each lane shuffles with lane ^ 2 (mask: the two lanes), then with lane ^ 1; lanes 2 and 3 of
  // every 4 shuffle with lane ^ 1 once more before the next round. So lanes 0 and 2 of a group can
  // wait at the next round's first shuffle while 2 and 3 still owe each other the extra one: legal
  // CUDA, which the scheduler must complete in that order rather than report as a deadlock.
  std::vector<std::uint32_t> expect(32);
  std::iota(expect.begin(), expect.end(), 0u);
  for (int round = 0; round < 2; ++round) {
    std::vector<std::uint32_t> v = expect;
    for (unsigned l = 0; l < 32; ++l) expect[l] = v[l] + v[l ^ 2u];
    v = expect;
    for (unsigned l = 0; l < 32; ++l) expect[l] = v[l] + v[l ^ 1u];
    v = expect;
    for (unsigned l = 0; l < 32; ++l) expect[l] = (l & 2u) != 0u ? v[l] + v[l ^ 1u] : v[l];
  }
  for (const Schedule order : {Schedule::kForward, Schedule::kReversed, Schedule::kShuffled}) {
    Emulator emu;
    LaunchOptions options;
    options.schedule = order;
    options.seed = 7;
    std::vector<std::uint32_t> got(32, 0xDEADu);
    emu.launch("overlapping_masks", {1, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& c) {
      const unsigned l = c.lane();
      std::uint32_t v = l;
      for (int round = 0; round < 2; ++round) {
        v += c.shfl_xor(5u << (l & 29u), v, 2);
        v += c.shfl_xor(3u << (l & 30u), v, 1);
        if ((l & 2u) != 0u) v += c.shfl_xor(3u << (l & 30u), v, 1);
      }
      got[l] = v;
    }, options);
    for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(got[l], expect[l]) << "lane " << l;
    EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
  }
}

TEST(Scheduler, AmaxReducedWithShflXorAcross16Lanes) {
  // Each 16-lane group (one NVFP4 block of 16 values, one value per lane) reduces |x| to its
  // maximum with four xor steps; every lane ends with its group's amax.
  Emulator emu;
  std::vector<float> values(64);
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<float>((static_cast<int>(i * 37 % 23) - 11)) * 0.75f;
  }
  values[21] = -40.5f;  // the amax of group 1 is negative-signed
  auto in = emu.alloc<float>(64, "in");
  auto out = emu.alloc<float>(64, "amax");
  emu.upload(in, std::span<const float>(values));
  emu.launch("amax16", {1, 1, 1}, {64, 1, 1}, 0, [&](EmuCtx& ctx) {
    const unsigned i = ctx.thread_idx().x;
    float a = std::fabs(ctx.load(in, i));
    for (int offset = 8; offset > 0; offset /= 2) a = std::fmax(a, ctx.shfl_xor(kFullMask, a, offset, 16));
    ctx.store(out, i, a);
  });
  std::vector<float> got(64);
  emu.download(std::span(got), out);
  for (std::size_t g = 0; g < 4; ++g) {
    float expect = 0;
    for (std::size_t k = 0; k < 16; ++k) expect = std::max(expect, std::fabs(values[g * 16 + k]));
    for (std::size_t k = 0; k < 16; ++k) EXPECT_EQ(got[g * 16 + k], expect) << "group " << g << " lane " << k;
  }
  EXPECT_EQ(got[16], 40.5f);
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
}

TEST(Scheduler, DivergentShuffleIsReportedNotHung) {
  // Planted bug: only half the warp reaches a full-mask shuffle; the others exit.
  Emulator emu;
  std::vector<std::uint32_t> got(32, 0);
  emu.launch("divergent_shfl", {1, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
    std::uint32_t v = ctx.lane();
    if (ctx.lane() < 16) v = ctx.shfl_xor(kFullMask, v, 1);
    got[ctx.lane()] = v + 1;
  });
  EXPECT_EQ(emu.finding_count(FindingKind::kCollectiveMismatch), 1u) << emu.findings_report();
  ASSERT_FALSE(emu.findings().empty());
  const Finding& f = emu.findings().front();
  EXPECT_EQ(f.kernel, "divergent_shfl");
  EXPECT_NE(f.site.find("scheduler_test.cpp:"), std::string::npos) << f.site;
  EXPECT_NE(f.detail.find("lane 16 exited"), std::string::npos) << f.detail;
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(got[l], l + 1) << "every thread ran to the end";
}

TEST(Scheduler, ShufflesAtDifferentSitesAreReported) {
  // Planted bug: both branches shuffle with the full mask, from two different call sites.
  Emulator emu;
  emu.launch("two_sites", {1, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
    float v = 1.0f;
    if (ctx.lane() % 2 == 0) {
      v = ctx.shfl_xor(kFullMask, v, 1);
    } else {
      v = ctx.shfl_xor(kFullMask, v, 1);
    }
    (void)v;
  });
  EXPECT_EQ(emu.finding_count(FindingKind::kCollectiveMismatch), 1u) << emu.findings_report();
}

TEST(Scheduler, ShuffleMaskWithoutCallerOrBadWidthIsReported) {
  Emulator emu;
  emu.launch("bad_mask", {1, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
    if (ctx.lane() == 3) (void)ctx.shfl(0x1u, 1.0f, 0);  // lane 3 not in mask 0x1
  });
  EXPECT_EQ(emu.finding_count(FindingKind::kInvalidCollective), 1u) << emu.findings_report();
  emu.clear_findings();
  emu.launch("bad_width", {1, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
    (void)ctx.shfl_xor(kFullMask, 1.0f, 1, 12);
  });
  EXPECT_EQ(emu.finding_count(FindingKind::kInvalidCollective), 1u) << emu.findings_report();
}

TEST(Scheduler, BarrierAtDifferentSitesIsReported) {
  // Planted bug: warp 0 and warp 1 wait at two different __syncthreads.
  Emulator emu;
  emu.launch("divergent_barrier", {1, 1, 1}, {64, 1, 1}, 0, [&](EmuCtx& ctx) {
    if (ctx.warp() == 0) {
      ctx.syncthreads();
    } else {
      ctx.syncthreads();
    }
  });
  EXPECT_EQ(emu.finding_count(FindingKind::kBarrierDivergence), 1u) << emu.findings_report();
}

TEST(Scheduler, BarrierNotReachedBecauseAWarpWaitsInACollective) {
  // Planted bug: warp 1 waits for a shuffle that half of it never reaches, while warp 0 waits at
  // the barrier. A GPU would hang; the emulator reports both and finishes.
  Emulator emu;
  int finished = 0;
  emu.launch("barrier_vs_shfl", {1, 1, 1}, {64, 1, 1}, 0, [&](EmuCtx& ctx) {
    if (ctx.warp() == 1 && ctx.lane() < 16) (void)ctx.shfl_xor(kFullMask, 1.0f, 1);
    ctx.syncthreads();
    ++finished;
  });
  EXPECT_EQ(finished, 64);
  EXPECT_GE(emu.finding_count(FindingKind::kCollectiveMismatch), 1u) << emu.findings_report();
  EXPECT_GE(emu.finding_count(FindingKind::kBarrierDivergence), 1u) << emu.findings_report();
}

TEST(Scheduler, EarlyExitedThreadsDoNotBlockABarrier) {
  // Threads past the tile edge return before the barrier (sm_70+ counts them as arrived).
  Emulator emu;
  int after = 0;
  emu.launch("early_exit", {1, 1, 1}, {64, 1, 1}, 0, [&](EmuCtx& ctx) {
    if (ctx.thread_idx().x >= 40) return;
    ctx.syncthreads();
    ++after;
  });
  EXPECT_EQ(after, 40);
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
}

TEST(Scheduler, SyncwarpAndPartialLastWarp) {
  // 48 threads: warp 1 has 16 lanes; a full-mask collective covers the lanes that exist.
  Emulator emu;
  std::vector<std::uint32_t> got(48);
  emu.launch("partial_warp", {1, 1, 1}, {48, 1, 1}, 0, [&](EmuCtx& ctx) {
    ctx.syncwarp(kFullMask);
    got[ctx.thread_idx().x] = ctx.ballot(kFullMask, true);
  });
  for (unsigned t = 0; t < 48; ++t) EXPECT_EQ(got[t], t < 32 ? 0xFFFFFFFFu : 0x0000FFFFu) << t;
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
}

TEST(Scheduler, KernelExceptionBecomesAFinding) {
  Emulator emu;
  int finished = 0;
  emu.launch("throws", {1, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
    if (ctx.lane() == 7) throw std::runtime_error("boom");
    ++finished;
  });
  EXPECT_EQ(finished, 31);
  EXPECT_EQ(emu.finding_count(FindingKind::kKernelException), 1u);
  EXPECT_NE(emu.findings_report().find("boom"), std::string::npos);
  EXPECT_EQ(emu.findings().front().thread.x, 7u);
}

TEST(Scheduler, ThrowOnFindingsThrowsAfterTheLaunch) {
  Emulator emu;
  LaunchOptions options;
  options.throw_on_findings = true;
  int finished = 0;
  EXPECT_THROW(emu.launch("throws", {2, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
    ++finished;
    if (ctx.lane() == 0) throw std::runtime_error("boom");
  }, options), LaunchError);
  EXPECT_EQ(finished, 64) << "the launch completes before the exception";
  EXPECT_NO_THROW(emu.launch("clean", {1, 1, 1}, {32, 1, 1}, 0, [](EmuCtx&) {}, options));
}

TEST(Scheduler, InvalidGeometryThrowsAtTheBoundary) {
  Emulator emu;
  auto body = [](EmuCtx&) {};
  EXPECT_THROW(emu.launch("k", {0, 1, 1}, {32, 1, 1}, 0, body), std::invalid_argument);
  EXPECT_THROW(emu.launch("k", {1, 1, 1}, {1025, 1, 1}, 0, body), std::invalid_argument);
  EXPECT_THROW(emu.launch("k", {1, 1, 1}, {32, 32, 2}, 0, body), std::invalid_argument);
  EXPECT_THROW(emu.launch("k", {1, 1, 1}, {1, 1, 65}, 0, body), std::invalid_argument);
  EXPECT_THROW(emu.launch("k", {1, 65536, 1}, {32, 1, 1}, 0, body), std::invalid_argument);
  EXPECT_THROW(emu.launch("k", {1, 1, 1}, {32, 1, 1}, kMaxSharedBytesPerBlock + 1, body),
               std::invalid_argument);
  EXPECT_THROW(emu.launch("", {1, 1, 1}, {32, 1, 1}, 0, body), std::invalid_argument);
  EXPECT_EQ(emu.launch_count(), 0u);
}

TEST(Scheduler, LargeBlockAndManyBlocksRun) {
  Emulator emu;
  std::uint64_t sum = 0;
  emu.launch("big", {50, 1, 1}, {1024, 1, 1}, 0, [&](EmuCtx& ctx) {
    ctx.syncthreads();
    sum += ctx.thread_idx().x;
  });
  EXPECT_EQ(sum, 50ull * (1023ull * 1024ull / 2));
}

}  // namespace
}  // namespace mxv::emu
