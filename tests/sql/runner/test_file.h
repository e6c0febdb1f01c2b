#pragma once

// The golden SQL test format (sqllogictest as DuckDB writes it); README.md beside this
// file describes it.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "floe/util/status.h"

namespace floe::sqltest {

enum class RecordKind { kStatementOk, kStatementError, kQuery, kLet };
enum class SortMode { kNoSort, kRowSort, kValueSort };

struct Record {
  RecordKind kind = RecordKind::kStatementOk;
  int line = 0;     // the header line ("statement ok", "query I"), 1-based
  std::string sql;  // the statement, lines joined with '\n'
  // The session that runs it: "" for the file's own, else one named by a `connection NAME`
  // line before it (another session over the same catalog, opened at first use).
  std::string connection;

  // let: the names that keep the values of the statement's single row, one per column, for
  // later records' ${name}.
  std::vector<std::string> variables;

  // statement error: substrings the error message must contain (from the header line and
  // from the lines after ----); none means any error will do.
  std::vector<std::string> expected_errors;

  // query: one letter per column (I integer, R floating point or decimal, anything else
  // any type), the sort mode, and the expected rows (values separated by tabs).
  std::string column_types;
  SortMode sort = SortMode::kNoSort;
  std::vector<std::string> expected_lines;
};

// Values kept by `let` records, by name, as the expected rows would write them.
using Variables = std::map<std::string, std::string, std::less<>>;

struct TestFile {
  std::string path;
  std::vector<Record> records;
};

// A `let` name and what ${...} may hold: letters, digits and '_', not starting with a digit.
bool IsVariableName(std::string_view name);

// Errors read "<path>:<line>: <what is wrong>".
Result<TestFile> ParseTestFile(std::string_view text, const std::string& path);

}  // namespace floe::sqltest
