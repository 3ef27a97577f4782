// Internal state of the emulator shared by its source files: the Impl behind Emulator, the
// per-thread state a fiber runs with, and BlockRun, which executes one launch block by block
// (scheduler.cpp) and checks every access (access_checks.cpp). Not installed; not for kernels.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "device_memory.h"
#include "mxv/emulation/emulator.h"
#include "mxv/emulation/fiber.h"

namespace mxv::emu::detail {

/// Interns call sites to small integers; names are "file:line" with the directory stripped.
class SiteTable {
 public:
  SiteTable() : names_{"(kernel body)"} {}  // id 0: findings that have no access site
  std::uint32_t intern(CallSite site);
  const std::string& name(std::uint32_t id) const { return names_[id]; }

 private:
  struct PtrKeyHash {
    std::size_t operator()(const std::pair<const char*, unsigned>& k) const {
      return std::hash<const void*>()(k.first) ^ (std::size_t{k.second} * 0x9E3779B97F4A7C15ull);
    }
  };
  // Keyed by the literal's address first (fast), then by content (the same file:line reached
  // through two copies of the literal must be one site, or coalescing groups would split).
  std::unordered_map<std::pair<const char*, unsigned>, std::uint32_t, PtrKeyHash> by_pointer_;
  std::map<std::string, std::uint32_t, std::less<>> by_name_;
  std::vector<std::string> names_;
};

/// One global access of one lane, kept until its warp's requests are formed.
struct AccessRecord {
  std::uintptr_t address;
  std::uint32_t site;
  std::uint32_t occurrence;
  std::uint16_t bytes;
  AccessKind kind;
  std::uint8_t lane;
};

using SiteKey = std::pair<std::uint32_t, AccessKind>;
using KernelCoalescing = std::map<SiteKey, CoalescingFigures>;

/// Groups one warp's records of one barrier epoch into requests and adds their figures.
void form_requests(std::vector<AccessRecord>& records, KernelCoalescing& out);

enum class RunState : std::uint8_t { kRunnable, kAtBarrier, kAtCollective, kDone };

struct PendingCollective {
  CollectiveOp op{};
  unsigned mask = 0;
  int arg = 0;
  int width = 32;
  std::uint32_t site = 0;
  std::uint64_t value = 0;
  std::uint64_t result = 0;
};

struct ThreadState {
  EmuCtx ctx;
  Fiber* fiber = nullptr;
  BlockRun* run = nullptr;
  unsigned linear = 0;
  RunState state = RunState::kDone;
  std::uint32_t barrier_site = 0;
  PendingCollective coll;
  // Per-site execution count of this lane: the "occurrence" that lines lanes up into requests.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> occurrences;

  std::uint32_t next_occurrence(std::uint32_t site) {
    for (auto& [s, n] : occurrences) {
      if (s == site) return ++n;
    }
    occurrences.emplace_back(site, 0u);
    return 0;
  }
};

/// Per-byte shadow of shared memory. Epochs are numbered across all blocks of all launches, so
/// "written in this block" is write_epoch >= the block's first epoch, and nothing is ever reset.
struct SharedShadow {
  std::uint32_t write_epoch = 0;
  std::uint32_t read_epoch = 0;
  std::uint16_t write_warp = 0;
  std::uint16_t read_warp = 0;
};
inline constexpr std::uint16_t kManyWarps = 0xFFFF;

struct SharedRegion {
  const void* key;        // nullptr for the dynamic region
  std::size_t offset;
  std::size_t bytes;
  std::string name;
};

}  // namespace mxv::emu::detail

namespace mxv::emu {

struct Emulator::Impl {
  detail::DeviceMemory memory;
  detail::SiteTable sites;
  std::vector<Finding> findings;
  std::array<std::uint64_t, kFindingKindCount> counts{};
  std::map<std::pair<FindingKind, std::uint32_t>, std::size_t> stored_per_site;
  std::map<std::string, detail::KernelCoalescing, std::less<>> coalescing;
  std::vector<std::unique_ptr<Fiber>> fibers;
  std::size_t fiber_stack_bytes = 0;
  std::uint64_t launches = 0;
  std::uint32_t epoch_counter = 0;

  /// Counts the finding, and stores it unless this (kind, site) already has enough examples.
  void add_finding(Finding finding, std::uint32_t site);
};

}  // namespace mxv::emu

namespace mxv::emu::detail {

/// One launch: geometry, the fibers of the current block, shared memory, the access record.
class BlockRun {
 public:
  using Thunk = void (*)(void*, EmuCtx&);
  BlockRun(Emulator::Impl& impl, std::string_view kernel, device::Dim3 grid, device::Dim3 block,
           std::size_t dynamic_smem, const LaunchOptions& options, void* body, Thunk thunk);
  void run();  // all blocks, in order

  // Called from EmuCtx (on a fiber).
  void global_access(ThreadState& t, const void* base, std::size_t index, std::size_t elem_bytes,
                     std::size_t access_bytes, AccessKind kind, void* data, CallSite site);
  std::uint32_t atomic_max(ThreadState& t, std::uint32_t* base, std::size_t index,
                           std::uint32_t value, CallSite site);
  void shared_access(ThreadState& t, const void* base, std::size_t index, std::size_t bytes,
                     bool is_store, void* data, CallSite site);
  void* shared_static(ThreadState& t, const void* key, std::size_t bytes, std::size_t align,
                      CallSite site);
  void* shared_dynamic() { return shared_.data(); }
  void barrier(ThreadState& t, CallSite site);
  std::uint64_t collective(ThreadState& t, CollectiveOp op, unsigned mask, std::uint64_t bits,
                           int arg, int width, CallSite site);

 private:
  static void thread_entry(void* arg);
  void run_block(std::uint64_t block_linear, device::Dim3 block_idx);
  bool resolve();
  bool resolve_complete_collectives();
  void complete_collective(unsigned warp, unsigned mask, std::uint32_t existing);
  void break_deadlock();
  void flush_coalescing();
  std::uint32_t site_id(ThreadState& t, CallSite site);
  void report(FindingKind kind, const ThreadState& t, std::uint32_t site, std::string buffer,
              std::uintptr_t address, std::int64_t offset, std::string detail);
  Allocation* lookup(const void* p);
  const SharedRegion* shared_region(const void* p) const;

  Emulator::Impl& impl_;
  std::string kernel_;
  device::Dim3 grid_, block_;
  std::size_t dynamic_smem_;
  LaunchOptions options_;
  void* body_;
  Thunk thunk_;
  std::uint64_t launch_;
  unsigned nthreads_, nwarps_;
  KernelCoalescing* coalescing_;

  std::vector<ThreadState> threads_;
  std::vector<unsigned> order_;
  device::Dim3 block_idx_{};
  std::uint64_t block_linear_ = 0;

  std::vector<std::byte> shared_;          // dynamic region first, then static arrays
  std::vector<SharedShadow> shared_shadow_;
  std::vector<SharedRegion> shared_regions_;
  std::size_t shared_used_ = 0;
  bool shared_overflow_reported_ = false;
  std::uint32_t epoch_ = 0;
  std::uint32_t block_first_epoch_ = 0;

  struct SiteCacheEntry {
    const char* file = nullptr;
    unsigned line = 0;
    std::uint32_t id = 0;
  };
  static constexpr std::size_t kSiteCacheSize = 64;
  std::array<SiteCacheEntry, kSiteCacheSize> site_cache_{};

  std::vector<std::vector<AccessRecord>> warp_records_;
  Allocation* last_alloc_ = nullptr;
};

}  // namespace mxv::emu::detail
