#include "sql/runner/test_file.h"

#include <cctype>
#include <sstream>

namespace floe::sqltest {

namespace {

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  // A final newline does not start another line.
  if (!lines.empty() && lines.back().empty() && !text.empty() && text.back() == '\n') {
    lines.pop_back();
  }
  return lines;
}

bool IsBlank(std::string_view line) {
  for (char c : line) {
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::vector<std::string> Words(std::string_view line) {
  std::vector<std::string> words;
  std::istringstream in{std::string(line)};
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

// The text after the first `n` words of `line`, trimmed.
std::string AfterWords(std::string_view line, size_t n) {
  size_t i = 0;
  for (size_t k = 0; k < n; ++k) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
  }
  while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
  size_t e = line.size();
  while (e > i && std::isspace(static_cast<unsigned char>(line[e - 1]))) --e;
  return std::string(line.substr(i, e - i));
}

}  // namespace

bool IsVariableName(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

Result<TestFile> ParseTestFile(std::string_view text, const std::string& path) {
  TestFile file;
  file.path = path;
  std::vector<std::string> lines = SplitLines(text);
  auto fail = [&](size_t index, const std::string& what) {
    return Status::Invalid(path, ":", index + 1, ": ", what);
  };

  size_t i = 0;
  std::string connection;
  while (i < lines.size()) {
    const std::string& header = lines[i];
    if (IsBlank(header) || header[0] == '#') {
      ++i;
      continue;
    }
    std::vector<std::string> words = Words(header);
    if (words[0] == "connection") {
      if (words.size() != 2 || !IsVariableName(words[1])) {
        return fail(i, "'connection' needs one name (letters, digits and _), e.g. 'connection other'");
      }
      connection = words[1] == "default" ? "" : words[1];
      ++i;
      continue;
    }
    Record record;
    record.line = static_cast<int>(i + 1);
    record.connection = connection;
    if (words[0] == "statement") {
      if (words.size() >= 2 && words[1] == "ok") {
        if (words.size() > 2) return fail(i, "unexpected text after 'statement ok'");
        record.kind = RecordKind::kStatementOk;
      } else if (words.size() >= 2 && words[1] == "error") {
        record.kind = RecordKind::kStatementError;
        std::string expected = AfterWords(header, 2);
        if (!expected.empty()) record.expected_errors.push_back(expected);
      } else {
        return fail(i, "expected 'statement ok' or 'statement error', got '" + header + "'");
      }
    } else if (words[0] == "query") {
      record.kind = RecordKind::kQuery;
      if (words.size() < 2) return fail(i, "'query' needs column type letters, e.g. 'query IT'");
      record.column_types = words[1];
      for (char c : record.column_types) {
        if (!std::isupper(static_cast<unsigned char>(c))) {
          return fail(i, "column types must be capital letters (I, R, T, ...), got '" +
                             record.column_types + "'");
        }
      }
      if (words.size() >= 3) {
        if (words[2] == "nosort") {
          record.sort = SortMode::kNoSort;
        } else if (words[2] == "rowsort") {
          record.sort = SortMode::kRowSort;
        } else if (words[2] == "valuesort") {
          record.sort = SortMode::kValueSort;
        } else {
          return fail(
              i, "unknown sort mode '" + words[2] + "'; expected nosort, rowsort or valuesort");
        }
      }
      if (words.size() > 3) return fail(i, "unexpected text after the sort mode");
    } else if (words[0] == "let") {
      record.kind = RecordKind::kLet;
      if (words.size() < 2) return fail(i, "'let' needs variable names, e.g. 'let good'");
      for (size_t w = 1; w < words.size(); ++w) {
        if (!IsVariableName(words[w])) {
          return fail(i, "'" + words[w] + "' is not a variable name (letters, digits and _)");
        }
        record.variables.push_back(words[w]);
      }
    } else {
      return fail(i, "unknown record '" + words[0] + "'; expected statement, query or let");
    }

    // The SQL: up to ----, a blank line or the end.
    ++i;
    std::string sql;
    while (i < lines.size() && !IsBlank(lines[i]) && lines[i] != "----") {
      if (!sql.empty()) sql.push_back('\n');
      sql += lines[i];
      ++i;
    }
    if (sql.empty()) return fail(static_cast<size_t>(record.line - 1), "record without SQL");
    record.sql = std::move(sql);
    bool has_separator = i < lines.size() && lines[i] == "----";
    if (has_separator) ++i;

    switch (record.kind) {
      case RecordKind::kStatementOk:
        if (has_separator) return fail(i - 1, "'statement ok' takes no ---- section");
        break;
      case RecordKind::kLet:
        if (has_separator) return fail(i - 1, "'let' takes no ---- section");
        break;
      case RecordKind::kStatementError:
        if (has_separator) {
          std::string message;
          while (i < lines.size() && !IsBlank(lines[i])) {
            if (!message.empty()) message.push_back('\n');
            message += lines[i];
            ++i;
          }
          if (message.empty()) return fail(i - 1, "---- without an expected error message");
          record.expected_errors.push_back(std::move(message));
        }
        break;
      case RecordKind::kQuery:
        if (!has_separator) {
          return fail(static_cast<size_t>(record.line - 1), "query without ---- and expected rows");
        }
        while (i < lines.size() && !IsBlank(lines[i])) {
          record.expected_lines.push_back(lines[i]);
          ++i;
        }
        break;
    }
    file.records.push_back(std::move(record));
  }
  return file;
}

}  // namespace floe::sqltest
