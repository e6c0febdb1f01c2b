#include "floe/cli/json_text.h"

#include <cstdio>

#include "floe/util/time_zone.h"

namespace floe::cli {

std::string JsonString(std::string_view text) {
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

std::string JsonTime(int64_t epoch_ms) {
  std::string text = FormatMillis(epoch_ms, TimeZone::Utc());
  if (text.size() > 10) text[10] = 'T';
  return "\"" + text + "Z\"";
}

std::string JsonNumber(const std::optional<int64_t>& value) {
  return value ? std::to_string(*value) : "null";
}

std::string JsonOptionalString(const std::optional<std::string>& value) {
  return value ? JsonString(*value) : "null";
}

}  // namespace floe::cli
