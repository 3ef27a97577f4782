// Emulator's host-side API: device memory, findings bookkeeping, coalescing reports
// (docs/design.md section 4).
// The launch itself lives in scheduler.cpp, the per-access checks in access_checks.cpp.
#include "mxv/emulation/emulator.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "emulator_internal.h"

namespace mxv::emu {

namespace detail {

std::uint32_t SiteTable::intern(CallSite site) {
  const std::pair<const char*, unsigned> key{site.file, site.line};
  if (auto it = by_pointer_.find(key); it != by_pointer_.end()) return it->second;
  std::string name = site.to_string();
  // Content key keeps the full path so two files of one name stay apart.
  std::string full = std::string(site.file != nullptr ? site.file : "?") + ":" + std::to_string(site.line);
  std::uint32_t id;
  if (auto it = by_name_.find(full); it != by_name_.end()) {
    id = it->second;
  } else {
    id = static_cast<std::uint32_t>(names_.size());
    names_.push_back(std::move(name));
    by_name_.emplace(std::move(full), id);
  }
  by_pointer_.emplace(key, id);
  return id;
}

}  // namespace detail

void Emulator::Impl::add_finding(Finding finding, std::uint32_t site) {
  ++counts[static_cast<std::size_t>(finding.kind)];
  std::size_t& stored = stored_per_site[{finding.kind, site}];
  if (stored >= kMaxStoredFindingsPerSite) return;
  ++stored;
  findings.push_back(std::move(finding));
}

Emulator::Emulator() : impl_(std::make_unique<Impl>()) {}
Emulator::~Emulator() = default;

void* Emulator::alloc_bytes(std::size_t bytes, std::string_view name) {
  return impl_->memory.allocate(bytes, name);
}

void Emulator::upload_bytes(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  detail::Allocation& a = impl_->memory.checked_range(dst, bytes, "upload");
  const auto offset = static_cast<std::size_t>(static_cast<std::byte*>(dst) - a.base);
  std::memcpy(dst, src, bytes);
  std::fill_n(a.tags.begin() + static_cast<std::ptrdiff_t>(offset), bytes, detail::kHostTag);
}

void Emulator::download_bytes(void* dst, const void* src, std::size_t bytes) const {
  if (bytes == 0) return;
  impl_->memory.checked_range(src, bytes, "download");
  std::memcpy(dst, src, bytes);
}

void Emulator::fill_bytes(void* dst, std::uint8_t byte) {
  detail::Allocation& a = impl_->memory.checked_range(dst, 0, "fill");
  const auto offset = static_cast<std::size_t>(static_cast<std::byte*>(dst) - a.base);
  std::memset(dst, byte, a.bytes - offset);
  // Deliberately leaves the shadow alone: a sentinel is not data.
}

std::size_t Emulator::count_unwritten_bytes(const void* p, std::size_t bytes) const {
  const detail::Allocation& a = impl_->memory.checked_range(p, bytes, "count_unwritten");
  const auto offset = static_cast<std::size_t>(static_cast<const std::byte*>(p) - a.base);
  return static_cast<std::size_t>(std::count(a.tags.begin() + static_cast<std::ptrdiff_t>(offset),
                                             a.tags.begin() + static_cast<std::ptrdiff_t>(offset + bytes),
                                             std::uint64_t{0}));
}

void Emulator::free_bytes(void* p) { impl_->memory.release(p); }
void Emulator::set_guard_bands_bytes(void* p, std::size_t before, std::size_t after) {
  impl_->memory.set_guard_bands(p, before, after);
}

std::size_t Emulator::corrupted_red_zone_bytes() const { return impl_->memory.corrupted_red_zone_bytes(); }

std::uint64_t Emulator::launch_count() const { return impl_->launches; }

const std::vector<Finding>& Emulator::findings() const { return impl_->findings; }

std::uint64_t Emulator::finding_count(FindingKind kind) const {
  return impl_->counts[static_cast<std::size_t>(kind)];
}

std::uint64_t Emulator::finding_count() const {
  std::uint64_t n = 0;
  for (std::uint64_t c : impl_->counts) n += c;
  return n;
}

std::string Emulator::findings_report() const {
  std::ostringstream os;
  for (const Finding& f : impl_->findings) os << f.to_string() << "\n";
  for (std::size_t k = 0; k < kFindingKindCount; ++k) {
    if (impl_->counts[k] != 0) {
      os << to_string(static_cast<FindingKind>(k)) << ": " << impl_->counts[k] << " in total\n";
    }
  }
  return os.str();
}

void Emulator::clear_findings() {
  impl_->findings.clear();
  impl_->counts.fill(0);
  impl_->stored_per_site.clear();
}

CoalescingReport Emulator::coalescing(std::string_view kernel) const {
  CoalescingReport report;
  report.kernel = std::string(kernel);
  auto it = impl_->coalescing.find(kernel);
  if (it == impl_->coalescing.end()) return report;
  for (const auto& [key, figures] : it->second) {
    report.sites.push_back({impl_->sites.name(key.first), key.second, figures});
    switch (key.second) {
      case AccessKind::kLoad: report.loads.add(figures); break;
      case AccessKind::kStore: report.stores.add(figures); break;
      case AccessKind::kAtomic: report.atomics.add(figures); break;
    }
  }
  std::sort(report.sites.begin(), report.sites.end(), [](const SiteCoalescing& a, const SiteCoalescing& b) {
    return a.site != b.site ? a.site < b.site : a.kind < b.kind;
  });
  return report;
}

void Emulator::reset_coalescing() { impl_->coalescing.clear(); }

}  // namespace mxv::emu
