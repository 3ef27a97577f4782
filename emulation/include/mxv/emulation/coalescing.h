// Coalescing figures in Nsight Compute's vocabulary, computed from the emulator's record of every
// global access (docs/design.md section 4.3, "Coalescing figures"). Accesses are grouped
// into one warp request by (block, warp, barrier epoch, call site, per-lane occurrence count). For
// each request: sectors = distinct 32-byte segments touched, lines = distinct 128-byte lines,
// bytes requested = sum of the active lanes' access sizes. Efficiency = bytes requested / (32 *
// sectors), the ratio ncu reports as l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st} against the
// bytes the instruction asked for. Lanes that read the same bytes count each time (broadcast), so
// efficiency can exceed 1 as it can in ncu's "requested / transferred" figures.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mxv::emu {

enum class AccessKind : std::uint8_t { kLoad, kStore, kAtomic };

std::string_view to_string(AccessKind kind);

/// Summed figures over a set of warp requests.
struct CoalescingFigures {
  std::uint64_t requests = 0;
  std::uint64_t sectors = 0;          ///< 32-byte sectors, summed over requests
  std::uint64_t lines = 0;            ///< 128-byte lines, summed over requests
  std::uint64_t bytes_requested = 0;  ///< sum over requests of the active lanes' bytes
  std::uint64_t lane_accesses = 0;    ///< active lanes summed over requests

  double sectors_per_request() const;
  double lines_per_request() const;
  /// bytes requested / bytes in touched sectors (1.0 = every fetched byte was asked for).
  double efficiency() const;
  void add(const CoalescingFigures& other);
};

/// Figures of one access site (file:line) and kind within one kernel.
struct SiteCoalescing {
  std::string site;
  AccessKind kind{};
  CoalescingFigures figures;
};

/// Bounds a test can hold a kernel to; a negative or zero field is not checked.
struct CoalescingLimits {
  double max_sectors_per_request = 0;  ///< e.g. 16 for a warp of 16-byte vector accesses
  double min_efficiency = 0;           ///< e.g. 0.99 for fully coalesced accesses
};

/// Per-kernel report, accumulated over every launch of that kernel name since the last reset.
struct CoalescingReport {
  std::string kernel;
  std::vector<SiteCoalescing> sites;  ///< sorted by site, then kind
  CoalescingFigures loads, stores, atomics;

  /// The site whose "file:line" contains `site_substring` with this kind; nullptr if none.
  const SiteCoalescing* find(std::string_view site_substring, AccessKind kind) const;
  /// The one site of this kind; nullptr when there is none or more than one.
  const SiteCoalescing* only(AccessKind kind) const;
  /// One line per site that breaks a limit, naming the site and the figure (empty = all good).
  std::vector<std::string> violations(const CoalescingLimits& limits) const;
  /// A printable table: site, kind, requests, sectors/req, lines/req, efficiency.
  std::string to_string() const;
};

}  // namespace mxv::emu
