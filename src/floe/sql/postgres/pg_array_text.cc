#include "floe/sql/postgres/pg_array_text.h"

namespace floe::sql {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool IsNullWord(const std::string& s) {
  return s.size() == 4 && (s[0] | 32) == 'n' && (s[1] | 32) == 'u' && (s[2] | 32) == 'l' &&
         (s[3] | 32) == 'l';
}

}  // namespace

Result<std::vector<std::optional<std::string>>> ParsePgArrayText(std::string_view v) {
  auto bad = [](std::string_view why) {
    return Status::Invalid("malformed array literal: ", why);
  };
  size_t i = 0;
  auto skip_spaces = [&] {
    while (i < v.size() && IsSpace(v[i])) ++i;
  };
  skip_spaces();
  if (i == v.size() || v[i] != '{') return bad("it must start with \"{\"");
  ++i;
  std::vector<std::optional<std::string>> items;
  skip_spaces();
  if (i < v.size() && v[i] == '}') {
    ++i;
  } else {
    while (true) {
      skip_spaces();
      if (i == v.size()) return bad("unexpected end of input");
      if (v[i] == '{') return bad("only one-dimensional arrays are supported");
      std::string item;
      bool quoted = v[i] == '"';
      if (quoted) {
        for (++i; i < v.size() && v[i] != '"'; ++i) {
          if (v[i] == '\\' && i + 1 < v.size()) ++i;
          item.push_back(v[i]);
        }
        if (i == v.size()) return bad("unexpected end of input");
        ++i;
      } else {
        for (; i < v.size() && v[i] != ',' && v[i] != '}'; ++i) {
          if (v[i] == '"' || v[i] == '{') return bad("unexpected character");
          if (v[i] == '\\' && i + 1 < v.size()) ++i;
          item.push_back(v[i]);
        }
        while (!item.empty() && IsSpace(item.back())) item.pop_back();
        if (item.empty()) return bad("empty element");
      }
      items.push_back(!quoted && IsNullWord(item) ? std::nullopt
                                                  : std::optional<std::string>(std::move(item)));
      skip_spaces();
      if (i == v.size()) return bad("unexpected end of input");
      if (v[i] == '}') {
        ++i;
        break;
      }
      if (v[i] != ',') return bad("expected \",\" or \"}\"");
      ++i;
    }
  }
  skip_spaces();
  if (i != v.size()) return bad("junk after closing right brace");
  return items;
}

}  // namespace floe::sql
