// Launch execution (docs/design.md section 4.1, "Execution"):
// the grid runs block by block in a fixed order (x fastest, then y, then z); within a block
// every thread is a fiber. The scheduler resumes the runnable threads in the launch's order
// (forward, reversed or a seeded shuffle); each runs until it reaches a rendezvous point
// (__syncthreads, a warp collective) or exits. When no thread is runnable the block is
// quiescent, and the scheduler resolves rendezvous:
//   1. every warp collective whose mask's lanes have all arrived at the same op, mask, width and
//      site completes (results computed as the hardware would), and its lanes run again;
//   2. otherwise, if every live thread waits at __syncthreads, the barrier releases (a new
//      barrier epoch begins; call sites that differ are reported); a thread waiting on a
//      transaction barrier runs again once its phase has completed (async_copy.cpp), and one
//      whose phase cannot complete while the others wait is reported and released;
//   3. otherwise nothing can ever complete: the collectives are reported (who waits where) and
//      released with fallback results, so a bug is a finding, never a hang.
#include <algorithm>
#include <bit>
#include <cstring>
#include <exception>
#include <random>
#include <sstream>
#include <stdexcept>

#include "emulator_internal.h"
#include "mxv/io/enum_names.h"

namespace mxv::emu::detail {
namespace {

std::string dim_text(device::Dim3 d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

void validate_geometry(device::Dim3 grid, device::Dim3 block, std::size_t dynamic_smem) {
  // Limits of a CUDA launch on sm_90 (CUDA C++ Programming Guide, "Compute Capabilities" table).
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) {
    throw std::invalid_argument("launch: grid " + dim_text(grid) + " has a zero dimension");
  }
  if (block.x == 0 || block.y == 0 || block.z == 0) {
    throw std::invalid_argument("launch: block " + dim_text(block) + " has a zero dimension");
  }
  if (grid.x > 0x7FFFFFFFu || grid.y > 65535u || grid.z > 65535u) {
    throw std::invalid_argument("launch: grid " + dim_text(grid) + " exceeds (2^31-1, 65535, 65535)");
  }
  if (block.x > 1024u || block.y > 1024u || block.z > 64u ||
      std::uint64_t{block.x} * block.y * block.z > 1024u) {
    throw std::invalid_argument("launch: block " + dim_text(block) +
                                " exceeds 1024 threads or (1024, 1024, 64)");
  }
  if (dynamic_smem > kMaxSharedBytesPerBlock) {
    throw std::invalid_argument("launch: dynamic_smem " + std::to_string(dynamic_smem) +
                                " exceeds the 227 KiB per-block limit");
  }
}

std::string_view op_name(CollectiveOp op) {
  return io::enum_name(op, {"shfl", "shfl_xor", "shfl_up", "shfl_down", "ballot", "any", "all", "syncwarp"});
}

std::string hex(unsigned v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

// Source lane of a shuffle, following PTX ISA "shfl.sync": with c = ((32 - width) << 8) | clamp
// as CUDA's __shfl*_sync builds it, segmask = 32 - width, maxLane = segment end (or segment start
// for .up), and an out-of-range source yields the caller's own value. Returns -1 for "own value".
int shuffle_source(CollectiveOp op, int lane, int arg, int width) {
  const int segmask = 32 - width;                    // bits of the lane that name the segment
  const int seg_start = lane & segmask;
  const int seg_end = seg_start | (31 & ~segmask);
  int j = lane;
  bool valid = true;
  switch (op) {
    case CollectiveOp::kShflUp: j = lane - arg; valid = j >= seg_start; break;
    case CollectiveOp::kShflDown: j = lane + arg; valid = j <= seg_end; break;
    case CollectiveOp::kShflXor: j = lane ^ (arg & 31); valid = j <= seg_end; break;
    case CollectiveOp::kShflIdx: j = seg_start | (arg & 31 & ~segmask); valid = true; break;
    default: break;
  }
  return valid ? j : -1;
}

}  // namespace

BlockRun::BlockRun(Emulator::Impl& impl, std::string_view kernel, device::Dim3 grid,
                   device::Dim3 block, std::size_t dynamic_smem, const LaunchOptions& options,
                   void* body, Thunk thunk)
    : impl_(impl), kernel_(kernel), grid_(grid), block_(block), dynamic_smem_(dynamic_smem),
      options_(options), body_(body), thunk_(thunk), launch_(++impl.launches) {
  nthreads_ = block.x * block.y * block.z;
  nwarps_ = (nthreads_ + 31) / 32;
  coalescing_ = &impl_.coalescing[kernel_];
  const std::size_t stack = options.stack_bytes != 0 ? options.stack_bytes : Fiber::default_stack_bytes();
  if (impl_.fiber_stack_bytes != stack) {  // a different stack size: rebuild the pool
    impl_.fibers.clear();
    impl_.fiber_stack_bytes = stack;
  }
  while (impl_.fibers.size() < nthreads_) impl_.fibers.push_back(std::make_unique<Fiber>(stack));
  threads_ = std::vector<ThreadState>(nthreads_);
  for (unsigned i = 0; i < nthreads_; ++i) {
    ThreadState& t = threads_[i];
    t.fiber = impl_.fibers[i].get();
    t.run = this;
    t.linear = i;
    t.ctx.self_ = &t;
    t.ctx.run_ = this;
    t.ctx.thread_ = {i % block.x, (i / block.x) % block.y, i / (block.x * block.y)};
    t.ctx.block_dim_ = block;
    t.ctx.grid_dim_ = grid;
    t.ctx.lane_ = i % 32;
    t.ctx.warp_ = i / 32;
  }
  order_.resize(nthreads_);
  for (unsigned i = 0; i < nthreads_; ++i) order_[i] = i;
  if (options.schedule == Schedule::kReversed) std::reverse(order_.begin(), order_.end());
  // Room for twice the limit, so an overflow is reported rather than a crash; reserve keeps
  // pointers stable while the used part grows.
  shared_.reserve(2 * kMaxSharedBytesPerBlock);
  shared_shadow_.reserve(2 * kMaxSharedBytesPerBlock);
  warp_records_.resize(nwarps_);
}

void BlockRun::run() {
  std::uint64_t linear = 0;
  for (unsigned z = 0; z < grid_.z; ++z) {
    for (unsigned y = 0; y < grid_.y; ++y) {
      for (unsigned x = 0; x < grid_.x; ++x) {
        run_block(linear++, {x, y, z});
      }
    }
  }
}

void BlockRun::thread_entry(void* arg) {
  auto* t = static_cast<ThreadState*>(arg);
  {
    BlockRun* run = t->run;
    try {
      run->thunk_(run->body_, t->ctx);
    } catch (const std::exception& e) {
      run->report(FindingKind::kKernelException, *t, 0, "", 0, 0,
                  std::string("kernel body threw: ") + e.what());
    } catch (...) {
      run->report(FindingKind::kKernelException, *t, 0, "", 0, 0, "kernel body threw a non-std exception");
    }
  }
  t->state = RunState::kDone;
  t->fiber->exit_to_scheduler();
}

void BlockRun::run_block(std::uint64_t block_linear, device::Dim3 block_idx) {
  block_idx_ = block_idx;
  block_linear_ = block_linear;
  block_first_epoch_ = epoch_ = ++impl_.epoch_counter;
  // Shared memory: dynamic region first, garbage-filled (the GPU does not clear it).
  shared_regions_.clear();
  shared_.assign(dynamic_smem_, std::byte{0xCD});
  shared_shadow_.resize(dynamic_smem_);
  shared_used_ = dynamic_smem_;
  if (dynamic_smem_ > 0) shared_regions_.push_back({nullptr, 0, dynamic_smem_, "shared:dynamic"});
  if (options_.schedule == Schedule::kShuffled) {
    std::mt19937_64 rng(options_.seed ^ (block_linear * 0x9E3779B97F4A7C15ull));
    std::shuffle(order_.begin(), order_.end(), rng);
  }
  async_barriers_.clear();
  for (ThreadState& t : threads_) {
    t.ctx.block_ = block_idx;
    t.state = RunState::kRunnable;
    t.occurrences.clear();
    t.observed_phases.clear();
    t.wait_abandoned = false;
    t.fiber->prepare(&BlockRun::thread_entry, &t);
  }
  for (;;) {
    for (unsigned i : order_) {
      ThreadState& t = threads_[i];
      if (t.state == RunState::kRunnable) t.fiber->resume();
    }
    if (!resolve()) break;
  }
  check_async_copies_waited();
  flush_coalescing();
}

bool BlockRun::resolve() {
  bool any_live = false, any_collective = false;
  for (const ThreadState& t : threads_) {
    any_live |= t.state != RunState::kDone;
    any_collective |= t.state == RunState::kAtCollective;
  }
  if (!any_live) return false;
  if (resolve_async_waits(false)) return true;
  if (any_collective && resolve_complete_collectives()) return true;
  if (!any_collective) {
    if (resolve_async_waits(true)) return true;
    // Every live thread waits at __syncthreads (exited threads count as arrived, as on sm_70+).
    const ThreadState* first = nullptr;
    for (const ThreadState& t : threads_) {
      if (t.state != RunState::kAtBarrier) continue;
      if (first == nullptr) {
        first = &t;
      } else if (t.barrier_site != first->barrier_site) {
        report(FindingKind::kBarrierDivergence, t, t.barrier_site, "", 0, 0,
               "__syncthreads at " + impl_.sites.name(t.barrier_site) + " released together with " +
                   "thread " + std::to_string(first->linear) + " waiting at " +
                   impl_.sites.name(first->barrier_site) + " (divergent barrier)");
        break;
      }
    }
    for (ThreadState& t : threads_) {
      if (t.state == RunState::kAtBarrier) t.state = RunState::kRunnable;
    }
    flush_coalescing();
    epoch_ = ++impl_.epoch_counter;
    return true;
  }
  break_deadlock();
  return true;
}

bool BlockRun::resolve_complete_collectives() {
  bool released = false;
  for (unsigned w = 0; w < nwarps_; ++w) {
    const unsigned first = w * 32;
    const unsigned lanes = std::min(32u, nthreads_ - first);
    const std::uint32_t existing = lanes == 32 ? 0xFFFFFFFFu : ((1u << lanes) - 1u);
    std::uint32_t handled = 0;
    for (unsigned l = 0; l < lanes; ++l) {
      const ThreadState& t = threads_[first + l];
      if (t.state != RunState::kAtCollective || (handled >> l & 1u)) continue;
      const PendingCollective& c = t.coll;
      const std::uint32_t group = c.mask & existing;
      bool complete = true;
      for (unsigned m = 0; m < lanes && complete; ++m) {
        if (!(group >> m & 1u)) continue;
        const ThreadState& o = threads_[first + m];
        complete = o.state == RunState::kAtCollective && o.coll.op == c.op && o.coll.mask == c.mask &&
                   (c.op == CollectiveOp::kSyncwarp ||
                    (o.coll.site == c.site && o.coll.width == c.width));
      }
      // An incomplete group marks only this lane: another lane of it may wait at a collective of
      // its own, with another mask, that can complete (lanes 0, 2 at one shuffle while 2, 3 finish
      // another first is legal CUDA; marking 2 here would hide that one and report a deadlock).
      if (!complete) {
        handled |= 1u << l;
        continue;
      }
      handled |= group;
      complete_collective(w, c.mask, existing);
      released = true;
    }
  }
  return released;
}

void BlockRun::complete_collective(unsigned warp, unsigned mask, std::uint32_t existing) {
  const unsigned first = warp * 32;
  const std::uint32_t group = mask & existing;
  const PendingCollective& c0 = threads_[first + static_cast<unsigned>(std::countr_zero(group))].coll;
  std::uint32_t ballot = 0;
  for (unsigned m = 0; m < 32; ++m) {
    if ((group >> m & 1u) && threads_[first + m].coll.value != 0) ballot |= 1u << m;
  }
  const bool width_ok = c0.width >= 1 && c0.width <= 32 && std::has_single_bit(static_cast<unsigned>(c0.width));
  bool reported = false;
  for (unsigned m = 0; m < 32; ++m) {
    if (!(group >> m & 1u)) continue;
    ThreadState& t = threads_[first + m];
    PendingCollective& c = t.coll;
    switch (c.op) {
      case CollectiveOp::kBallot: c.result = ballot; break;
      case CollectiveOp::kAny: c.result = ballot != 0; break;
      case CollectiveOp::kAll: c.result = ballot == group; break;
      case CollectiveOp::kSyncwarp: c.result = 0; break;
      default: {
        c.result = c.value;
        if (!width_ok) {
          if (!reported) {
            report(FindingKind::kInvalidCollective, t, c.site, "", 0, 0,
                   std::string(op_name(c.op)) + " width " + std::to_string(c.width) +
                       " is not a power of two in [1, 32]");
            reported = true;
          }
          break;
        }
        const int src = shuffle_source(c.op, static_cast<int>(m), c.arg, c.width);
        if (src < 0) break;  // out of the segment: the caller's own value, as the hardware does
        if (!(group >> src & 1u)) {
          if (!reported) {
            report(FindingKind::kInvalidCollective, t, c.site, "", 0, 0,
                   std::string(op_name(c.op)) + " in lane " + std::to_string(m) + " reads lane " +
                       std::to_string(src) + ", which is not in mask " + hex(c.mask) +
                       " (undefined value)");
            reported = true;
          }
          break;
        }
        c.result = threads_[first + static_cast<unsigned>(src)].coll.value;
      }
    }
    t.state = RunState::kRunnable;
  }
}

void BlockRun::break_deadlock() {
  // Nothing can complete: describe, per warp, what each waiting lane and each lane its mask names
  // is doing, then release the waiters with fallback results (own value; votes over the lanes
  // that did arrive at the same collective).
  bool barrier_waiters = false;
  for (const ThreadState& t : threads_) barrier_waiters |= t.state == RunState::kAtBarrier;
  for (unsigned w = 0; w < nwarps_; ++w) {
    const unsigned first = w * 32;
    const unsigned lanes = std::min(32u, nthreads_ - first);
    const ThreadState* waiter = nullptr;
    for (unsigned l = 0; l < lanes && waiter == nullptr; ++l) {
      if (threads_[first + l].state == RunState::kAtCollective) waiter = &threads_[first + l];
    }
    if (waiter == nullptr) continue;
    const PendingCollective& c = waiter->coll;
    std::string detail = std::string(op_name(c.op)) + " with mask " + hex(c.mask) + " width " +
                         std::to_string(c.width) + " cannot complete in warp " + std::to_string(w) + ":";
    for (unsigned m = 0; m < lanes; ++m) {
      if (!(c.mask >> m & 1u)) continue;
      const ThreadState& o = threads_[first + m];
      const bool same = o.state == RunState::kAtCollective && o.coll.op == c.op &&
                        o.coll.mask == c.mask && o.coll.site == c.site && o.coll.width == c.width;
      if (same) continue;
      detail += " lane " + std::to_string(m);
      switch (o.state) {
        case RunState::kDone: detail += " exited;"; break;
        case RunState::kAtBarrier: detail += " waits at __syncthreads " + impl_.sites.name(o.barrier_site) + ";"; break;
        case RunState::kAtCollective:
          detail += " waits at " + std::string(op_name(o.coll.op)) + " mask " + hex(o.coll.mask) +
                    " width " + std::to_string(o.coll.width) + " " + impl_.sites.name(o.coll.site) + ";";
          break;
        case RunState::kAtAsyncWait: detail += " waits on a transaction barrier;"; break;
        case RunState::kRunnable: detail += " runnable;"; break;
      }
    }
    if (detail.size() > 600) detail = detail.substr(0, 600) + " ...";
    report(FindingKind::kCollectiveMismatch, *waiter, c.site, "", 0, 0, detail);
    if (barrier_waiters) {
      report(FindingKind::kBarrierDivergence, *waiter, c.site, "", 0, 0,
             "__syncthreads not reached by all live threads: warp " + std::to_string(w) +
                 " waits at a warp collective while other threads wait at the barrier");
    }
    // Fallback release of every waiter of this warp.
    for (unsigned l = 0; l < lanes; ++l) {
      ThreadState& t = threads_[first + l];
      if (t.state != RunState::kAtCollective) continue;
      std::uint32_t votes = 0, same_group = 0;
      for (unsigned m = 0; m < lanes; ++m) {
        const ThreadState& o = threads_[first + m];
        if (o.state == RunState::kAtCollective && o.coll.site == t.coll.site && o.coll.op == t.coll.op) {
          same_group |= 1u << m;
          if (o.coll.value != 0) votes |= 1u << m;
        }
      }
      votes &= t.coll.mask;
      same_group &= t.coll.mask;
      switch (t.coll.op) {
        case CollectiveOp::kBallot: t.coll.result = votes; break;
        case CollectiveOp::kAny: t.coll.result = votes != 0; break;
        case CollectiveOp::kAll: t.coll.result = votes == same_group; break;
        default: t.coll.result = t.coll.value; break;
      }
    }
    for (unsigned l = 0; l < lanes; ++l) {
      ThreadState& t = threads_[first + l];
      if (t.state == RunState::kAtCollective) t.state = RunState::kRunnable;
    }
  }
}

void BlockRun::barrier(ThreadState& t, CallSite site) {
  t.barrier_site = site_id(t, site);
  t.state = RunState::kAtBarrier;
  t.fiber->yield();
}

std::uint64_t BlockRun::collective(ThreadState& t, CollectiveOp op, unsigned mask,
                                   std::uint64_t bits, int arg, int width, CallSite site) {
  const std::uint32_t id = site_id(t, site);
  if (!(mask >> t.ctx.lane_ & 1u)) {
    report(FindingKind::kInvalidCollective, t, id, "", 0, 0,
           std::string(op_name(op)) + " mask " + hex(mask) + " does not include the calling lane " +
               std::to_string(t.ctx.lane_));
    return op == CollectiveOp::kBallot || op == CollectiveOp::kAny ? 0 : bits;
  }
  t.coll = {op, mask, arg, width, id, bits, 0};
  t.state = RunState::kAtCollective;
  t.fiber->yield();
  return t.coll.result;
}

std::uint32_t BlockRun::site_id(ThreadState&, CallSite site) {
  // A direct-mapped cache in front of the site table: kernels have a handful of sites, and the
  // table's hash lookup was ~8% of emulation time (perf, emulator_bench).
  SiteCacheEntry& e = site_cache_[(site.line ^ (reinterpret_cast<std::uintptr_t>(site.file) >> 4)) % kSiteCacheSize];
  if (e.file != site.file || e.line != site.line) {
    e = {site.file, site.line, impl_.sites.intern(site)};
  }
  return e.id;
}

void BlockRun::report(FindingKind kind, const ThreadState& t, std::uint32_t site, std::string buffer,
                      std::uintptr_t address, std::int64_t offset, std::string detail) {
  Finding f;
  f.kind = kind;
  f.kernel = kernel_;
  f.launch = launch_;
  f.block = block_idx_;
  f.thread = t.ctx.thread_;
  f.site = impl_.sites.name(site);
  f.buffer = std::move(buffer);
  f.address = address;
  f.offset = offset;
  f.detail = std::move(detail);
  impl_.add_finding(std::move(f), site);
}

void BlockRun::flush_coalescing() {
  for (auto& records : warp_records_) {
    if (!records.empty()) form_requests(records, *coalescing_);
    records.clear();
  }
}

}  // namespace mxv::emu::detail

namespace mxv::emu {

void Emulator::launch_erased(std::string_view kernel, device::Dim3 grid, device::Dim3 block,
                             std::size_t dynamic_smem, const LaunchOptions& options, void* body,
                             Thunk thunk) {
  if (kernel.empty()) throw std::invalid_argument("launch: kernel name must not be empty");
  detail::validate_geometry(grid, block, dynamic_smem);
  const std::uint64_t before = finding_count();
  {
    detail::BlockRun run(*impl_, kernel, grid, block, dynamic_smem, options, body, thunk);
    run.run();
  }
  if (options.throw_on_findings && finding_count() != before) {
    throw LaunchError("launch of '" + std::string(kernel) + "' produced " +
                      std::to_string(finding_count() - before) + " finding(s):\n" + findings_report());
  }
}

}  // namespace mxv::emu
