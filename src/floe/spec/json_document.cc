#include "floe/spec/json_document.h"

#include <rapidjson/error/en.h>

#include "floe/util/utf8.h"

namespace floe::spec {

// Not copied into the DOM: metadata files with many snapshots are mostly strings.
Status ParseJsonDocument(std::string_view json, std::string* buffer, rapidjson::Document* doc) {
  // Invalid UTF-8 means a damaged file; Java's parser rejects it too. Checked up front:
  // RapidJSON's own validation is several times slower than this ASCII-first scan.
  size_t bad = 0;
  if (!IsValidUtf8(json, &bad)) {
    return ValidationError("Invalid JSON at byte offset ", bad, ": invalid UTF-8");
  }
  // In-situ parsing stops at a NUL byte; reject one rather than ignore what follows it.
  // Other control characters are never valid JSON outside an escape: checked here too, so
  // the error names the byte.
  // RapidJSON 1.1 also decodes a lone low surrogate escape (\uDC00-\uDFFF) into bytes
  // that are not UTF-8, so find those too; a high surrogate it checks itself.
  auto hex4 = [&](size_t at) -> int {
    if (at + 4 > json.size()) return -1;
    int v = 0;
    for (size_t k = at; k < at + 4; ++k) {
      const char h = json[k];
      const int d = h >= '0' && h <= '9'   ? h - '0'
                    : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                           : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  };
  for (size_t i = 0; i < json.size(); ++i) {
    const auto c = static_cast<unsigned char>(json[i]);
    if (c == '\\') {
      const int unit = i + 1 < json.size() && json[i + 1] == 'u' ? hex4(i + 2) : -1;
      if (unit >= 0xDC00 && unit <= 0xDFFF) {
        return ValidationError("Invalid JSON at byte offset ", i,
                               ": the surrogate pair in string is invalid");
      }
      const bool pair = unit >= 0xD800 && unit <= 0xDBFF && i + 7 < json.size() &&
                        json[i + 6] == '\\' && json[i + 7] == 'u' && hex4(i + 8) >= 0xDC00 &&
                        hex4(i + 8) <= 0xDFFF;
      i += pair ? 11 : unit >= 0 ? 5 : 1;  // past the escape (or the escaped character)
      continue;
    }
    if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') continue;
    if (c == 0) return ValidationError("Invalid JSON at byte offset ", i, ": NUL character");
    static constexpr char kHex[] = "0123456789ABCDEF";
    return ValidationError("Invalid JSON at byte offset ", i, ": unescaped control character 0x",
                           kHex[c >> 4], kHex[c & 0xF]);
  }
  // RapidJSON's SIMD whitespace skipping loads aligned 16-byte blocks that can run past the
  // terminator; padding keeps those loads inside the allocation.
  buffer->reserve(json.size() + 16);
  buffer->assign(json.data(), json.size());
  buffer->append(16, '\0');
  doc->ParseInsitu<rapidjson::kParseIterativeFlag>(buffer->data());
  if (doc->HasParseError()) {
    return ValidationError("Invalid JSON at byte offset ", doc->GetErrorOffset(), ": ",
                           rapidjson::GetParseError_En(doc->GetParseError()));
  }
  return Status::OK();
}

}  // namespace floe::spec
