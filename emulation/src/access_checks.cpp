// Memory checks of every global and shared access (docs/design.md section 4.2), the access record
// behind the coalescing figures, and the EmuCtx members that forward to them.
//   global: pointer must lie in a live allocation; [offset, offset + size) inside it
//           (out-of-bounds otherwise: the access is not performed, a load returns the red-zone
//           pattern); address a multiple of the access size (misaligned: not performed, as the
//           GPU would fault); a load of a byte whose shadow tag is 0 is an uninitialised read;
//           a store over a byte another block of this launch wrote is a cross-block write, and
//           a load of one is a cross-block read (blocks run in no defined order on the GPU, so
//           the load sees the old or the new value by chance; the serial block order here would
//           hide that). Atomics are tagged as such: an atomic over another block's atomic update
//           is the point of an atomic and is not reported; a plain load of such a byte, or an
//           atomic over another block's plain store, is a race and is.
//   shared: the same bounds/alignment/uninitialised checks per array, plus the race rule: in one
//           barrier epoch, a byte written by warp A and read or written by warp B != A (or read
//           by A and written by B) is a race, whatever order the scheduler happened to pick.
#include <algorithm>
#include <cstring>
#include <limits>

#include "emulator_internal.h"

namespace mxv::emu {

std::uint32_t EmuCtx::atomic_max(device::GlobalPtr<std::uint32_t> p, std::size_t i,
                                 std::uint32_t v, CallSite site) {
  return run_->atomic_max(*self_, p.raw, i, v, site);
}
void EmuCtx::syncthreads(CallSite site) { run_->barrier(*self_, site); }
void EmuCtx::syncwarp(unsigned mask, CallSite site) {
  run_->collective(*self_, CollectiveOp::kSyncwarp, mask, 0, 0, 32, site);
}
void EmuCtx::barrier_init(device::SharedPtr<std::uint64_t> bar, std::uint32_t arrivals, CallSite site) {
  run_->async_barrier_init(*self_, bar.raw, arrivals, site);
}
void EmuCtx::barrier_arrive_expect(device::SharedPtr<std::uint64_t> bar, std::uint32_t bytes, CallSite site) {
  run_->async_arrive_expect(*self_, bar.raw, bytes, site);
}
void EmuCtx::bulk_copy(device::SharedPtr<std::uint8_t> dst, device::GlobalPtr<const std::uint8_t> src,
                       std::uint32_t bytes, device::SharedPtr<std::uint64_t> bar, CallSite site) {
  run_->bulk_copy(*self_, dst.raw, src.raw, bytes, bar.raw, site);
}
void EmuCtx::barrier_wait(device::SharedPtr<std::uint64_t> bar, std::uint32_t parity, CallSite site) {
  run_->async_wait(*self_, bar.raw, parity, site);
}
void EmuCtx::global_access(const void* base, std::size_t index, std::size_t elem_bytes,
                           std::size_t access_bytes, AccessKind kind, void* data, CallSite site) {
  run_->global_access(*self_, base, index, elem_bytes, access_bytes, kind, data, site);
}
void EmuCtx::shared_access(const void* base, std::size_t index, std::size_t bytes, bool is_store,
                           void* data, CallSite site) {
  run_->shared_access(*self_, base, index, bytes, is_store, data, site);
}
void* EmuCtx::shared_static(const void* key, std::size_t bytes, std::size_t align, CallSite site) {
  return run_->shared_static(*self_, key, bytes, align, site);
}
void* EmuCtx::shared_dynamic() { return run_->shared_dynamic(); }
std::uint64_t EmuCtx::collective(CollectiveOp op, unsigned mask, std::uint64_t bits, int arg,
                                 int width, CallSite site) {
  return run_->collective(*self_, op, mask, bits, arg, width, site);
}

}  // namespace mxv::emu

