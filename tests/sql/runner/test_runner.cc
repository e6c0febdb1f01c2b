#include "sql/runner/test_runner.h"

#include <algorithm>
#include <map>
#include <sstream>

#include <arrow/array.h>
#include <arrow/chunked_array.h>
#include <arrow/extension_type.h>
#include <arrow/table.h>
#include <arrow/type.h>

namespace floe::sqltest {

namespace {

const arrow::DataType& ValueType(const arrow::DataType& type) {
  if (type.id() == arrow::Type::EXTENSION) {
    return *static_cast<const arrow::ExtensionType&>(type).storage_type();
  }
  if (type.id() == arrow::Type::DICTIONARY) {
    return *static_cast<const arrow::DictionaryType&>(type).value_type();
  }
  return type;
}

std::string JoinRow(const std::vector<std::string>& row) {
  std::string line;
  for (size_t k = 0; k < row.size(); ++k) {
    if (k > 0) line.push_back('\t');
    line += row[k];
  }
  return line;
}

void AppendIndented(const std::vector<std::vector<std::string>>& rows, std::ostringstream* out) {
  if (rows.empty()) *out << "  (no rows)\n";
  for (const auto& row : rows) *out << "  " << JoinRow(row) << "\n";
}

std::string Indent(const std::string& text) {
  std::string out = "  ";
  for (char c : text) {
    out.push_back(c);
    if (c == '\n') out += "  ";
  }
  return out;
}

const char* SortName(SortMode mode) {
  switch (mode) {
    case SortMode::kNoSort:
      return "nosort";
    case SortMode::kRowSort:
      return "rowsort";
    case SortMode::kValueSort:
      return "valuesort";
  }
  return "";
}

sql::ValueText SessionValueText(const cli::Executor& executor) {
  std::string zone = executor.time_zone ? executor.time_zone() : std::string();
  Result<sql::ValueText> text = sql::ValueText::Make(zone);
  return text.ok() ? *text : sql::ValueText();
}

}  // namespace

std::string ValueForComparison(const arrow::Array& array, int64_t i, const sql::ValueText& text) {
  std::string value = sql::EscapeMetaCharacters(text.Format(array, i));
  if (value.empty()) return "(empty)";
  return value;
}

std::vector<std::vector<std::string>> ResultValues(const arrow::Table& rows,
                                                   const sql::ValueText& text) {
  std::vector<std::vector<std::string>> out(static_cast<size_t>(rows.num_rows()),
                                            std::vector<std::string>(rows.num_columns()));
  for (int c = 0; c < rows.num_columns(); ++c) {
    size_t r = 0;
    for (const auto& chunk : rows.column(c)->chunks()) {
      for (int64_t i = 0; i < chunk->length(); ++i) {
        out[r++][static_cast<size_t>(c)] = ValueForComparison(*chunk, i, text);
      }
    }
  }
  return out;
}

std::vector<std::vector<std::string>> ExpectedValues(const std::vector<std::string>& lines) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : lines) {
    std::vector<std::string> values;
    size_t start = 0;
    while (true) {
      size_t tab = line.find('\t', start);
      values.push_back(
          line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    rows.push_back(std::move(values));
  }
  return rows;
}

std::vector<std::vector<std::string>> SortForComparison(std::vector<std::vector<std::string>> rows,
                                                        SortMode mode) {
  switch (mode) {
    case SortMode::kNoSort:
      return rows;
    case SortMode::kRowSort:
      std::sort(rows.begin(), rows.end());
      return rows;
    case SortMode::kValueSort: {
      std::vector<std::string> values;
      for (auto& row : rows) {
        for (auto& v : row) values.push_back(std::move(v));
      }
      std::sort(values.begin(), values.end());
      std::vector<std::vector<std::string>> out;
      for (auto& v : values) out.push_back({std::move(v)});
      return out;
    }
  }
  return rows;
}

std::string CheckColumnTypes(const std::string& letters, const arrow::Schema& schema) {
  if (static_cast<int>(letters.size()) != schema.num_fields()) {
    return "expected " + std::to_string(letters.size()) + " column(s) (" + letters + "), got " +
           std::to_string(schema.num_fields()) + ": " + schema.ToString();
  }
  for (int c = 0; c < schema.num_fields(); ++c) {
    const arrow::DataType& type = ValueType(*schema.field(c)->type());
    char letter = letters[static_cast<size_t>(c)];
    bool ok = true;
    if (letter == 'I') ok = arrow::is_integer(type.id());
    if (letter == 'R') ok = arrow::is_floating(type.id()) || arrow::is_decimal(type.id());
    if (!ok) {
      return std::string("column ") + std::to_string(c + 1) + " (" + schema.field(c)->name() +
             ") is " + type.ToString() + ", but the type letter is " + letter;
    }
  }
  return {};
}

Result<std::string> SubstituteVariables(std::string_view text, const Variables& variables) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t open = text.find("${", i);
    if (open == std::string_view::npos) break;
    size_t close = text.find('}', open + 2);
    std::string_view name =
        close == std::string_view::npos ? std::string_view() : text.substr(open + 2, close - open - 2);
    if (!IsVariableName(name)) {
      // Not a variable reference: keep the text as written.
      out += text.substr(i, open + 2 - i);
      i = open + 2;
      continue;
    }
    auto it = variables.find(name);
    if (it == variables.end()) {
      return Status::Invalid("unknown variable ${", name, "}: no 'let ", name,
                             "' record before this one set it");
    }
    out += text.substr(i, open - i);
    out += it->second;
    i = close + 1;
  }
  if (i < text.size()) out += text.substr(i);
  return out;
}

