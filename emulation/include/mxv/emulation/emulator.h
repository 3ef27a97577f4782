// mxv::emu::Emulator: one emulated CUDA device, i.e. its global memory, its kernel launches and
// what they found (docs/design.md section 4, "The emulator").
//
//   Emulator emu;
//   auto in = emu.alloc<float>(n, "in");    emu.upload(in, host_in);
//   auto out = emu.alloc<float>(n, "out");  emu.fill(out, 0xA5);   // sentinel, stays "unwritten"
//   emu.launch("scale", grid, block, 0, [&](EmuCtx& ctx) { scale_body(ctx, params); });
//   emu.download(host_out, out);
//   EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
//
// Memory comes from a cudaMalloc-like allocator (256-byte aligned, red zones, a per-byte written
// shadow); launches run the grid with CUDA's geometry, blocks in a fixed order (x fastest), each
// thread as a fiber, in forward, reversed or seeded-shuffled order within a block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "mxv/device/kernel_ctx.h"
#include "mxv/emulation/coalescing.h"
#include "mxv/emulation/emu_ctx.h"
#include "mxv/emulation/findings.h"

namespace mxv::emu {

/// Order in which the threads of a block are resumed at each step (between rendezvous points).
enum class Schedule : std::uint8_t { kForward, kReversed, kShuffled };

struct LaunchOptions {
  Schedule schedule = Schedule::kForward;
  std::uint64_t seed = 0;           ///< kShuffled: permutation seed (mixed with the block index)
  bool throw_on_findings = false;   ///< throw LaunchError after the launch if it found anything
  bool record_coalescing = true;    ///< off: skip the access record (memory checks stay on)
  std::size_t stack_bytes = 0;      ///< fiber stack size; 0 = default (64 KiB, 512 KiB with ASan)
};

/// Thrown after a launch (never from inside a fiber) when LaunchOptions::throw_on_findings is set.
class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::size_t kAllocationAlignment = 256;   ///< like cudaMalloc
inline constexpr std::size_t kRedZoneBytes = 256;          ///< before and after every allocation
inline constexpr std::size_t kMaxSharedBytesPerBlock = 227 * 1024;  ///< sm_90 opt-in maximum
inline constexpr std::size_t kMaxStoredFindingsPerSite = 8;  ///< per (kind, site); all are counted

class Emulator {
 public:
  Emulator();
  ~Emulator();
  Emulator(const Emulator&) = delete;
  Emulator& operator=(const Emulator&) = delete;

  // --- memory ---
  /// `count` elements of T, 256-byte aligned, red zones on both sides, all bytes "unwritten".
  template <class T>
  device::GlobalPtr<T> alloc(std::size_t count, std::string_view name) {
    if (count > SIZE_MAX / sizeof(T)) throw std::invalid_argument("alloc: count * sizeof(T) overflows");
    return {static_cast<T*>(alloc_bytes(count * sizeof(T), name))};
  }
  /// Host -> device copy starting at dst; marks the bytes written (by the host).
  template <class T>
  void upload(device::GlobalPtr<T> dst, std::span<const std::remove_const_t<T>> src) {
    upload_bytes(const_cast<std::remove_const_t<T>*>(dst.raw), src.data(), src.size_bytes());
  }
  /// Device -> host copy starting at src (never-written bytes come back as whatever fill left).
  template <class T>
  void download(std::span<std::remove_const_t<T>> dst, device::GlobalPtr<T> src) const {
    download_bytes(dst.data(), src.raw, dst.size_bytes());
  }
  /// Sentinel fill from dst to the end of its allocation. Does NOT mark the bytes written, so a
  /// kernel that reads them is reported and a downstream check sees the sentinel where a kernel
  /// failed to write.
  template <class T>
  void fill(device::GlobalPtr<T> dst, std::uint8_t byte) {
    fill_bytes(const_cast<std::remove_const_t<T>*>(dst.raw), byte);
  }
  /// Number of bytes in [p, p + count) that neither the host (upload) nor a kernel wrote.
  template <class T>
  std::size_t count_unwritten(device::GlobalPtr<T> p, std::size_t count) const {
    return count_unwritten_bytes(p.raw, count * sizeof(T));
  }
  template <class T>
  void free(device::GlobalPtr<T> p) {
    free_bytes(const_cast<std::remove_const_t<T>*>(p.raw));
  }
  /// Declares the first `before` and the last `after` bytes of the allocation that starts at `p` to
  /// be guard bands: host uploads and downloads reach them, but every kernel load, store or atomic
  /// that touches one is an out-of-bounds finding naming the band (the access itself happens, so a
  /// store still shows as guard damage). The backend's guarded buffers use this (backend.h), so a
  /// kernel reading up to kGuardBytes past its buffer is seen although the bytes are allocated.
  template <class T>
  void set_guard_bands(device::GlobalPtr<T> p, std::size_t before, std::size_t after) {
    set_guard_bands_bytes(const_cast<std::remove_const_t<T>*>(p.raw), before, after);
  }
  /// Bytes of the red zones that something wrote (host code through a raw pointer); 0 is good.
  std::size_t corrupted_red_zone_bytes() const;

  // --- launches ---
  /// Run `body(ctx)` for every thread of the grid. Throws std::invalid_argument for a geometry a
  /// CUDA launch would reject; everything that goes wrong inside the kernel becomes a finding.
  template <class Body>
  void launch(std::string_view kernel, device::Dim3 grid, device::Dim3 block,
              std::size_t dynamic_smem, Body&& body, const LaunchOptions& options = {}) {
    using B = std::remove_reference_t<Body>;
    static_assert(std::is_invocable_v<B&, EmuCtx&>, "body must be callable as body(EmuCtx&)");
    void* erased = const_cast<void*>(static_cast<const void*>(std::addressof(body)));
    launch_erased(kernel, grid, block, dynamic_smem, options, erased,
                  [](void* b, EmuCtx& ctx) { (*static_cast<B*>(b))(ctx); });
  }
  std::uint64_t launch_count() const;

  // --- results ---
  /// Stored findings (at most kMaxStoredFindingsPerSite per kind and site), in order found.
  const std::vector<Finding>& findings() const;
  /// Every finding of this kind, including those not stored.
  std::uint64_t finding_count(FindingKind kind) const;
  std::uint64_t finding_count() const;
  /// All stored findings, one per line, plus the per-kind totals.
  std::string findings_report() const;
  void clear_findings();

  /// Coalescing figures of every launch of `kernel` since construction or reset_coalescing().
  CoalescingReport coalescing(std::string_view kernel) const;
  void reset_coalescing();

 private:
  using Thunk = void (*)(void*, EmuCtx&);
  void* alloc_bytes(std::size_t bytes, std::string_view name);
  void upload_bytes(void* dst, const void* src, std::size_t bytes);
  void download_bytes(void* dst, const void* src, std::size_t bytes) const;
  void fill_bytes(void* dst, std::uint8_t byte);
  std::size_t count_unwritten_bytes(const void* p, std::size_t bytes) const;
  void free_bytes(void* p);
  void set_guard_bands_bytes(void* p, std::size_t before, std::size_t after);
  void launch_erased(std::string_view kernel, device::Dim3 grid, device::Dim3 block,
                     std::size_t dynamic_smem, const LaunchOptions& options, void* body, Thunk thunk);

 public:
  struct Impl;  // emulation/src (device memory, findings, coalescing accumulators, fiber pool)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace mxv::emu