namespace mxv::emu::detail {
namespace {

// Byte offset of element `index` (scaled by elem_bytes) from `base_offset`, or nullopt-like
// max() on overflow (then certainly out of bounds).
std::uint64_t element_offset(std::uint64_t base_offset, std::size_t index, std::size_t elem_bytes) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max() / 2;
  if (index > kMax / elem_bytes) return kMax;
  return base_offset + std::uint64_t{index} * elem_bytes;
}

// Whether the byte's last writer is a block of launch `launch` other than `block`.
bool written_by_other_block(std::uint64_t tag, std::uint64_t launch, std::uint64_t block) {
  return tag_launch(tag) == launch && tag_block(tag) != block;
}

// "block 3", or "block 3 (atomically)": the writer a cross-block read names.
std::string writer_name(std::uint64_t tag) {
  return "block " + std::to_string(tag_block(tag)) + (tag_is_atomic(tag) ? " (atomically)" : "");
}

}  // namespace

Allocation* BlockRun::lookup(const void* p) {
  if (last_alloc_ != nullptr && last_alloc_->contains_pointer(p)) return last_alloc_;
  Allocation* a = impl_.memory.find(p);
  if (a != nullptr) last_alloc_ = a;
  return a;
}

void BlockRun::global_access(ThreadState& t, const void* base, std::size_t index,
                             std::size_t elem_bytes, std::size_t access_bytes, AccessKind kind,
                             void* data, CallSite site, bool record) {
  const bool is_store = kind == AccessKind::kStore;
  const char* verb = is_store ? "store" : kind == AccessKind::kAtomic ? "atomic" : "load";
  Allocation* a = lookup(base);
  if (a == nullptr) {
    const std::uint32_t id = site_id(t, site);
    report(FindingKind::kInvalidPointer, t, id, "?", reinterpret_cast<std::uintptr_t>(base), 0,
           std::string(verb) + " through a pointer that is in no live allocation");
    if (!is_store) std::memset(data, kRedZonePattern, access_bytes);
    return;
  }
  const auto base_offset = static_cast<std::uint64_t>(static_cast<const std::byte*>(base) - a->base);
  const std::uint64_t offset = element_offset(base_offset, index, elem_bytes);
  if (offset > a->bytes || access_bytes > a->bytes - offset) {
    const std::uint32_t id = site_id(t, site);
    const std::uint64_t past = offset >= a->bytes ? (offset - a->bytes) / elem_bytes : 0;
    report(FindingKind::kOutOfBounds, t, id, a->name,
           reinterpret_cast<std::uintptr_t>(a->base) + offset, static_cast<std::int64_t>(offset),
           std::to_string(access_bytes) + "-byte " + verb + " of element " + std::to_string(index) +
               " at byte offset " + std::to_string(offset) + " of '" + a->name + "' (" +
               std::to_string(a->bytes) + " bytes; " + std::to_string(past + 1) +
               " element(s) past the end)");
    if (!is_store) std::memset(data, kRedZonePattern, access_bytes);
    return;
  }
  std::byte* addr = a->base + offset;
  const auto address = reinterpret_cast<std::uintptr_t>(addr);
  if (offset < a->guard_before || offset + access_bytes > a->bytes - a->guard_after) {
    // Inside the allocation but in a guard band: the kernel left its buffer. Reported, then
    // performed (a store must still show as guard damage to the backend's guard check).
    const std::uint32_t id = site_id(t, site);
    const std::uint64_t usable = a->bytes - a->guard_before - a->guard_after;
    const bool before = offset < a->guard_before;
    const std::uint64_t distance = before ? a->guard_before - offset : offset + access_bytes - a->guard_before - usable;
    report(FindingKind::kOutOfBounds, t, id, a->name, address,
           static_cast<std::int64_t>(offset) - static_cast<std::int64_t>(a->guard_before),
           std::to_string(access_bytes) + "-byte " + verb + " of element " + std::to_string(index) +
               " reaches the guard band " + (before ? "before" : "after") + " '" + a->name + "' (" +
               std::to_string(usable) + " usable bytes; " + std::to_string(distance) + " byte(s) " +
               (before ? "before the start" : "past the end") + ")");
  }
  if (address % access_bytes != 0) {
    const std::uint32_t id = site_id(t, site);
    report(FindingKind::kMisaligned, t, id, a->name, address, static_cast<std::int64_t>(offset),
           std::to_string(access_bytes) + "-byte " + verb + " at byte offset " +
               std::to_string(offset) + " of '" + a->name + "' is not " +
               std::to_string(access_bytes) + "-byte aligned");
    if (!is_store) std::memset(data, kRedZonePattern, access_bytes);
    return;
  }
  std::uint64_t* tags = a->tags.data() + offset;
  if (is_store) {
    const std::uint64_t mine = writer_tag(launch_, block_linear_);
    // A plain store over another block's plain store or atomic update: either way the byte's
    // final value depends on the order of the blocks.
    for (std::size_t b = 0; b < access_bytes; ++b) {
      const std::uint64_t old = tags[b];
      if (written_by_other_block(old, launch_, block_linear_)) {
        const std::uint32_t id = site_id(t, site);
        report(FindingKind::kCrossBlockWrite, t, id, a->name, address + b,
               static_cast<std::int64_t>(offset + b),
               "byte " + std::to_string(offset + b) + " of '" + a->name + "' written by block " +
                   std::to_string(block_linear_) + " after block " +
                   std::to_string(tag_block(old)) + " wrote it in the same launch");
        break;
      }
    }
    std::fill(tags, tags + access_bytes, mine);
    std::memcpy(addr, data, access_bytes);
  } else {
    for (std::size_t b = 0; b < access_bytes; ++b) {
      if (tags[b] == 0) {
        const std::uint32_t id = site_id(t, site);
        report(FindingKind::kUninitializedRead, t, id, a->name, address + b,
               static_cast<std::int64_t>(offset + b),
               "load reads byte " + std::to_string(offset + b) + " of '" + a->name +
                   "', which neither the host nor any kernel wrote");
        break;
      }
    }
    const bool atomic = kind == AccessKind::kAtomic;
    for (std::size_t b = 0; b < access_bytes; ++b) {
      const std::uint64_t writer = tags[b];
      // An atomic over another block's atomic update is what atomics are for; anything else
      // across blocks of one launch is ordered by chance.
      if (written_by_other_block(writer, launch_, block_linear_) &&
          !(atomic && tag_is_atomic(writer))) {
        const std::uint32_t id = site_id(t, site);
        report(FindingKind::kCrossBlockRead, t, id, a->name, address + b,
               static_cast<std::int64_t>(offset + b),
               std::string(verb) + " in block " + std::to_string(block_linear_) + " reads byte " +
                   std::to_string(offset + b) + " of '" + a->name + "', which " +
                   writer_name(writer) +
                   " wrote in the same launch: blocks run in no defined order, so it sees the old "
                   "or the new value by chance");
        break;
      }
    }
    std::memcpy(data, addr, access_bytes);
  }
  if (options_.record_coalescing && record) {
    const std::uint32_t id = site_id(t, site);
    warp_records_[t.ctx.warp_].push_back({address, id, t.next_occurrence(id),
                                          static_cast<std::uint16_t>(access_bytes), kind,
                                          static_cast<std::uint8_t>(t.ctx.lane_)});
  }
}

