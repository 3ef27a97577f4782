// A global buffer whose every element holds one value, uploaded, so the emulator sees its reads
// as initialised (emulator.h: a buffer never uploaded or written reads as uninitialised).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "mxv/emulation/emulator.h"

namespace mxv::emu {

template <class T>
device::GlobalPtr<T> filled_buffer(Emulator& emu, std::size_t n, std::string_view name, T value) {
  const device::GlobalPtr<T> buf = emu.alloc<T>(n, name);
  const std::vector<T> host(n, value);
  emu.upload(buf, std::span<const T>(host));
  return buf;
}

}  // namespace mxv::emu
