// The Backend interface (docs/design.md section 3.5, "Backends"): what runs a kernel. A backend
// owns device memory (allocated with guard bytes before and after every buffer, uploaded,
// downloaded, sentinel filled, guard-checked) and runs launch plans (launch_plan.h). Host
// launchers (convert.h, dequantize.h, quantize.h, ...) validate their arguments, compute a
// LaunchPlan and hand it to a backend: the SAME plan drives the GPU launch (`cuda`, cuda_backend.h)
// and the emulator launch (`emulated`, emulation/emulated_backend.h), so the emulator checks
// exactly what the GPU runs.
//
// Adding a kernel family (docs/adding-a-kernel-family.md has the full list of files): the kernel
// body and its family declaration in kernels/ (kernel_family.h), a launcher that plans and then
// calls Backend::launch(plan, params), one mxv_kernel_family line in device/CMakeLists.txt from
// which both backends learn the family, and a test on every backend; this file does not change.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mxv/device/kernel_ctx.h"
#include "mxv/device/kernel_family.h"
#include "mxv/device/launch_plan.h"

namespace mxv::device {

class Backend;

// -------------------------------------------------------------------------------------------
// Device memory with guard bytes
// -------------------------------------------------------------------------------------------

/// Bytes of guard pattern before and after every buffer. 256 keeps the user region 256-byte
/// aligned (cudaMalloc's alignment), so coalescing figures are those of a real allocation.
inline constexpr std::size_t kGuardBytes = 256;

/// The guard pattern's byte at offset i of a guard region. Position-dependent, so a kernel that
/// writes a constant (0x00, 0xFF, a sentinel) over the guard is always detected.
constexpr std::uint8_t guard_byte(std::size_t i) {
  return static_cast<std::uint8_t>(0xA5u ^ static_cast<unsigned>((i * 0x3Bu) & 0xFFu));
}

/// One allocation on a backend: `bytes` usable bytes, guarded on both sides. Move-only; frees
/// itself. `as<T>()` gives the kernel-side pointer.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  ~DeviceBuffer();

  std::size_t bytes() const { return bytes_; }
  const std::string& name() const { return name_; }
  /// The first usable byte (a device address on `cuda`, an emulator address on `emulated`).
  std::byte* data() const { return user_; }
  template <class T>
  GlobalPtr<T> as() const {
    return {reinterpret_cast<T*>(user_)};
  }

 private:
  friend class Backend;
  Backend* owner_ = nullptr;
  std::byte* base_ = nullptr;  // start of the leading guard
  std::byte* user_ = nullptr;
  std::size_t bytes_ = 0;
  std::string name_;
};

/// Where a kernel runs.
enum class BackendKind : std::uint8_t { kCuda, kEmulated };
std::string_view to_string(BackendKind kind);
/// "cuda" / "emulated"; throws std::invalid_argument listing the valid names.
BackendKind backend_kind_by_name(std::string_view name);

/// The way a raw copy goes between host memory and a backend's memory.
enum class CopyDirection : std::uint8_t { kToBackend, kToHost };

/// Whether a backend can run here, and if not, why ("no CUDA device: cudaGetDeviceCount
/// returned ...", "built without CUDA (MXV_ENABLE_CUDA=OFF)").
struct Availability {
  bool available = false;
  std::string reason;
};

class Backend {
 public:
  virtual ~Backend() = default;
  Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  virtual BackendKind kind() const = 0;
  std::string_view name() const { return to_string(kind()); }