std::uint32_t BlockRun::atomic_max(ThreadState& t, std::uint32_t* base, std::size_t index,
                                   std::uint32_t value, CallSite site) {
  // Checked like a load (bounds, alignment, initialised, cross-block read of a plain store), then
  // written without the cross-block write rule: atomics from many blocks to one word are the
  // point of an atomic.
  std::uint32_t old = 0;
  global_access(t, base, index, sizeof(std::uint32_t), sizeof(std::uint32_t), AccessKind::kAtomic,
                &old, site);
  Allocation* a = lookup(base);
  if (a == nullptr) return old;
  const auto base_offset = static_cast<std::uint64_t>(reinterpret_cast<std::byte*>(base) - a->base);
  const std::uint64_t offset = element_offset(base_offset, index, sizeof(std::uint32_t));
  if (offset > a->bytes || sizeof(std::uint32_t) > a->bytes - offset || offset % 4 != 0) return old;
  const std::uint32_t updated = std::max(old, value);
  std::memcpy(a->base + offset, &updated, sizeof updated);
  std::uint64_t* tags = a->tags.data() + offset;
  // The first block of this launch to update the byte atomically stays its writer: blocks run in
  // order, so that block has finished, and a plain load by any later block races with it.
  for (std::size_t b = 0; b < sizeof updated; ++b) {
    if (!(tag_is_atomic(tags[b]) && tag_launch(tags[b]) == launch_)) {
      tags[b] = atomic_tag(launch_, block_linear_);
    }
  }
  return old;
}

