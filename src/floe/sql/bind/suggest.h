#pragma once

// "Did you mean": the registered name closest to one that was not found.

#include <string>
#include <string_view>
#include <vector>

namespace floe::sql {

// Levenshtein distance.
size_t EditDistance(const std::string& a, const std::string& b);

// The candidate closest to `wanted` (compared in lower case): one that contains it whole
// (`set_current` -> `set_current_snapshot`), shortest first, else the smallest edit distance.
// Empty when there are no candidates.
std::string ClosestName(std::string_view wanted, const std::vector<std::string>& candidates);

}  // namespace floe::sql
