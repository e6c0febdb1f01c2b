#include "floe/sql/suggest.h"

#include "floe/sql/expression_planner.h"
#include "floe/util/ascii.h"

namespace floe::sql {

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