const SharedRegion* BlockRun::shared_region(const void* p) const {
  // Inside a region first; one-past-the-end only if no region starts there (regions may abut).
  const auto* b = static_cast<const std::byte*>(p);
  const SharedRegion* one_past = nullptr;
  for (const SharedRegion& r : shared_regions_) {
    const std::byte* start = shared_.data() + r.offset;
    if (b >= start && b < start + r.bytes) return &r;
    if (b == start + r.bytes) one_past = &r;
  }
  return one_past;
}

void* BlockRun::shared_static(ThreadState& t, const void* key, std::size_t bytes,
                              std::size_t align, CallSite site) {
  for (const SharedRegion& r : shared_regions_) {
    if (r.key == key) return shared_.data() + r.offset;
  }
  // First request in this block: place the array after what is already in use.
  const std::size_t offset = (shared_used_ + align - 1) / align * align;
  if (offset + bytes > shared_.capacity()) {
    // Not placed, so every thread's request comes here: reported once per block, as below.
    if (!shared_overflow_reported_) {
      shared_overflow_reported_ = true;
      report(FindingKind::kSharedOverflow, t, site_id(t, site), "shared", 0, 0,
             "static shared array of " + std::to_string(bytes) +
                 " bytes does not fit at all; it aliases the dynamic region");
    }
    return shared_.data();
  }
  if (offset + bytes > kMaxSharedBytesPerBlock && !shared_overflow_reported_) {
    shared_overflow_reported_ = true;
    report(FindingKind::kSharedOverflow, t, site_id(t, site), "shared", 0, 0,
           "static + dynamic shared memory reaches " + std::to_string(offset + bytes) +
               " bytes, over the 227 KiB per-block limit");
  }
  shared_.resize(offset + bytes, std::byte{0xCD});
  shared_shadow_.resize(offset + bytes);
  shared_used_ = offset + bytes;
  shared_regions_.push_back({key, offset, bytes,
                             "shared:array#" + std::to_string(shared_regions_.size()) + "(" +
                                 std::to_string(bytes) + " bytes)"});
  return shared_.data() + offset;
}

