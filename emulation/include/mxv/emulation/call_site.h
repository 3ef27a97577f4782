// Where in the kernel source an access or collective was issued (every finding and every
// coalescing figure names its call site). Emulator context members take a trailing CallSite
// parameter defaulted from __builtin_FILE()/__builtin_LINE(): kernel bodies call them without it,
// so the same call compiles against CudaCtx, and the default argument is evaluated at the caller's
// line. std::source_location is avoided on purpose: clang 14 with libstdc++ 12 lacks it
// (docs/design.md section 4.4, "Call sites and findings").
#pragma once

#include <string>

namespace mxv::emu {

/// A source location captured at the call of an emulator context member.
struct CallSite {
  const char* file;
  unsigned line;

  // The builtins in default arguments are evaluated where the constructor is called, i.e. in the
  // default argument of the context member, i.e. at the kernel body's call.
  constexpr CallSite(const char* f = __builtin_FILE(), unsigned l = __builtin_LINE())
      : file(f), line(l) {}

  /// "file:line" with the directory stripped (reports stay short).
  std::string to_string() const;
};

}  // namespace mxv::emu
