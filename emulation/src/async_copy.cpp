// Asynchronous bulk copies and their transaction barriers on the emulator (docs/design.md section
// 4.2, "Asynchronous copies"): the model of PTX cp.async.bulk and mbarrier that CudaCtx's members
// of the same names compile to.
//
// A barrier phase completes when its pending arrivals reach zero and every announced byte has been
// copied. The emulator performs a copy when it is issued, so its bytes count at once; what it
// checks is what the GPU leaves to chance: every shared byte a copy writes carries the barrier and
// the phase that makes it readable, and a thread that reads it before it has waited for that phase
// is reported, whichever order the fibers ran in. A block that ends before any of its threads
// waited for a copy is reported too (on the GPU the copy may still be landing in shared memory the
// next block is given).
#include <algorithm>
#include <string>

#include "emulator_internal.h"

namespace mxv::emu::detail {

void BlockRun::complete_if_done(AsyncBarrier& b) {
  if (b.pending == 0 && b.tx == 0) {
    ++b.completed;
    b.pending = b.arrivals;
  }
}

AsyncBarrier* BlockRun::find_async_barrier(std::size_t at) {
  for (AsyncBarrier& b : async_barriers_) {
    if (b.at == at) return &b;
  }
  return nullptr;
}

AsyncBarrier* BlockRun::async_barrier(ThreadState& t, const void* bar, std::uint32_t site, const char* what) {
  const SharedRegion* r = shared_region(bar);
  const std::size_t at = shared_offset(bar);
  if (r == nullptr || at % 8 != 0) {
    report(FindingKind::kAsyncCopy, t, site, "shared", reinterpret_cast<std::uintptr_t>(bar), 0,
           std::string(what) + " through a pointer that is no 8-byte aligned word of this block's shared memory");
    return nullptr;
  }
  if (AsyncBarrier* b = find_async_barrier(at)) {
    // Another warp may use the barrier only after a block barrier that follows its initialisation.
    if (b->init_epoch == epoch_ && b->init_warp != t.ctx.warp_) {
      report(FindingKind::kAsyncCopy, t, site, r->name, 0, static_cast<std::int64_t>(at - r->offset),
             std::string(what) + " on the barrier at shared byte " + std::to_string(at) + ", which warp " +
                 std::to_string(b->init_warp) + " initialised with no __syncthreads between");
    }
    return b;
  }
  report(FindingKind::kAsyncCopy, t, site, r->name, 0, static_cast<std::int64_t>(at - r->offset),
         std::string(what) + " on the word at shared byte " + std::to_string(at) +
             ", which no thread of this block initialised as a barrier");
  return nullptr;
}

void BlockRun::async_barrier_init(ThreadState& t, const void* bar, std::uint32_t arrivals, CallSite site) {
  const std::uint32_t id = site_id(t, site);
  // The word is written like any shared store (bounds, alignment, races with its other users).
  std::uint64_t zero = 0;
  shared_access(t, bar, 0, sizeof zero, true, &zero, site);
  const SharedRegion* r = shared_region(bar);
  if (r == nullptr) return;
  const std::size_t at = shared_offset(bar);
  if (at % 8 != 0) return;  // reported as misaligned by the store
  if (arrivals == 0) {
    report(FindingKind::kAsyncCopy, t, id, r->name, 0, static_cast<std::int64_t>(at - r->offset),
           "barrier initialised for 0 arrivals: its phases could never complete");
  }
  AsyncBarrier* b = find_async_barrier(at);
  if (b == nullptr) {
    if (async_barriers_.size() >= 255u) {
      report(FindingKind::kAsyncCopy, t, id, r->name, 0, static_cast<std::int64_t>(at - r->offset),
             "more than 255 barriers in one block: the emulator cannot follow them");
      return;
    }
    b = &async_barriers_.emplace_back();
  }
  *b = AsyncBarrier{};
  b->at = at;
  b->arrivals = b->pending = arrivals;
  b->init_epoch = epoch_;
  b->init_warp = static_cast<std::uint16_t>(t.ctx.warp_);
}

void BlockRun::async_arrive_expect(ThreadState& t, const void* bar, std::uint32_t bytes, CallSite site) {
  const std::uint32_t id = site_id(t, site);
  AsyncBarrier* b = async_barrier(t, bar, id, "arrive");
  if (b == nullptr) return;
  if (b->pending == 0) {  // only with 0 arrivals, reported at the init
    return;
  }
  b->tx += bytes;
  --b->pending;
  complete_if_done(*b);
}

void BlockRun::bulk_copy(ThreadState& t, void* dst, const void* src, std::uint32_t bytes, const void* bar,
                         CallSite site) {
  const std::uint32_t id = site_id(t, site);
  AsyncBarrier* b = async_barrier(t, bar, id, "bulk copy");
  if (b == nullptr) return;
  const SharedRegion* r = shared_region(dst);
  const std::size_t at = shared_offset(dst);
  if (r == nullptr || bytes == 0 || bytes % 16 != 0 || at % 16 != 0 ||
      reinterpret_cast<std::uintptr_t>(src) % 16 != 0 || at + bytes > r->offset + r->bytes) {
    report(FindingKind::kAsyncCopy, t, id, r != nullptr ? r->name : "shared", reinterpret_cast<std::uintptr_t>(src),
           0,
           "bulk copy of " + std::to_string(bytes) +
               " bytes needs a positive multiple of 16 bytes, 16-byte aligned at both ends, inside one shared "
               "array");
    return;
  }
  const auto index = static_cast<std::uint32_t>(b - async_barriers_.data());
  const std::uint32_t phase = b->completed + 1u;
  b->copied_phase = phase;
  b->copier = t.linear;
  b->copy_site = id;
  b->tx -= bytes;
  const auto warp = static_cast<std::uint16_t>(t.ctx.warp_);
  bool reported = false;
  for (std::uint32_t v = 0; v < bytes; v += 16) {
    std::byte chunk[16];
    global_access(t, src, v, 1, 16, AccessKind::kLoad, chunk, site, /*record=*/false);
    for (std::size_t k = 0; k < 16; ++k) {
      SharedShadow& s = shared_shadow_[at + v + k];
      // The copy overwrites bytes: other warps that used them in this epoch must be done first
      // (a block barrier before the copy is issued), as for any store. Reported, then performed.
      const bool used = (s.read_epoch == epoch_ && s.read_warp != warp) ||
                        (s.write_epoch == epoch_ && s.write_warp != warp && s.write_warp != kCopyEngine);
      if (used && !reported) {
        report(FindingKind::kSharedRace, t, id, r->name, 0, static_cast<std::int64_t>(at - r->offset + v + k),
               "bulk copy overwrites byte " + std::to_string(at - r->offset + v + k) + " of " + r->name +
                   ", which another warp used with no __syncthreads between");
        reported = true;
      }
      s.write_epoch = epoch_;
      s.write_warp = kCopyEngine;
      s.async_tag = (index + 1u) << 24 | (phase & 0xFFFFFFu);
    }
    std::copy(chunk, chunk + 16, shared_.data() + at + v);
  }
  complete_if_done(*b);
}

void BlockRun::async_wait(ThreadState& t, const void* bar, std::uint32_t parity, CallSite site) {
  const std::uint32_t id = site_id(t, site);
  AsyncBarrier* b = async_barrier(t, bar, id, "wait");
  if (b == nullptr) return;
  const auto index = static_cast<std::uint32_t>(b - async_barriers_.data());
  // PTX try_wait.parity: done once the current phase's parity differs from `parity`.
  while ((async_barriers_[index].completed & 1u) == (parity & 1u)) {
    t.wait_barrier = index;
    t.wait_parity = parity & 1u;
    t.wait_site = id;
    t.state = RunState::kAtAsyncWait;
    t.fiber->yield();
    if (t.wait_abandoned) {
      t.wait_abandoned = false;
      return;
    }
  }
  if (t.observed_phases.size() <= index) t.observed_phases.resize(index + 1u, 0u);
  t.observed_phases[index] = std::max(t.observed_phases[index], async_barriers_[index].completed);
}

bool BlockRun::resolve_async_waits(bool stuck) {
  bool released = false;
  for (ThreadState& t : threads_) {
    if (t.state != RunState::kAtAsyncWait) continue;
    const bool done = (async_barriers_[t.wait_barrier].completed & 1u) != t.wait_parity;
    if (!done && !stuck) continue;
    if (!done) {  // every other thread waits at a block barrier or has exited: nothing can arrive
      const AsyncBarrier& b = async_barriers_[t.wait_barrier];
      report(FindingKind::kAsyncCopy, t, t.wait_site, "shared", 0, static_cast<std::int64_t>(b.at),
             "waits for phase " + std::to_string(b.completed) + " of the barrier at shared byte " +
                 std::to_string(b.at) + ", which cannot complete: " + std::to_string(b.pending) +
                 " arrival(s) and " + std::to_string(b.tx) + " byte(s) missing while every other thread waits at " +
                 "__syncthreads or has exited");
      t.wait_abandoned = true;
    }
    t.state = RunState::kRunnable;
    released = true;
  }
  return released;
}

void BlockRun::check_async_copies_waited() {
  for (std::size_t i = 0; i < async_barriers_.size(); ++i) {
    const AsyncBarrier& b = async_barriers_[i];
    if (b.copied_phase == 0) continue;
    std::uint32_t seen = 0;
    for (const ThreadState& t : threads_) {
      if (i < t.observed_phases.size()) seen = std::max(seen, t.observed_phases[i]);
    }
    if (seen >= b.copied_phase) continue;
    report(FindingKind::kAsyncCopy, threads_[b.copier], b.copy_site, "shared", 0, static_cast<std::int64_t>(b.at),
           "the block ends before any thread waited for phase " + std::to_string(b.copied_phase - 1u) +
               " of the barrier at shared byte " + std::to_string(b.at) +
               ", whose bulk copy may still be landing on the GPU");
  }
}

}  // namespace mxv::emu::detail
