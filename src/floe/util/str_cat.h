#pragma once

#include <sstream>
#include <string>
#include <utility>

namespace floe {

// Concatenates anything that streams into one string: StrCat("snapshot ", id, " of ", t).
template <typename... Args>
std::string StrCat(Args&&... args) {
  std::ostringstream out;
  (out << ... << std::forward<Args>(args));
  return out.str();
}

}  // namespace floe
