#pragma once

// Query results as text: Spark's show() table, CSV, JSON Lines and GitHub markdown. Every
// value goes through sql::ValueText, so the four formats and the SQL test runner agree on how a
// value reads.

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/sql/types/value_text.h"
#include "floe/util/json_writer.h"
#include "floe/util/status.h"

namespace floe::cli {

enum class OutputFormat { kTable, kCsv, kJson, kMarkdown };

// "table", "csv", "json" or "markdown" (any case).
Result<OutputFormat> ParseOutputFormat(std::string_view name);

struct FormatOptions {
  OutputFormat format = OutputFormat::kTable;
  // table: rows shown before Spark's "only showing top N rows" footer; <= 0 shows all.
  int64_t max_rows = 0;
  // table: cells longer than this many characters keep truncate - 3 and get "..." and are
  // right-aligned; 0 keeps whole cells, left-aligned (show(truncate = false)).
  int64_t truncate = 20;
};

// The text of the first `limit` rows (all when limit < 0), row by row, one string per
// cell as sql::ValueText renders it (NULL for nulls). No escaping or truncation.
std::vector<std::vector<std::string>> RenderRows(const arrow::Table& rows, const sql::ValueText& text,
                                                 int64_t limit = -1);

// Exactly what Spark's Dataset.showString(num_rows, truncate) returns, footer included.
// num_rows <= 0 shows every row.
std::string ShowString(const arrow::Table& rows, const sql::ValueText& text, int64_t num_rows = 20,
                       int64_t truncate = 20);

// A header line, then one line per row; fields quoted as RFC 4180 asks (when they hold a
// comma, a double quote, CR or LF; quotes doubled). NULL is an empty field, an empty
// string is "".
std::string CsvString(const arrow::Table& rows, const sql::ValueText& text);

// One JSON object per row and line (JSON Lines), keys in column order. Numbers, booleans
// and nulls are typed; decimals are exact numbers; NaN and infinities, dates, timestamps
// and times are strings as sql::ValueText shows them; binary is base64; arrays are arrays,
// structs objects and maps objects keyed by the key's text.
std::string JsonLinesString(const arrow::Table& rows, const sql::ValueText& text);

// The rows of `rows` in order, each as the object JsonLinesString prints for it, written into
// a JsonWriter of any style (`floe diff --json` puts them in its samples). `rows` and `text`
// must outlive it.
class JsonRowWriter {
 public:
  JsonRowWriter(const arrow::Table& rows, const sql::ValueText& text);

  // Writes the next row as one object; false, writing nothing, after the last row.
  bool WriteNext(JsonWriter* json);

 private:
  struct Column {
    const arrow::ChunkedArray* values;
    int chunk = 0;
    int64_t index = 0;  // within the chunk
  };
  const sql::ValueText& text_;
  std::vector<std::string> names_;
  std::vector<Column> columns_;
  int64_t remaining_;
};

// A GitHub table: numbers right-aligned, '|' escaped, cells padded to a common width.
std::string MarkdownString(const arrow::Table& rows, const sql::ValueText& text);

// Dispatches on options.format.
std::string FormatRows(const arrow::Table& rows, const sql::ValueText& text,
                       const FormatOptions& options);

}  // namespace floe::cli
