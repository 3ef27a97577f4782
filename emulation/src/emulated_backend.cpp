// The emulated backend: device memory in the emulator's checked allocator, launches through
// Emulator::launch with the host launcher's plan, findings surfaced as strings; and backend
// selection (docs/design.md section 3.5, "Backends").
#include "mxv/emulation/emulated_backend.h"

#include <array>
#include <stdexcept>
#include <vector>

#include "mxv/device/cuda_backend.h"
#include "mxv/emulation/emu_ctx.h"

namespace mxv::emu {

static_assert(device::KernelCtx<EmuCtx>);

EmulatedBackend::EmulatedBackend(LaunchOptions options) : options_(options) {}
EmulatedBackend::~EmulatedBackend() = default;

std::vector<std::string> EmulatedBackend::take_findings() {
  std::vector<std::string> out;
  for (const Finding& f : emu_.findings()) out.push_back(f.to_string());
  if (emu_.finding_count() > out.size()) {
    out.push_back("... " + std::to_string(emu_.finding_count() - out.size()) +
                  " more finding(s) not stored; totals: " + emu_.findings_report());
  }
  emu_.clear_findings();
  return out;
}

// ---- memory ----------------------------------------------------------------------------------

std::byte* EmulatedBackend::raw_alloc(std::size_t bytes, std::string_view name) {
  // Backend::alloc asks for the usable bytes plus kGuardBytes on each side (backend.h); the
  // emulator treats those as guard bands, so a kernel load of a guard byte is a finding, not a
  // silent read of allocated memory.
  const device::GlobalPtr<std::uint8_t> p = emu_.alloc<std::uint8_t>(bytes, name);
  if (bytes >= 2 * device::kGuardBytes) emu_.set_guard_bands(p, device::kGuardBytes, device::kGuardBytes);
  return reinterpret_cast<std::byte*>(p.raw);
}

void EmulatedBackend::raw_free(std::byte* p) noexcept {
  emu_.free(device::GlobalPtr<std::uint8_t>{reinterpret_cast<std::uint8_t*>(p)});
}

void EmulatedBackend::raw_copy(void* dst, const void* src, std::size_t bytes, device::CopyDirection direction) {
  if (direction == device::CopyDirection::kToBackend) {
    emu_.upload(device::GlobalPtr<std::uint8_t>{static_cast<std::uint8_t*>(dst)},
                std::span<const std::uint8_t>(static_cast<const std::uint8_t*>(src), bytes));
  } else {
    emu_.download(std::span<std::uint8_t>(static_cast<std::uint8_t*>(dst), bytes),
                  device::GlobalPtr<std::uint8_t>{static_cast<std::uint8_t*>(const_cast<void*>(src))});
  }
}

void EmulatedBackend::raw_fill(std::byte* dst, std::uint8_t value, std::size_t bytes) {
  // Emulator::fill leaves the bytes "unwritten" (so a kernel reading a sentinel-filled output is
  // reported) but runs to the end of the allocation, i.e. over the trailing guard that Backend
  // placed right after the usable bytes. Backend only fills whole usable regions, so restoring
  // the guard pattern after them puts the allocation back exactly as Backend::alloc laid it out.
  emu_.fill(device::GlobalPtr<std::uint8_t>{reinterpret_cast<std::uint8_t*>(dst)}, value);
  std::array<std::uint8_t, device::kGuardBytes> guard{};
  for (std::size_t i = 0; i < guard.size(); ++i) guard[i] = device::guard_byte(i);
  raw_write(dst + bytes, guard.data(), guard.size());
}

// Written as an upload, so the bytes count as data the host wrote.
void EmulatedBackend::raw_set(std::byte* dst, std::uint8_t value, std::size_t bytes) {
  const std::vector<std::uint8_t> data(bytes, value);
  raw_write(dst, data.data(), bytes);
}

// ---- selection -----------------------------------------------------------------------------------

device::Availability emulated_availability() { return {true, "the emulator runs on any CPU"}; }

device::Availability availability(device::BackendKind kind) {
  return kind == device::BackendKind::kCuda ? device::cuda_availability() : emulated_availability();
}

std::unique_ptr<device::Backend> make_backend(device::BackendKind kind) {
  if (kind == device::BackendKind::kCuda) return device::make_cuda_backend();
  return std::make_unique<EmulatedBackend>();
}

std::vector<std::unique_ptr<device::Backend>> make_backends(std::string_view spec) {
  std::vector<std::unique_ptr<device::Backend>> out;
  if (spec == "auto") {
    for (const auto kind : {device::BackendKind::kCuda, device::BackendKind::kEmulated}) {
      if (availability(kind).available) out.push_back(make_backend(kind));
    }
    return out;
  }
  if (spec != "cuda" && spec != "emulated") {
    throw std::invalid_argument("backend '" + std::string(spec) + "' is not one of: cuda, emulated, auto");
  }
  out.push_back(make_backend(device::backend_kind_by_name(spec)));
  return out;
}

}  // namespace mxv::emu
