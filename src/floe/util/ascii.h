#pragma once

// ASCII case folding for property values and keywords (locale-independent, as Java's
// toLowerCase(Locale.ROOT) is for the ASCII range).

#include <string>
#include <string_view>

namespace floe {

inline std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

inline std::string AsciiUpper(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

}  // namespace floe
