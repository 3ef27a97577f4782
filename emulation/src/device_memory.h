// The emulated global memory (docs/design.md section 4.2, "Memory checking"): a cudaMalloc-like
// allocator whose buffers are 256-byte aligned (so sector and line arithmetic on host addresses
// matches the GPU's), surrounded by 256-byte red zones holding a known pattern, each byte with a
// shadow tag that says who wrote it last: 0 = nobody, kHostTag = the host, otherwise (launch,
// block, atomic or not). Internal to mxv::emulation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mxv::emu::detail {

inline constexpr std::uint8_t kRedZonePattern = 0xFA;
inline constexpr std::uint64_t kHostTag = 1;  // launch 0, "block" 0

/// Bit of the tag's block field that marks an atomic update. Atomics of many blocks to one byte
/// are legitimate, a plain access of such a byte by another block is a race (docs/design.md
/// section 4.2), so the tag must say which kind of write it was. Leaves 2^39 blocks per launch.
inline constexpr std::uint64_t kAtomicTagBit = std::uint64_t{1} << 39;

/// Shadow tag of a byte written by `block_linear` in launch `launch` (launch >= 1).
constexpr std::uint64_t writer_tag(std::uint64_t launch, std::uint64_t block_linear) {
  return (launch << 40) | (block_linear + 1);
}
/// Shadow tag of a byte updated by an atomic of `block_linear` in launch `launch`.
constexpr std::uint64_t atomic_tag(std::uint64_t launch, std::uint64_t block_linear) {
  return writer_tag(launch, block_linear) | kAtomicTagBit;
}
constexpr std::uint64_t tag_launch(std::uint64_t tag) { return tag >> 40; }
constexpr std::uint64_t tag_block(std::uint64_t tag) { return (tag & (kAtomicTagBit - 1)) - 1; }
constexpr bool tag_is_atomic(std::uint64_t tag) { return (tag & kAtomicTagBit) != 0; }

struct Allocation {
  std::string name;
  std::byte* base = nullptr;     // first user byte (256-byte aligned)
  std::size_t bytes = 0;         // as requested
  std::size_t padded = 0;        // bytes rounded up to the alignment; the tail is red zone too
  std::unique_ptr<std::byte, void (*)(void*)> block{nullptr, nullptr};  // red zone + padded + red zone
  std::vector<std::uint64_t> tags;  // one per user byte
  // Guard bands inside the allocation (Backend::alloc's guard bytes, backend.h): the host reads
  // and writes them, a kernel access there is an out-of-bounds finding. 0 = none.
  std::size_t guard_before = 0;
  std::size_t guard_after = 0;

  bool contains_pointer(const void* p) const {  // one past the end counts (a valid C++ pointer)
    auto* b = static_cast<const std::byte*>(p);
    return b >= base && b <= base + bytes;
  }
};

class DeviceMemory {
 public:
  /// Throws std::invalid_argument for bytes == 0 or an empty name.
  void* allocate(std::size_t bytes, std::string_view name);
  /// Throws std::invalid_argument if p is not the start of a live allocation.
  void release(void* p);
  /// The live allocation whose [base, base + bytes] contains p, or nullptr.
  Allocation* find(const void* p);
  const Allocation* find(const void* p) const;
  /// Like find, but throws std::invalid_argument naming `what` if p is unknown or the range
  /// [p, p + bytes) leaves the allocation.
  Allocation& checked_range(const void* p, std::size_t bytes, std::string_view what);
  const Allocation& checked_range(const void* p, std::size_t bytes, std::string_view what) const;
  /// Marks the first `before` and last `after` bytes of the allocation starting at p as guard
  /// bands. Throws std::invalid_argument if p is not an allocation's start or the bands overlap.
  void set_guard_bands(void* p, std::size_t before, std::size_t after);
  /// Red-zone bytes (and padding bytes) that no longer hold the pattern, over all allocations.
  std::size_t corrupted_red_zone_bytes() const;

 private:
  std::map<std::uintptr_t, Allocation> by_base_;
};

}  // namespace mxv::emu::detail