void BlockRun::shared_access(ThreadState& t, const void* base, std::size_t index, std::size_t bytes,
                             bool is_store, void* data, CallSite site) {
  const std::uint32_t id = site_id(t, site);
  const char* verb = is_store ? "store" : "load";
  const SharedRegion* r = shared_region(base);
  if (r == nullptr) {
    report(FindingKind::kInvalidPointer, t, id, "shared", reinterpret_cast<std::uintptr_t>(base), 0,
           std::string("shared ") + verb + " through a pointer into no shared array of this block");
    if (!is_store) std::memset(data, 0xCD, bytes);
    return;
  }
  const auto base_offset =
      static_cast<std::uint64_t>(static_cast<const std::byte*>(base) - (shared_.data() + r->offset));
  const std::uint64_t offset = element_offset(base_offset, index, bytes);
  if (offset > r->bytes || bytes > r->bytes - offset) {
    report(FindingKind::kOutOfBounds, t, id, r->name, 0, static_cast<std::int64_t>(offset),
           std::to_string(bytes) + "-byte shared " + verb + " of element " + std::to_string(index) +
               " at byte offset " + std::to_string(offset) + " of " + r->name);
    if (!is_store) std::memset(data, 0xCD, bytes);
    return;
  }
  const std::size_t at = r->offset + offset;
  if (at % bytes != 0) {
    report(FindingKind::kMisaligned, t, id, r->name, 0, static_cast<std::int64_t>(offset),
           std::to_string(bytes) + "-byte shared " + verb + " at byte offset " +
               std::to_string(offset) + " is misaligned");
    if (!is_store) std::memset(data, 0xCD, bytes);
    return;
  }
  const auto warp = static_cast<std::uint16_t>(t.ctx.warp_);
  SharedShadow* sh = shared_shadow_.data() + at;
  bool reported = false;
  for (std::size_t b = 0; b < bytes; ++b) {
    SharedShadow& s = sh[b];
    // One finding per access, at its first bad byte; the text is built only when reported.
    const auto finding = [&](FindingKind kind, const std::string& what, const std::string& why) {
      report(kind, t, id, r->name, 0, static_cast<std::int64_t>(offset + b),
             what + " byte " + std::to_string(offset + b) + " of " + r->name + why);
      reported = true;
    };
    if (is_store) {
      if (!reported && s.write_epoch == epoch_ && s.write_warp != warp) {
        finding(FindingKind::kSharedRace, "write-after-write race on",
                ": warps " + std::to_string(s.write_warp) + " and " + std::to_string(warp) +
                    " both write it with no __syncthreads between");
      } else if (!reported && s.read_epoch == epoch_ && s.read_warp != warp) {
        finding(FindingKind::kSharedRace, "write-after-read race on",
                ": warp " + std::to_string(warp) + " writes it after " +
                    (s.read_warp == kManyWarps ? std::string("several warps")
                                               : "warp " + std::to_string(s.read_warp)) +
                    " read it, with no __syncthreads between");
      }
      s.write_epoch = epoch_;
      s.write_warp = warp;
      s.async_tag = 0;
    } else {
      if (!reported && s.write_epoch < block_first_epoch_) {
        finding(FindingKind::kUninitializedRead, "shared load reads", ", which no thread of this block wrote");
      } else if (s.async_tag != 0) {
        // A copy's bytes are the thread's to read once it has seen the copy's phase complete; a
        // block barrier does not wait for a copy.
        const std::uint32_t barrier = (s.async_tag >> 24) - 1u;
        const std::uint32_t phase = s.async_tag & 0xFFFFFFu;
        const std::uint32_t seen = barrier < t.observed_phases.size() ? t.observed_phases[barrier] : 0u;
        if (!reported && seen < phase) {
          finding(FindingKind::kAsyncCopy, "shared load reads",
                  ", which an asynchronous copy writes, before this thread waited for phase " +
                      std::to_string(phase - 1u) + " of the copy's barrier (at shared byte " +
                      std::to_string(async_barriers_[barrier].at) + ")");
        }
      } else if (!reported && s.write_epoch == epoch_ && s.write_warp != warp) {
        finding(FindingKind::kSharedRace, "read-after-write race on",
                ": warp " + std::to_string(warp) + " reads what warp " + std::to_string(s.write_warp) +
                    " wrote with no __syncthreads between");
      }
      if (s.read_epoch != epoch_) {
        s.read_epoch = epoch_;
        s.read_warp = warp;
      } else if (s.read_warp != warp) {
        s.read_warp = kManyWarps;
      }
    }
  }
  if (is_store) {
    std::memcpy(shared_.data() + at, data, bytes);
  } else {
    std::memcpy(data, shared_.data() + at, bytes);
  }
}

}  // namespace mxv::emu::detail
