#pragma once

// Runs the records of a golden SQL file through an executor and compares what comes back.

#include <ostream>
#include <functional>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/cli/shell.h"
#include "floe/sql/types/value_text.h"
#include "sql/runner/test_file.h"

namespace floe::sqltest {

// A value as the expected rows write it: sql::ValueText's text with Spark's meta-character
// escapes (\t, \n, ...), and "(empty)" for an empty string.
std::string ValueForComparison(const arrow::Array& array, int64_t i, const sql::ValueText& text);

// The rows of a result, one vector of values per row.
std::vector<std::vector<std::string>> ResultValues(const arrow::Table& rows,
                                                   const sql::ValueText& text);

// Splits expected lines on tabs.
std::vector<std::vector<std::string>> ExpectedValues(const std::vector<std::string>& lines);

// Puts rows in the order the sort mode compares them: as they are, sorted rows, or every
// value sorted on its own (one value per row).
std::vector<std::vector<std::string>> SortForComparison(std::vector<std::vector<std::string>> rows,
                                                        SortMode mode);

// Checks column count and the I / R type letters against the result's schema; an empty
// string when they agree, else what is wrong.
std::string CheckColumnTypes(const std::string& letters, const arrow::Schema& schema);

struct RecordOutcome {
  bool passed = false;
  std::string failure;  // what went wrong, several lines, when !passed
};

// Replaces each ${name} in `text` with the variable's value; an error names the first
// variable no `let` has set.
Result<std::string> SubstituteVariables(std::string_view text, const Variables& variables);

// Runs one record after substituting variables in its SQL, expected errors and rows; a
// `let` record stores its value in `variables`.
RecordOutcome RunRecord(const Record& record, const cli::Executor& executor,
                        Variables* variables);

struct FileSummary {
  int passed = 0;
  int failed = 0;
};

// Runs every record in order (variables live for the file), printing each failure as "<path>:<line>: ..." with the SQL
// and the expected and actual results. A failure does not stop the file.
// `connect` opens the session a `connection NAME` line names (once per name and file); without
// it such records fail.
using Connector = std::function<Result<cli::Executor>(const std::string& name)>;
FileSummary RunTestFile(const TestFile& file, const cli::Executor& executor, std::ostream& out,
                        const Connector& connect = nullptr);

}  // namespace floe::sqltest
