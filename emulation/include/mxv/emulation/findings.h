// What the emulator reports instead of crashing or hanging (docs/design.md sections 4.2, "Memory
// checking", and 4.4, "Call sites and findings"). A launch never throws out of a fiber:
// every error becomes a Finding naming the kernel, block, thread, call site, buffer and address.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mxv/device/kernel_ctx.h"

namespace mxv::emu {

enum class FindingKind : std::uint8_t {
  kOutOfBounds,          ///< global or shared access outside its buffer / array
  kMisaligned,           ///< address not a multiple of the access size (16 for vector access)
  kUninitializedRead,    ///< read of bytes nothing wrote (global shadow or shared shadow)
  kCrossBlockWrite,      ///< one global byte written by two different blocks in one launch
  kCrossBlockRead,       ///< a block loads a global byte another block wrote in the same launch
                         ///< (a race: block order is undefined); an atomic over another block's
                         ///< atomic update is legitimate and not reported
  kSharedRace,           ///< two warps touch a shared byte (at least one writes), no barrier between
  kBarrierDivergence,    ///< __syncthreads not reached by all live threads, or at different sites
  kCollectiveMismatch,   ///< warp collective whose participants disagree (mask/op/width/site) or
                         ///< whose mask names a lane that exited or waits elsewhere
  kInvalidCollective,    ///< bad width, mask without the caller, or a source lane not in the mask
  kInvalidPointer,       ///< pointer not inside any live allocation of this emulator
  kSharedOverflow,       ///< static + dynamic shared memory exceeds the per-block limit
  kKernelException,      ///< the kernel body threw; the thread is treated as exited
  kAsyncCopy,            ///< an asynchronous bulk copy or its barrier misused: its bytes read
                         ///< before the thread waited for the copy's phase, a block that exits
                         ///< before any thread waited for its copies, a barrier used uninitialised
                         ///< or by another warp before a block barrier follows its initialisation,
                         ///< a bad copy size or alignment, or a wait that can never complete
};

inline constexpr std::size_t kFindingKindCount = 13;

/// Short stable name of a kind ("out-of-bounds", ...), used in reports and test messages.
std::string_view to_string(FindingKind kind);

/// One reported error. `buffer` is the allocation's name (or "shared:<array>"); `offset` is the
/// byte offset of the first offending byte inside it (may be negative or past the end).
struct Finding {
  FindingKind kind{};
  std::string kernel;
  std::uint64_t launch = 0;   ///< 1-based launch counter of the emulator
  device::Dim3 block{};
  device::Dim3 thread{};
  std::string site;           ///< "file.h:123"
  std::string buffer;
  std::uintptr_t address = 0;
  std::int64_t offset = 0;
  std::string detail;         ///< human-readable explanation

  /// One line: "<kind> in <kernel> block (x,y,z) thread (x,y,z) at <site>: <detail>".
  std::string to_string() const;
};

}  // namespace mxv::emu
