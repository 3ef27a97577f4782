// Tests of the emulator's asynchronous bulk copies and transaction barriers
// (emulation/src/async_copy.cpp; docs/design.md section 4.2, "Asynchronous copies"). The copy
// itself is shown to move the right bytes under every schedule, and each misuse the model checks
// (a read before the wait, a phase not waited for, a block that ends before any wait, an
// uninitialised barrier, a wait that can never complete, each broken precondition of a barrier or
// a copy, a copy over bytes another warp still reads) is a planted bug it reports, beside the
// correct kernel that reports nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "mxv/emulation/emulator.h"

namespace mxv::emu {
namespace {

using device::GlobalPtr;
using device::SharedPtr;

constexpr unsigned kThreads = 64;
constexpr std::uint32_t kBytes = kThreads * sizeof(std::uint32_t);

GlobalPtr<std::uint32_t> counting_input(Emulator& emu, unsigned n, std::uint32_t first) {
  const GlobalPtr<std::uint32_t> in = emu.alloc<std::uint32_t>(n, "in");
  std::vector<std::uint32_t> host(n);
  std::iota(host.begin(), host.end(), first);
  emu.upload(in, std::span<const std::uint32_t>(host));
  return in;
}

GlobalPtr<const std::uint8_t> bytes_of(GlobalPtr<std::uint32_t> p, std::size_t word) {
  return {reinterpret_cast<const std::uint8_t*>(p.raw + word)};
}

SharedPtr<std::uint8_t> bytes_of(SharedPtr<std::uint32_t> p) { return {reinterpret_cast<std::uint8_t*>(p.raw)}; }

std::vector<std::uint32_t> downloaded(const Emulator& emu, GlobalPtr<std::uint32_t> out, unsigned n) {
  std::vector<std::uint32_t> got(n);
  emu.download(std::span(got), out);
  return got;
}

// Thread 0 initialises the barrier, the block meets, then thread 0 announces and copies 256 bytes
// while every thread waits (or, the planted bug, does not) and writes back the word it reads.
void copy_then_read(Emulator& emu, GlobalPtr<std::uint32_t> in, GlobalPtr<std::uint32_t> out, bool wait,
                    Schedule schedule) {
  LaunchOptions options;
  options.schedule = schedule;
  options.seed = 7;
  emu.launch(
      "copy_then_read", {1, 1, 1}, {kThreads, 1, 1}, 0,
      [&](EmuCtx& ctx) {
        const auto stage = ctx.shared_array<std::uint32_t, kThreads, 0>();
        const auto bar = ctx.shared_array<std::uint64_t, 1, 0>();
        const unsigned t = ctx.thread_idx().x;
        if (t == 0) ctx.barrier_init(bar, 1);
        ctx.syncthreads();
        if (t == 0) {
          ctx.barrier_arrive_expect(bar, kBytes);
          ctx.bulk_copy(bytes_of(stage), bytes_of(in, 0), kBytes, bar);
        }
        if (wait) ctx.barrier_wait(bar, 0);
        ctx.store(out, t, ctx.load(stage, t));
      },
      options);
}

TEST(AsyncCopy, CopiedBytesAreReadAfterTheWaitUnderEverySchedule) {
  for (Schedule s : {Schedule::kForward, Schedule::kReversed, Schedule::kShuffled}) {
    Emulator emu;
    const auto in = counting_input(emu, kThreads, 100);
    const auto out = emu.alloc<std::uint32_t>(kThreads, "out");
    copy_then_read(emu, in, out, /*wait=*/true, s);
    const std::vector<std::uint32_t> got = downloaded(emu, out, kThreads);
    for (unsigned t = 0; t < kThreads; ++t) EXPECT_EQ(got[t], 100u + t) << "thread " << t;
    EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
  }
}

TEST(AsyncCopy, AReadBeforeTheWaitIsReportedThoughItsValuesAreRight) {
  // Planted bug: no wait. The emulator copies when the copy is issued, so the values come out
  // right in forward order; the GPU's copy may not have landed. The checker sees it anyway.
  Emulator emu;
  const auto in = counting_input(emu, kThreads, 100);
  const auto out = emu.alloc<std::uint32_t>(kThreads, "out");
  copy_then_read(emu, in, out, /*wait=*/false, Schedule::kForward);
  const std::vector<std::uint32_t> got = downloaded(emu, out, kThreads);
  for (unsigned t = 0; t < kThreads; ++t) EXPECT_EQ(got[t], 100u + t) << "thread " << t;
  // Every thread's read, one per site is stored (kMaxStoredFindingsPerSite), all are counted;
  // and no thread waited, so the block's end is reported too.
  EXPECT_EQ(emu.finding_count(FindingKind::kAsyncCopy), kThreads + 1u) << emu.findings_report();
  EXPECT_EQ(emu.finding_count(), kThreads + 1u) << emu.findings_report();
  const Finding& f = emu.findings().front();
  EXPECT_NE(f.detail.find("before this thread waited for phase 0"), std::string::npos) << f.detail;
  EXPECT_NE(f.site.find("async_copy_test.cpp:"), std::string::npos) << f.site;
  EXPECT_NE(emu.findings_report().find("the block ends before any thread waited"), std::string::npos)
      << emu.findings_report();
}

// A two-stage ring through one barrier: tile 0 in phase 0, tile 1 (copied once every thread has
// read tile 0) in phase 1. The planted bug waits for tile 0 only: the block barrier after it does
// not wait for a copy.
void two_phases(Emulator& emu, GlobalPtr<std::uint32_t> in, GlobalPtr<std::uint32_t> out, bool first_wait_only) {
  emu.launch("two_phases", {1, 1, 1}, {kThreads, 1, 1}, 0, [&](EmuCtx& ctx) {
    const auto stage = ctx.shared_array<std::uint32_t, kThreads, 0>();
    const auto bar = ctx.shared_array<std::uint64_t, 1, 0>();
    const unsigned t = ctx.thread_idx().x;
    if (t == 0) ctx.barrier_init(bar, 1);
    ctx.syncthreads();
    for (std::uint32_t tile = 0; tile < 2; ++tile) {
      if (t == 0) {
        ctx.barrier_arrive_expect(bar, kBytes);
        ctx.bulk_copy(bytes_of(stage), bytes_of(in, tile * kThreads), kBytes, bar);
      }
      if (tile == 0 || !first_wait_only) ctx.barrier_wait(bar, tile & 1u);
      ctx.store(out, tile * kThreads + t, ctx.load(stage, t));
      ctx.syncthreads();  // every thread is done with the stage before it is copied again
    }
  });
}

TEST(AsyncCopy, EachPhaseMustBeWaitedFor) {
  {
    Emulator emu;
    const auto in = counting_input(emu, 2 * kThreads, 0);
    const auto out = emu.alloc<std::uint32_t>(2 * kThreads, "out");
    two_phases(emu, in, out, /*first_wait_only=*/false);
    const std::vector<std::uint32_t> got = downloaded(emu, out, 2 * kThreads);
    for (unsigned i = 0; i < 2 * kThreads; ++i) EXPECT_EQ(got[i], i) << i;
    EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
  }
  {
    Emulator emu;
    const auto in = counting_input(emu, 2 * kThreads, 0);
    const auto out = emu.alloc<std::uint32_t>(2 * kThreads, "out");
    two_phases(emu, in, out, /*first_wait_only=*/true);
    // Every read of tile 1 is early, and no thread saw its phase complete before the block ended.
    EXPECT_EQ(emu.finding_count(FindingKind::kAsyncCopy), kThreads + 1u) << emu.findings_report();
    EXPECT_NE(emu.findings().front().detail.find("before this thread waited for phase 1"), std::string::npos)
        << emu.findings_report();
  }
}

TEST(AsyncCopy, BarrierMisuseIsReportedNeverAHang) {
  {  // an arrival on a word nobody initialised
    Emulator emu;
    emu.launch("uninitialised", {1, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
      const auto bar = ctx.shared_array<std::uint64_t, 1, 0>();
      if (ctx.thread_idx().x == 0) ctx.barrier_arrive_expect(bar, 16);
    });
    ASSERT_EQ(emu.finding_count(FindingKind::kAsyncCopy), 1u) << emu.findings_report();
    EXPECT_NE(emu.findings().front().detail.find("which no thread of this block initialised"), std::string::npos)
        << emu.findings_report();
  }
  {  // warp 1 waits on the barrier warp 0 initialised, with no block barrier between
    for (const bool barrier_after_init : {true, false}) {
      Emulator emu;
      const auto in = counting_input(emu, kThreads, 0);
      emu.launch("init_then_use", {1, 1, 1}, {kThreads, 1, 1}, 0, [&](EmuCtx& ctx) {
        const auto stage = ctx.shared_array<std::uint32_t, kThreads, 0>();
        const auto bar = ctx.shared_array<std::uint64_t, 1, 0>();
        if (ctx.thread_idx().x == 0) {
          ctx.barrier_init(bar, 1);
          ctx.barrier_arrive_expect(bar, kBytes);
          ctx.bulk_copy(bytes_of(stage), bytes_of(in, 0), kBytes, bar);
        }
        if (barrier_after_init) ctx.syncthreads();
        ctx.barrier_wait(bar, 0);
      });
      if (barrier_after_init) {
        EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
      } else {
        // The 32 threads of warp 1 (warp 0's own use is program order).
        EXPECT_EQ(emu.finding_count(FindingKind::kAsyncCopy), 32u) << emu.findings_report();
        EXPECT_NE(emu.findings().front().detail.find("which warp 0 initialised with no __syncthreads between"),
                  std::string::npos)
            << emu.findings_report();
      }
    }
  }
  {  // two arrivals expected, one made: the waiters are reported and released
    Emulator emu;
    emu.launch("never_completes", {1, 1, 1}, {kThreads, 1, 1}, 0, [&](EmuCtx& ctx) {
      const auto bar = ctx.shared_array<std::uint64_t, 1, 0>();
      if (ctx.thread_idx().x == 0) ctx.barrier_init(bar, 2);
      ctx.syncthreads();
      if (ctx.thread_idx().x == 0) ctx.barrier_arrive_expect(bar, 0);
      ctx.barrier_wait(bar, 0);
    });
    EXPECT_EQ(emu.finding_count(FindingKind::kAsyncCopy), kThreads) << emu.findings_report();
    EXPECT_NE(emu.findings().front().detail.find("cannot complete: 1 arrival(s) and 0 byte(s) missing"),
              std::string::npos)
        << emu.findings_report();
  }
  {  // a copy of 24 bytes (not a multiple of 16) is refused and reported
    Emulator emu;
    const auto in = counting_input(emu, kThreads, 0);
    emu.launch("bad_size", {1, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
      const auto stage = ctx.shared_array<std::uint32_t, kThreads, 0>();
      const auto bar = ctx.shared_array<std::uint64_t, 1, 0>();
      if (ctx.thread_idx().x == 0) {
        ctx.barrier_init(bar, 1);
        ctx.bulk_copy(bytes_of(stage), bytes_of(in, 0), 24, bar);
      }
    });
    ASSERT_EQ(emu.finding_count(FindingKind::kAsyncCopy), 1u) << emu.findings_report();
    EXPECT_NE(emu.findings().front().detail.find("positive multiple of 16 bytes"), std::string::npos)
        << emu.findings_report();
  }
}

// Each precondition of a barrier and of a bulk copy, broken alone, is one finding that names it:
// an arrival through a pointer that is not an 8-byte word, a barrier for 0 arrivals, a 256th
// barrier, and copies misaligned at either end or running past their shared array.
TEST(AsyncCopy, EachBrokenPreconditionIsReported) {
  const auto one_finding = [](const char* name, const std::function<void(EmuCtx&, GlobalPtr<std::uint32_t>)>& body,
                              const std::string& says) {
    Emulator emu;
    const auto in = counting_input(emu, kThreads, 0);
    emu.launch(name, {1, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
      if (ctx.thread_idx().x == 0) body(ctx, in);
    });
    EXPECT_EQ(emu.finding_count(FindingKind::kAsyncCopy), 1u) << name << "\n" << emu.findings_report();
    EXPECT_NE(emu.findings_report().find(says), std::string::npos) << name << "\n" << emu.findings_report();
  };
  const auto word_bar = [](EmuCtx& ctx, unsigned byte) {  // a "barrier" `byte` bytes into an aligned pair
    const auto pair = ctx.shared_array<std::uint64_t, 2, 3>();
    return SharedPtr<std::uint64_t>{reinterpret_cast<std::uint64_t*>(reinterpret_cast<std::uint8_t*>(pair.raw) + byte)};
  };
  one_finding("misaligned_barrier", [&](EmuCtx& ctx, GlobalPtr<std::uint32_t>) {
    ctx.barrier_arrive_expect(word_bar(ctx, 4), 16);
  }, "no 8-byte aligned word");
  one_finding("zero_arrivals", [&](EmuCtx& ctx, GlobalPtr<std::uint32_t>) {
    ctx.barrier_init(word_bar(ctx, 0), 0);
  }, "0 arrivals");
  one_finding("barrier_256", [&](EmuCtx& ctx, GlobalPtr<std::uint32_t>) {
    const auto bars = ctx.shared_array<std::uint64_t, 256, 4>();
    for (std::uint32_t i = 0; i < 256; ++i) ctx.barrier_init(SharedPtr<std::uint64_t>{bars.raw + i}, 1);
  }, "more than 255 barriers");
  const auto copy = [&](EmuCtx& ctx, GlobalPtr<std::uint32_t> in, unsigned dst_byte, std::size_t src_word,
                        std::uint32_t bytes) {
    const auto stage = ctx.shared_array<std::uint32_t, kThreads, 0>();
    const auto bar = word_bar(ctx, 0);
    ctx.barrier_init(bar, 1);
    ctx.bulk_copy(SharedPtr<std::uint8_t>{bytes_of(stage).raw + dst_byte}, bytes_of(in, src_word), bytes, bar);
  };
  const std::string copy_rule = "16-byte aligned at both ends, inside one shared";
  one_finding("dst_misaligned", [&](EmuCtx& ctx, GlobalPtr<std::uint32_t> in) { copy(ctx, in, 4, 0, 16); }, copy_rule);
  one_finding("src_misaligned", [&](EmuCtx& ctx, GlobalPtr<std::uint32_t> in) { copy(ctx, in, 0, 1, 16); }, copy_rule);
  one_finding("past_the_array", [&](EmuCtx& ctx, GlobalPtr<std::uint32_t> in) { copy(ctx, in, 16, 0, kBytes); },
              copy_rule);
  one_finding("empty_copy", [&](EmuCtx& ctx, GlobalPtr<std::uint32_t> in) { copy(ctx, in, 0, 0, 0); }, copy_rule);
  // The same copy whole and in place is no finding of this kind (nobody waits for it, so the block's
  // end is the one finding).
  Emulator emu;
  const auto in = counting_input(emu, kThreads, 0);
  emu.launch("in_place", {1, 1, 1}, {32, 1, 1}, 0, [&](EmuCtx& ctx) {
    if (ctx.thread_idx().x == 0) copy(ctx, in, 0, 0, kBytes);
  });
  EXPECT_EQ(emu.finding_count(FindingKind::kAsyncCopy), 1u) << emu.findings_report();
  EXPECT_NE(emu.findings_report().find("the block ends before any thread waited"), std::string::npos)
      << emu.findings_report();
}

TEST(AsyncCopy, ACopyOverBytesAnotherWarpStillReadsIsARace) {
  // Planted bug: warp 1 reads the stage, and thread 0 copies the next tile over it with no block
  // barrier between (the refill of a ring stage before its readers are done).
  for (const bool barrier_first : {true, false}) {
    Emulator emu;
    const auto in = counting_input(emu, 2 * kThreads, 0);
    const auto out = emu.alloc<std::uint32_t>(kThreads, "out");
    emu.launch("refill", {1, 1, 1}, {kThreads, 1, 1}, 0, [&](EmuCtx& ctx) {
      const auto stage = ctx.shared_array<std::uint32_t, kThreads, 0>();
      const auto bar = ctx.shared_array<std::uint64_t, 1, 0>();
      const unsigned t = ctx.thread_idx().x;
      if (t == 0) {
        ctx.barrier_init(bar, 1);
        ctx.barrier_arrive_expect(bar, kBytes);
        ctx.bulk_copy(bytes_of(stage), bytes_of(in, 0), kBytes, bar);
      }
      ctx.syncthreads();
      ctx.barrier_wait(bar, 0);
      if (t >= 32) ctx.store(out, t, ctx.load(stage, t));
      if (barrier_first) ctx.syncthreads();
      if (t == 0) {
        ctx.barrier_arrive_expect(bar, kBytes);
        ctx.bulk_copy(bytes_of(stage), bytes_of(in, kThreads), kBytes, bar);
      }
      ctx.barrier_wait(bar, 1);
      if (t < 32) ctx.store(out, t, ctx.load(stage, t));
    }, LaunchOptions{Schedule::kReversed});
    if (barrier_first) {
      EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
    } else {
      ASSERT_EQ(emu.finding_count(FindingKind::kSharedRace), 1u) << emu.findings_report();
      EXPECT_NE(emu.findings().front().detail.find("bulk copy overwrites byte 128"), std::string::npos)
          << emu.findings_report();
    }
  }
}

}  // namespace
}  // namespace mxv::emu
