// The shape of a kernel's global accesses as the emulator records them (emulation/coalescing.h),
// in the form the block-quantizing kernels' tests pin it: how many access sites (source lines) have
// a given shape. A change to a kernel's mapping of lanes to data changes these figures, and the
// test that pins them then says so (docs/design.md section 4.3).
#pragma once

#include <cstdint>

#include "mxv/emulation/coalescing.h"

namespace mxv::test {

/// The shape of the requests of one access site: `lanes` active lanes in every request, which touch
/// on average `sectors` 32-byte sectors and `lines` 128-byte lines and use `efficiency` of the
/// touched sectors' bytes.
struct SiteShape {
  emu::AccessKind kind = emu::AccessKind::kLoad;
  std::uint64_t lanes = 32;
  double sectors = 0;
  double lines = 0;
  double efficiency = 0;
};

/// How many access sites of `r` have exactly this shape.
inline int count_sites(const emu::CoalescingReport& r, const SiteShape& shape) {
  int n = 0;
  for (const auto& site : r.sites) {
    const emu::CoalescingFigures& f = site.figures;
    n += site.kind == shape.kind && f.lane_accesses == f.requests * shape.lanes &&
         f.sectors_per_request() == shape.sectors && f.lines_per_request() == shape.lines &&
         f.efficiency() == shape.efficiency;
  }
  return n;
}

}  // namespace mxv::test
