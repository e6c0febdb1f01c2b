#pragma once

// JSON string literals for the subcommands' --json output.

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "floe/util/clock.h"

namespace floe::cli {

// `text` as a JSON string literal (quotes, backslashes and control characters escaped).
inline std::string JsonQuote(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// A JSON string, or null.
inline std::string JsonQuoteOrNull(const std::optional<std::string>& text) {
  return text ? JsonQuote(*text) : "null";
}

// An instant as JSON carries it: ISO-8601 in UTC with a Z, "2025-06-15T09:05:00.123Z".
inline std::string JsonTime(int64_t epoch_ms) {
  std::string s = FormatMillisUtc(epoch_ms);
  if (s.size() > 10) s[10] = 'T';
  return JsonQuote(s + "Z");
}

}  // namespace floe::cli
