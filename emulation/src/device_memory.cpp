// Emulated global memory: allocation, red zones, shadow tags (see device_memory.h;
// docs/design.md section 4.2).
#include "device_memory.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "mxv/emulation/emulator.h"

namespace mxv::emu::detail {

void* DeviceMemory::allocate(std::size_t bytes, std::string_view name) {
  if (bytes == 0) throw std::invalid_argument("alloc: count must be > 0");
  if (name.empty()) throw std::invalid_argument("alloc: name must not be empty (findings name buffers)");
  if (bytes > (std::size_t{1} << 40)) throw std::invalid_argument("alloc: more than 1 TiB requested");
  Allocation a;
  a.name = std::string(name);
  a.bytes = bytes;
  a.padded = (bytes + kAllocationAlignment - 1) / kAllocationAlignment * kAllocationAlignment;
  const std::size_t total = kRedZoneBytes + a.padded + kRedZoneBytes;
  void* raw = std::aligned_alloc(kAllocationAlignment, total);
  if (raw == nullptr) throw std::bad_alloc();
  a.block = std::unique_ptr<std::byte, void (*)(void*)>(static_cast<std::byte*>(raw), &std::free);
  std::memset(raw, kRedZonePattern, total);
  a.base = static_cast<std::byte*>(raw) + kRedZoneBytes;
  a.tags.assign(bytes, 0);
  auto key = reinterpret_cast<std::uintptr_t>(a.base);
  auto [it, inserted] = by_base_.emplace(key, std::move(a));
  return it->second.base;
}

void DeviceMemory::release(void* p) {
  auto it = by_base_.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == by_base_.end()) throw std::invalid_argument("free: pointer is not the start of a live allocation");
  by_base_.erase(it);
}

void DeviceMemory::set_guard_bands(void* p, std::size_t before, std::size_t after) {
  auto it = by_base_.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == by_base_.end()) throw std::invalid_argument("guard bands: pointer is not the start of a live allocation");
  Allocation& a = it->second;
  if (before > a.bytes || after > a.bytes - before) {
    throw std::invalid_argument("guard bands of " + std::to_string(before) + " + " + std::to_string(after) +
                                " bytes do not fit in '" + a.name + "' of " + std::to_string(a.bytes) + " bytes");
  }
  a.guard_before = before;
  a.guard_after = after;
}

const Allocation* DeviceMemory::find(const void* p) const {
  auto key = reinterpret_cast<std::uintptr_t>(p);
  auto it = by_base_.upper_bound(key);
  if (it == by_base_.begin()) return nullptr;
  --it;
  return it->second.contains_pointer(p) ? &it->second : nullptr;
}

Allocation* DeviceMemory::find(const void* p) {
  return const_cast<Allocation*>(static_cast<const DeviceMemory*>(this)->find(p));
}

const Allocation& DeviceMemory::checked_range(const void* p, std::size_t bytes,
                                              std::string_view what) const {
  const Allocation* a = find(p);
  if (a == nullptr) {
    throw std::invalid_argument(std::string(what) + ": pointer is not inside a live allocation of this emulator");
  }
  auto offset = static_cast<std::size_t>(static_cast<const std::byte*>(p) - a->base);
  if (bytes > a->bytes - offset) {
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(bytes) + " bytes at offset " +
                                std::to_string(offset) + " leave buffer '" + a->name + "' of " +
                                std::to_string(a->bytes) + " bytes");
  }
  return *a;
}

Allocation& DeviceMemory::checked_range(const void* p, std::size_t bytes, std::string_view what) {
  return const_cast<Allocation&>(static_cast<const DeviceMemory*>(this)->checked_range(p, bytes, what));
}

std::size_t DeviceMemory::corrupted_red_zone_bytes() const {
  std::size_t bad = 0;
  for (const auto& [key, a] : by_base_) {
    const std::byte* raw = a.block.get();
    const std::size_t total = kRedZoneBytes + a.padded + kRedZoneBytes;
    for (std::size_t i = 0; i < total; ++i) {
      const bool user = i >= kRedZoneBytes && i < kRedZoneBytes + a.bytes;
      if (!user && raw[i] != std::byte{kRedZonePattern}) ++bad;
    }
  }
  return bad;
}

}  // namespace mxv::emu::detail
