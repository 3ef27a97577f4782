// nearest_name (nearest_name.h): optimal string alignment distance, the textbook dynamic
// programme over a (|a|+1) x (|b|+1) table; names are short, so the table is tiny.
#include "mxv/cli/nearest_name.h"

#include <algorithm>
#include <vector>

namespace mxv::cli {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::size_t> d((n + 1) * (m + 1));
  auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * (m + 1) + j]; };
  for (std::size_t i = 0; i <= n; ++i) at(i, 0) = i;
  for (std::size_t j = 0; j <= m; ++j) at(0, j) = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
    }
  }
  return at(n, m);
}

std::string nearest_name(std::string_view typed, std::span<const std::string> known) {
  std::string best;
  std::size_t best_distance = 0;
  for (const std::string& name : known) {
    const std::size_t dist = edit_distance(typed, name);
    const std::size_t allowed = std::max<std::size_t>(1, std::max(typed.size(), name.size()) / 3);
    const bool prefix = !typed.empty() && name.starts_with(typed);
    if ((dist <= allowed || prefix) && (best.empty() || dist < best_distance)) {
      best = name;
      best_distance = dist;
    }
  }
  return best;
}

}  // namespace mxv::cli
