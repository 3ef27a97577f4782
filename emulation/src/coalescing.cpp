// Coalescing figures (see coalescing.h; docs/design.md section 4.3, "Coalescing figures"). A warp
// request is the set of lanes of one warp that executed one access site for the
// same (per-lane) time within one barrier epoch; the hardware serves it with the distinct 32-byte
// sectors its bytes touch, grouped in 128-byte lines.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "emulator_internal.h"
#include "mxv/io/enum_names.h"

namespace mxv::emu {

std::string_view to_string(AccessKind kind) {
  return io::enum_name(kind, {"load", "store", "atomic"});
}

double CoalescingFigures::sectors_per_request() const {
  return requests == 0 ? 0.0 : static_cast<double>(sectors) / static_cast<double>(requests);
}
double CoalescingFigures::lines_per_request() const {
  return requests == 0 ? 0.0 : static_cast<double>(lines) / static_cast<double>(requests);
}
double CoalescingFigures::efficiency() const {
  return sectors == 0 ? 0.0 : static_cast<double>(bytes_requested) / (32.0 * static_cast<double>(sectors));
}
void CoalescingFigures::add(const CoalescingFigures& o) {
  requests += o.requests;
  sectors += o.sectors;
  lines += o.lines;
  bytes_requested += o.bytes_requested;
  lane_accesses += o.lane_accesses;
}

const SiteCoalescing* CoalescingReport::find(std::string_view site_substring, AccessKind kind) const {
  for (const SiteCoalescing& s : sites) {
    if (s.kind == kind && s.site.find(site_substring) != std::string::npos) return &s;
  }
  return nullptr;
}

const SiteCoalescing* CoalescingReport::only(AccessKind kind) const {
  const SiteCoalescing* found = nullptr;
  for (const SiteCoalescing& s : sites) {
    if (s.kind != kind) continue;
    if (found != nullptr) return nullptr;
    found = &s;
  }
  return found;
}

std::vector<std::string> CoalescingReport::violations(const CoalescingLimits& limits) const {
  std::vector<std::string> out;
  char buf[256];
  for (const SiteCoalescing& s : sites) {
    const CoalescingFigures& f = s.figures;
    if (limits.max_sectors_per_request > 0 && f.sectors_per_request() > limits.max_sectors_per_request) {
      std::snprintf(buf, sizeof buf, "%s %s: %.2f sectors/request > %.2f", s.site.c_str(),
                    std::string(mxv::emu::to_string(s.kind)).c_str(), f.sectors_per_request(),
                    limits.max_sectors_per_request);
      out.emplace_back(buf);
    }
    if (limits.min_efficiency > 0 && f.efficiency() < limits.min_efficiency) {
      std::snprintf(buf, sizeof buf, "%s %s: efficiency %.1f%% < %.1f%%", s.site.c_str(),
                    std::string(mxv::emu::to_string(s.kind)).c_str(), 100.0 * f.efficiency(),
                    100.0 * limits.min_efficiency);
      out.emplace_back(buf);
    }
  }
  return out;
}

std::string CoalescingReport::to_string() const {
  std::ostringstream os;
  char buf[320];
  std::snprintf(buf, sizeof buf, "coalescing of kernel '%s'\n%-40s %-6s %10s %12s %10s %10s\n",
                kernel.c_str(), "site", "kind", "requests", "sectors/req", "lines/req", "efficiency");
  os << buf;
  auto row = [&](const std::string& name, AccessKind kind, const CoalescingFigures& f) {
    std::snprintf(buf, sizeof buf, "%-40s %-6s %10llu %12.2f %10.2f %9.1f%%\n", name.c_str(),
                  std::string(mxv::emu::to_string(kind)).c_str(),
                  static_cast<unsigned long long>(f.requests), f.sectors_per_request(),
                  f.lines_per_request(), 100.0 * f.efficiency());
    os << buf;
  };
  for (const SiteCoalescing& s : sites) row(s.site, s.kind, s.figures);
  if (loads.requests > 0) row("(all loads)", AccessKind::kLoad, loads);
  if (stores.requests > 0) row("(all stores)", AccessKind::kStore, stores);
  if (atomics.requests > 0) row("(all atomics)", AccessKind::kAtomic, atomics);
  return os.str();
}

}  // namespace mxv::emu

namespace mxv::emu::detail {

void form_requests(std::vector<AccessRecord>& records, KernelCoalescing& out) {
  std::sort(records.begin(), records.end(), [](const AccessRecord& a, const AccessRecord& b) {
    if (a.site != b.site) return a.site < b.site;
    if (a.kind != b.kind) return a.kind < b.kind;
    if (a.occurrence != b.occurrence) return a.occurrence < b.occurrence;
    return a.lane < b.lane;
  });
  std::vector<std::uintptr_t> sectors, lines;
  std::size_t i = 0;
  while (i < records.size()) {
    std::size_t j = i;
    sectors.clear();
    lines.clear();
    std::uint64_t bytes = 0;
    while (j < records.size() && records[j].site == records[i].site &&
           records[j].kind == records[i].kind && records[j].occurrence == records[i].occurrence) {
      const AccessRecord& r = records[j];
      const std::uintptr_t last = r.address + r.bytes - 1;
      for (std::uintptr_t s = r.address >> 5; s <= last >> 5; ++s) sectors.push_back(s);
      for (std::uintptr_t l = r.address >> 7; l <= last >> 7; ++l) lines.push_back(l);
      bytes += r.bytes;
      ++j;
    }
    std::sort(sectors.begin(), sectors.end());
    std::sort(lines.begin(), lines.end());
    CoalescingFigures& f = out[{records[i].site, records[i].kind}];
    f.requests += 1;
    f.sectors += static_cast<std::uint64_t>(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
    f.lines += static_cast<std::uint64_t>(std::unique(lines.begin(), lines.end()) - lines.begin());
    f.bytes_requested += bytes;
    f.lane_accesses += j - i;
    i = j;
  }
}

}  // namespace mxv::emu::detail
