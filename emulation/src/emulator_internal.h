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

enum class RunState : std::uint8_t { kRunnable, kAtBarrier, kAtCollective, kAtAsyncWait, kDone };

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
  // Transaction barriers (async_copy.cpp): per barrier of the block, the phases this thread saw
  // complete; what it waits for while kAtAsyncWait; set when a deadlock released that wait.
  std::vector<std::uint32_t> observed_phases;
  std::uint32_t wait_barrier = 0;
  std::uint32_t wait_parity = 0;
  std::uint32_t wait_site = 0;
  bool wait_abandoned = false;
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
  /// Written by an asynchronous bulk copy: (barrier index + 1) << 24 | the barrier phase whose
  /// completion makes the byte readable; 0 for bytes a thread stored.
  std::uint32_t async_tag = 0;
};
inline constexpr std::uint16_t kManyWarps = 0xFFFF;
/// The write_warp of bytes an asynchronous copy wrote (the copy engine, not a warp).
inline constexpr std::uint16_t kCopyEngine = 0xFFFE;

/// A transaction barrier (PTX mbarrier) of the block's shared memory, as the emulator keeps it.
struct AsyncBarrier {
  std::size_t at = 0;             ///< byte offset in the block's shared memory
  std::uint32_t arrivals = 0;     ///< per phase, as initialised
  std::uint32_t pending = 0;      ///< arrivals still missing in the current phase
  std::int64_t tx = 0;            ///< bytes announced and not yet copied in the current phase
  std::uint32_t completed = 0;    ///< phases completed
  std::uint32_t copied_phase = 0; ///< the latest phase (completed + 1 at the time) a copy joined
  unsigned copier = 0;            ///< the thread and site of that copy (for the exit check)
  std::uint32_t copy_site = 0;
  std::uint32_t init_epoch = 0;   ///< the barrier epoch and warp of its initialisation
  std::uint16_t init_warp = 0;
};

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
                     std::size_t access_bytes, AccessKind kind, void* data, CallSite site,
                     bool record = true);
  std::uint32_t atomic_max(ThreadState& t, std::uint32_t* base, std::size_t index,
                           std::uint32_t value, CallSite site);
  void shared_access(ThreadState& t, const void* base, std::size_t index, std::size_t bytes,
                     bool is_store, void* data, CallSite site);
  void* shared_static(ThreadState& t, const void* key, std::size_t bytes, std::size_t align,
                      CallSite site);
  void* shared_dynamic() { return shared_.data(); }
  void barrier(ThreadState& t, CallSite site);
  void async_barrier_init(ThreadState& t, const void* bar, std::uint32_t arrivals, CallSite site);
  void async_arrive_expect(ThreadState& t, const void* bar, std::uint32_t bytes, CallSite site);
  void bulk_copy(ThreadState& t, void* dst, const void* src, std::uint32_t bytes, const void* bar, CallSite site);
  void async_wait(ThreadState& t, const void* bar, std::uint32_t parity, CallSite site);
  std::uint64_t collective(ThreadState& t, CollectiveOp op, unsigned mask, std::uint64_t bits,
                           int arg, int width, CallSite site);

 private:
  static void thread_entry(void* arg);
  void run_block(std::uint64_t block_linear, device::Dim3 block_idx);
  bool resolve();
  bool resolve_async_waits(bool stuck);
  void check_async_copies_waited();
  AsyncBarrier* async_barrier(ThreadState& t, const void* bar, std::uint32_t site, const char* what);
  AsyncBarrier* find_async_barrier(std::size_t at);
  std::size_t shared_offset(const void* p) const {
    return static_cast<std::size_t>(static_cast<const std::byte*>(p) - shared_.data());
  }
  static void complete_if_done(AsyncBarrier& b);
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
  std::vector<AsyncBarrier> async_barriers_;

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
