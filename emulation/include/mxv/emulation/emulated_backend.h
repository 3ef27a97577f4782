// The `emulated` backend (docs/design.md section 3.5, "Backends"): runs the device/ kernel bodies
// through the SIMT emulator (emulator.h) with exactly the LaunchPlan the host launcher chose, and
// surfaces what the emulator found (out-of-bounds, uninitialised reads, races, collective misuse)
// as findings that tests turn into failures. Also exposes the emulator's coalescing reports.
//
// Also here: backend selection ("cuda" | "emulated" | "auto" = every available backend), since this
// is the lowest library that knows both backends.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mxv/device/backend.h"
#include "mxv/emulation/emulator.h"

namespace mxv::emu {

class EmulatedBackend final : public device::Backend {
 public:
  explicit EmulatedBackend(LaunchOptions options = {});
  ~EmulatedBackend() override;

  device::BackendKind kind() const override { return device::BackendKind::kEmulated; }
  void synchronize() override {}
  /// The emulator's findings since the last call, one line each, then cleared.
  std::vector<std::string> take_findings() override;

  /// Schedule, seed and checks used by every following launch.
  void set_launch_options(const LaunchOptions& options) { options_ = options; }
  const LaunchOptions& launch_options() const { return options_; }
  Emulator& emulator() { return emu_; }
  /// Coalescing figures of every launch of variant `kernel` since construction or reset.
  CoalescingReport coalescing(std::string_view kernel) const { return emu_.coalescing(kernel); }
  void reset_coalescing() { emu_.reset_coalescing(); }

  /// Runs body(EmuCtx&) once per thread with the plan's geometry. run_kernel goes through this
  /// (Backend::launch has validated the plan and records it); tests run their own bodies with it.
  template <class Body>
  void run(const device::LaunchPlan& plan, Body&& body) {
    emu_.launch(plan.kernel, plan.grid, plan.block, plan.dynamic_smem_bytes, std::forward<Body>(body), options_);
  }

 protected:
  /// Runs the kernel of the family whose parameters `args` holds, Kernel::run per thread
  /// (emulated_kernels.cpp).
  void run_kernel(const device::LaunchPlan& plan, const device::KernelArgs& args) override;

  std::byte* raw_alloc(std::size_t bytes, std::string_view name) override;
  void raw_free(std::byte* p) noexcept override;
  void raw_copy(void* dst, const void* src, std::size_t bytes, device::CopyDirection direction) override;
  void raw_fill(std::byte* dst, std::uint8_t value, std::size_t bytes) override;
  void raw_set(std::byte* dst, std::uint8_t value, std::size_t bytes) override;

 private:
  Emulator emu_;
  LaunchOptions options_;
};

/// Always available (no hardware needed).
device::Availability emulated_availability();
device::Availability availability(device::BackendKind kind);

/// A backend of this kind; throws std::runtime_error with the reason when it is unavailable.
std::unique_ptr<device::Backend> make_backend(device::BackendKind kind);

/// "cuda", "emulated" or "auto" (every available backend, cuda first). Throws
/// std::invalid_argument for another name and std::runtime_error (with the reason) when a named
/// backend is unavailable.
std::vector<std::unique_ptr<device::Backend>> make_backends(std::string_view spec);

}  // namespace mxv::emu
