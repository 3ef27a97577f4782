// Printing of findings and call sites (see findings.h, call_site.h; docs/design.md section 4.4).
#include <sstream>

#include "mxv/emulation/call_site.h"
#include "mxv/emulation/findings.h"
#include "mxv/io/enum_names.h"

namespace mxv::emu {

std::string CallSite::to_string() const {
  std::string_view f = file != nullptr ? file : "?";
  const auto slash = f.find_last_of('/');
  if (slash != std::string_view::npos) f = f.substr(slash + 1);
  return std::string(f) + ":" + std::to_string(line);
}

std::string_view to_string(FindingKind kind) {
  return io::enum_name(kind,
                       {"out-of-bounds", "misaligned", "uninitialized-read", "cross-block-write",
                        "cross-block-read", "shared-race", "barrier-divergence", "collective-mismatch",
                        "invalid-collective", "invalid-pointer", "shared-overflow", "kernel-exception",
                        "async-copy"});
}

std::string Finding::to_string() const {
  std::ostringstream os;
  os << mxv::emu::to_string(kind) << " in " << kernel << " (launch " << launch << ") block ("
     << block.x << "," << block.y << "," << block.z << ") thread (" << thread.x << "," << thread.y
     << "," << thread.z << ") at " << site << ": " << detail;
  if (address != 0) os << " [address 0x" << std::hex << address << "]";
  return os.str();
}

}  // namespace mxv::emu
