#include "floe/server/copy_command.h"

#include <cctype>

#include "floe/server/session_adapter.h"

namespace floe::server {

namespace {

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The upper-case word at `i` (letters, digits, _), or empty.
std::string WordAt(const std::string& s, size_t i) {
  std::string w;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) {
    w.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(s[i]))));
    ++i;
  }
  return w;
}

void SkipSpaces(const std::string& s, size_t* i) {
  while (*i < s.size() && IsSpace(s[*i])) ++*i;
}

// The end of the parenthesized text opening at `open` (one past its ')'), skipping quoted
// strings, quoted names and comments; npos when it does not close.
size_t MatchParen(const std::string& s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\'' || c == '"' || c == '`') {
      for (++i; i < s.size() && s[i] != c; ++i) {
        if (c == '\'' && s[i] == '\\' && i + 1 < s.size()) ++i;
      }
      if (i == s.size()) return std::string::npos;
    } else if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      if (end == std::string::npos) return std::string::npos;
      i = end + 1;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string::npos;
}

}  // namespace

Result<std::optional<CopyOut>> ParseCopyOut(const std::string& sql) {
  if (CommandOf(sql) != "COPY") return std::optional<CopyOut>();
  auto unsupported = [](const std::string& why) {
    return Status::NotImplemented("COPY ", why, " is not supported; floe serves COPY (query) TO STDOUT");
  };
  size_t i = sql.find_first_not_of(" \t\r\n");
  i += 4;  // COPY
  SkipSpaces(sql, &i);
  CopyOut out;
  if (i < sql.size() && sql[i] == '(') {
    size_t end = MatchParen(sql, i);
    if (end == std::string::npos) return Status::Invalid("COPY: unbalanced parentheses");
    out.query = sql.substr(i + 1, end - i - 2);
    i = end;
  } else {
    // COPY name TO STDOUT: the table's rows.
    size_t start = i;
    while (i < sql.size() && !IsSpace(sql[i]) && sql[i] != '(') ++i;
    if (i == start) return Status::Invalid("COPY: expected a query in parentheses or a table");
    SkipSpaces(sql, &i);
    if (i < sql.size() && sql[i] == '(') return unsupported("of a column list");
    out.query = "SELECT * FROM " + sql.substr(start, i - start);
  }
  // Only a query's rows: a write inside COPY would run before any other check.
  if (CommandOf(out.query) != "SELECT") return Status::Invalid("COPY (query) needs a SELECT query");
  SkipSpaces(sql, &i);
  if (WordAt(sql, i) == "FROM") return unsupported("FROM");
  if (WordAt(sql, i) != "TO") return Status::Invalid("COPY: expected TO STDOUT");
  i += 2;
  SkipSpaces(sql, &i);
  if (WordAt(sql, i) != "STDOUT") return unsupported("TO a file or program");
  i += 6;
  SkipSpaces(sql, &i);
  if (WordAt(sql, i) == "WITH") {
    i += 4;
    SkipSpaces(sql, &i);
  }
  std::string options;
  if (i < sql.size() && sql[i] == '(') {
    size_t end = MatchParen(sql, i);
    if (end == std::string::npos) return Status::Invalid("COPY: unbalanced parentheses");
    options = sql.substr(i + 1, end - i - 2);
    i = end;
  } else {
    options = sql.substr(i);  // the old forms: BINARY, CSV
    i = sql.size();
  }
  SkipSpaces(sql, &i);
  while (i < sql.size() && (sql[i] == ';' || IsSpace(sql[i]))) ++i;
  if (i != sql.size()) return Status::Invalid("COPY: unexpected text after the options");
  std::string upper;
  for (char c : options) {
    if (c != '"' && c != '\'') upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  size_t o = 0;
  SkipSpaces(upper, &o);
  std::string word = WordAt(upper, o);
  if (word == "FORMAT") {
    o += 6;
    SkipSpaces(upper, &o);
    word = WordAt(upper, o);
    o += word.size();
  } else if (!word.empty()) {
    o += word.size();
  }
  SkipSpaces(upper, &o);
  if (o != upper.size()) return unsupported("with options other than FORMAT");
  if (word == "BINARY") {
    out.format = CopyFormat::kBinary;
  } else if (word == "TEXT" || word.empty()) {
    out.format = CopyFormat::kText;
  } else {
    return unsupported("FORMAT " + word);
  }
  return std::optional<CopyOut>(std::move(out));
}

std::string CopyTextEscape(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

}  // namespace floe::server
