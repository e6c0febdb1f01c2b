#include "floe/sql/execute/show_functions.h"

#include <regex>

#include <arrow/builder.h>
#include <arrow/table.h>

#include "floe/sql/functions/function_registry.h"
#include "floe/sql/parse/parse_error.h"

namespace floe::sql {

namespace {

Result<StatementResult> OneColumn(const std::string& name, const std::vector<std::string>& values) {
  arrow::StringBuilder builder;
  ARROW_RETURN_NOT_OK(builder.AppendValues(values));
  ARROW_ASSIGN_OR_RAISE(auto array, builder.Finish());
  StatementResult result;
  result.rows = arrow::Table::Make(arrow::schema({arrow::field(name, arrow::utf8(), false)}), {array});
  return result;
}

// Spark's listing pattern: alternatives split by '|', '*' for any text, matched against the
// whole name without regard to case; an alternative that is no valid pattern matches nothing.
bool MatchesPattern(const std::string& name, const std::string& pattern) {
  size_t first = pattern.find_first_not_of(" \t\r\n");
  size_t last = pattern.find_last_not_of(" \t\r\n");
  std::string trimmed = first == std::string::npos ? "" : pattern.substr(first, last - first + 1);
  size_t start = 0;
  while (start <= trimmed.size()) {
    size_t bar = trimmed.find('|', start);
    if (bar == std::string::npos) bar = trimmed.size();
    std::string alternative;
    for (char c : trimmed.substr(start, bar - start)) alternative += c == '*' ? std::string(".*") : std::string(1, c);
    try {
      if (std::regex_match(name, std::regex(alternative, std::regex::icase))) return true;
    } catch (const std::regex_error&) {
    }
    start = bar + 1;
  }
  return false;
}

}  // namespace

Result<StatementResult> RunShowFunctions(const ShowFunctions& show) {
  std::vector<std::string> names;
  // floe has no user-defined functions: USER lists nothing.
  if (show.scope != FunctionScope::kUser) {
    for (const auto& name : AllFunctionNames()) {
      if (!show.pattern || MatchesPattern(name, *show.pattern)) names.push_back(name);
    }
  }
  return OneColumn("function", names);
}

Result<StatementResult> RunDescribeFunction(const DescribeFunction& describe, const std::string& sql) {
  std::string written;
  for (const auto& part : describe.name.parts) written += (written.empty() ? "" : ".") + part.name;
  std::string name = Lower(written);
  const FunctionDoc* doc = FindFunctionDoc(name);
  if (!doc) return ErrorAt(sql, describe.name.pos, UnresolvedRoutineMessage(written));
  std::vector<std::string> rows = {"Function: " + name, "Class: " + doc->class_name, "Usage: " + doc->Usage(name)};
  if (describe.extended) rows.push_back("Extended Usage:" + doc->Extended(name));
  return OneColumn("function_desc", rows);
}

}  // namespace floe::sql