namespace {

// The record with every ${name} replaced, or the first unknown variable.
Result<Record> Substituted(const Record& record, const Variables& variables) {
  Record out = record;
  ARROW_ASSIGN_OR_RAISE(out.sql, SubstituteVariables(record.sql, variables));
  for (std::string& e : out.expected_errors) {
    ARROW_ASSIGN_OR_RAISE(e, SubstituteVariables(e, variables));
  }
  for (std::string& line : out.expected_lines) {
    ARROW_ASSIGN_OR_RAISE(line, SubstituteVariables(line, variables));
  }
  return out;
}

}  // namespace

RecordOutcome RunRecord(const Record& original, const cli::Executor& executor,
                        Variables* variables) {
  RecordOutcome outcome;
  Result<Record> substituted = Substituted(original, *variables);
  if (!substituted.ok()) {
    outcome.failure = substituted.status().message() + "\n";
    return outcome;
  }
  const Record& record = *substituted;
  Result<sql::StatementResult> result = executor.execute(record.sql);
  std::ostringstream why;
  switch (record.kind) {
    case RecordKind::kLet: {
      std::string names;
      for (const std::string& name : record.variables) names += (names.empty() ? "" : " ") + name;
      const int64_t columns = static_cast<int64_t>(record.variables.size());
      if (!result.ok()) {
        why << "let " << names << ": statement failed: " << result.status().message() << "\n";
        outcome.failure = why.str();
        return outcome;
      }
      if (!result->rows || result->rows->num_rows() != 1 ||
          result->rows->num_columns() != columns) {
        why << "let " << names << ": the statement must return one row with " << columns
            << " column(s), got ";
        if (!result->rows) {
          why << "no result set\n";
        } else {
          why << result->rows->num_rows() << " row(s) with " << result->rows->num_columns()
              << " column(s)\n";
        }
        outcome.failure = why.str();
        return outcome;
      }
      std::vector<std::string> row = ResultValues(*result->rows, SessionValueText(executor))[0];
      for (size_t c = 0; c < row.size(); ++c) {
        if (row[c] == "NULL") {
          why << "let " << names << ": " << record.variables[c] << " would be NULL\n";
          outcome.failure = why.str();
          return outcome;
        }
      }
      for (size_t c = 0; c < row.size(); ++c) (*variables)[record.variables[c]] = row[c];
      break;
    }
    case RecordKind::kStatementOk:
      if (!result.ok()) {
        why << "statement failed: " << result.status().message() << "\n";
        outcome.failure = why.str();
        return outcome;
      }
      break;
    case RecordKind::kStatementError: {
      if (result.ok()) {
        why << "statement succeeded, but an error was expected";
        if (!record.expected_errors.empty()) why << " containing:\n";
        for (const auto& e : record.expected_errors) why << Indent(e) << "\n";
        if (record.expected_errors.empty()) why << "\n";
        outcome.failure = why.str();
        return outcome;
      }
      const std::string& message = result.status().message();
      for (const auto& expected : record.expected_errors) {
        if (message.find(expected) == std::string::npos) {
          why << "error message does not contain the expected text\nExpected to contain:\n"
              << Indent(expected) << "\nActual error:\n"
              << Indent(message) << "\n";
          outcome.failure = why.str();
          return outcome;
        }
      }
      break;
    }
    case RecordKind::kQuery: {
      if (!result.ok()) {
        why << "query failed: " << result.status().message() << "\n";
        outcome.failure = why.str();
        return outcome;
      }
      if (!result->rows) {
        why << "statement returned no result set\n";
        outcome.failure = why.str();
        return outcome;
      }
      std::string type_problem = CheckColumnTypes(record.column_types, *result->rows->schema());
      if (!type_problem.empty()) {
        why << type_problem << "\n";
        outcome.failure = why.str();
        return outcome;
      }
      std::vector<std::vector<std::string>> actual =
          SortForComparison(ResultValues(*result->rows, SessionValueText(executor)), record.sort);
      std::vector<std::vector<std::string>> expected =
          SortForComparison(ExpectedValues(record.expected_lines), record.sort);
      if (actual != expected) {
        why << "wrong result (" << SortName(record.sort) << ")\nExpected:\n";
        AppendIndented(expected, &why);
        why << "Actual:\n";
        AppendIndented(actual, &why);
        outcome.failure = why.str();
        return outcome;
      }
      break;
    }
  }
  outcome.passed = true;
  return outcome;
}

FileSummary RunTestFile(const TestFile& file, const cli::Executor& executor, std::ostream& out,
                        const Connector& connect) {
  FileSummary summary;
  Variables variables;
  std::map<std::string, cli::Executor> connections;
  for (const Record& record : file.records) {
    RecordOutcome outcome;
    const cli::Executor* runs = &executor;
    if (!record.connection.empty()) {
      auto found = connections.find(record.connection);
      if (found == connections.end() && connect) {
        auto opened = connect(record.connection);
        if (opened.ok()) found = connections.emplace(record.connection, *opened).first;
        else outcome.failure = "cannot open connection " + record.connection + ": " +
                               opened.status().message() + "\n";
      } else if (found == connections.end()) {
        outcome.failure = "connection " + record.connection + " cannot be opened here\n";
      }
      runs = found == connections.end() ? nullptr : &found->second;
    }
    if (runs) outcome = RunRecord(record, *runs, &variables);
    if (outcome.passed) {
      ++summary.passed;
      continue;
    }
    ++summary.failed;
    out << file.path << ":" << record.line << ": " << outcome.failure << "SQL:\n"
        << Indent(record.sql) << "\n\n";
  }
  out.flush();
  return summary;
}

}  // namespace floe::sqltest