  // ---- memory ----------------------------------------------------------------------------
  /// `bytes` usable bytes (0 allowed: a guarded empty buffer), guard patterns written on both
  /// sides; the usable bytes are filled with `sentinel` so "never written" is visible.
  DeviceBuffer alloc(std::size_t bytes, std::string name, std::uint8_t sentinel = 0xCD);
  template <class T>
  DeviceBuffer alloc_array(std::size_t count, std::string name, std::uint8_t sentinel = 0xCD) {
    return alloc(count * sizeof(T), std::move(name), sentinel);
  }
  /// Copies host bytes to the start of `dst`; throws std::invalid_argument when they don't fit.
  void upload_bytes(const DeviceBuffer& dst, std::span<const std::byte> src);
  template <class T>
  void upload(const DeviceBuffer& dst, std::span<const T> src) {
    upload_bytes(dst, std::as_bytes(src));
  }
  template <class T>
  DeviceBuffer alloc_upload(std::span<const T> src, std::string name) {
    DeviceBuffer b = alloc(src.size_bytes(), std::move(name));
    upload(b, src);
    return b;
  }
  /// The usable bytes of `src`.
  std::vector<std::byte> download_bytes(const DeviceBuffer& src);
  template <class T>
  std::vector<T> download(const DeviceBuffer& src) {
    std::vector<T> out(src.bytes() / sizeof(T));
    raw_read(out.data(), src.data(), out.size() * sizeof(T));
    return out;
  }
  /// Leading guard + usable bytes + trailing guard, for checkers that classify out-of-bounds
  /// writes (the check library's guarded comparison).
  std::vector<std::byte> download_with_guards(const DeviceBuffer& src);
  /// Overwrites the usable bytes with `value` (sentinel fill before a run).
  void fill(const DeviceBuffer& dst, std::uint8_t value);
  /// Sets the usable bytes to `value` as data a kernel may read (fill's bytes stay "never written"
  /// to the emulator's checks), in order with the backend's launches. On cuda the call returns
  /// without waiting for the GPU, where an upload from host memory would wait.
  void set_bytes(const DeviceBuffer& dst, std::uint8_t value);
  /// Empty when both guards are intact; otherwise a message naming the buffer, the side, the
  /// number of damaged bytes and the first one's offset and value.
  std::string guard_damage(const DeviceBuffer& buf);
  /// Waits for every launch to finish and surfaces asynchronous errors (throws).
  virtual void synchronize() = 0;

  // ---- findings and launch log ------------------------------------------------------------
  /// Problems the backend observed since the last call (emulator: memory errors, races,
  /// collective misuse), one line each; cleared by the call. `cuda` reports none (its errors
  /// throw from the launch or from synchronize()).
  virtual std::vector<std::string> take_findings() { return {}; }
  /// Every plan launched on this backend, in order (tests assert which variant ran).
  const std::vector<LaunchPlan>& launch_log() const { return launch_log_; }
  void clear_launch_log() { launch_log_.clear(); }

  // ---- Launching ------------------------------------------------------------------------------
  /// The one way a launcher starts a kernel: checks the plan against CUDA's launch limits
  /// (validate_launch_plan), runs the variant `plan.kernel` names on this backend, records the
  /// plan in the launch log and checks the launch's error. A backend supplies only run_kernel, so
  /// none of these steps can be skipped.
  template <class Params>
  void launch(const LaunchPlan& plan, const Params& params) {
    validate_launch_plan(plan);
    run_kernel(plan, KernelArgs::of(params));
    launch_log_.push_back(plan);
    check_launch(plan);
  }

 protected:
  /// Runs the variant `plan.kernel` names with the parameters `args` holds, or throws
  /// std::logic_error ("no launch entry") through not_implemented when no family the backend
  /// knows takes them or names that variant. Called by launch() only.
  virtual void run_kernel(const LaunchPlan& plan, const KernelArgs& args) = 0;
  /// After every launch: throws when the backend reports that it failed (cuda: cudaGetLastError).
  virtual void check_launch(const LaunchPlan& plan) { (void)plan; }
  [[noreturn]] void not_implemented(std::string_view kernel) const;

  // Raw memory primitives each backend provides. Addresses are backend addresses.
  virtual std::byte* raw_alloc(std::size_t bytes, std::string_view name) = 0;
  virtual void raw_free(std::byte* p) noexcept = 0;
  /// Copies `bytes` from `src` to `dst`: host to backend (kToBackend) or back (kToHost).
  virtual void raw_copy(void* dst, const void* src, std::size_t bytes, CopyDirection direction) = 0;
  virtual void raw_fill(std::byte* dst, std::uint8_t value, std::size_t bytes) = 0;
  virtual void raw_set(std::byte* dst, std::uint8_t value, std::size_t bytes) = 0;
  void raw_write(std::byte* dst, const void* src, std::size_t bytes) {
    raw_copy(dst, src, bytes, CopyDirection::kToBackend);
  }
  void raw_read(void* dst, const std::byte* src, std::size_t bytes) {
    raw_copy(dst, src, bytes, CopyDirection::kToHost);
  }

 private:
  friend class DeviceBuffer;
  std::vector<LaunchPlan> launch_log_;
};

/// Launches the one launch a launcher planned (its plan and params, e.g. a DequantizeLaunch) on
/// `backend` and returns the plan it launched.
template <class PlannedLaunch>
LaunchPlan launch_planned(Backend& backend, const PlannedLaunch& launch) {
  backend.launch(launch.plan, launch.params);
  return launch.plan;
}

}  // namespace mxv::device
