#include "floe/sql/bind/suggest.h"

#include <algorithm>
#include <vector>

#include "floe/util/ascii.h"

namespace floe::sql {

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string ClosestName(std::string_view wanted, const std::vector<std::string>& candidates) {
  const std::string lower = AsciiLower(wanted);
  std::string containing;
  std::string nearest;
  size_t nearest_distance = SIZE_MAX;
  for (const auto& c : candidates) {
    const std::string lc = AsciiLower(c);
    if (!lower.empty() && lc.find(lower) != std::string::npos && (containing.empty() || c.size() < containing.size())) {
      containing = c;
    }
    size_t d = EditDistance(lower, lc);
    if (d < nearest_distance) {
      nearest_distance = d;
      nearest = c;
    }
  }
  return containing.empty() ? nearest : containing;
}

}  // namespace floe::sql
