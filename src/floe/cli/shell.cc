#include "floe/cli/shell.h"

#include <cctype>

#include <arrow/table.h>

namespace floe::cli {

namespace {

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

bool IsQuitCommand(std::string_view line) {
  std::string t = Trim(line);
  while (!t.empty() && t.back() == ';') t.pop_back();
  t = Trim(t);
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return t == "quit" || t == "exit" || t == "\\q";
}

// History keeps one line per statement.
std::string HistoryEntry(const std::string& statement) {
  std::string entry;
  for (char c : statement) entry.push_back(c == '\n' || c == '\r' ? ' ' : c);
  return entry + ";";
}

}  // namespace

Shell::Shell(Executor executor, ShellOptions options, std::ostream& out, std::ostream& err)
    : executor_(std::move(executor)), options_(options), out_(out), err_(err) {}

sql::ValueText Shell::CurrentValueText() const {
  std::string zone = executor_.time_zone ? executor_.time_zone() : std::string();
  Result<sql::ValueText> text = sql::ValueText::Make(zone);
  // The session checks zones when they are set; an unknown one here falls back to UTC.
  return text.ok() ? *text : sql::ValueText();
}

bool Shell::RunStatement(const std::string& sql, const std::string& location) {
  Result<sql::StatementResult> result = executor_.execute(sql);
  if (!result.ok()) {
    err_ << "Error: " << result.status().message() << "\n";
    if (!location.empty()) err_ << "  at " << location << "\n";
    err_.flush();
    return false;
  }
  if (result->rows) {
    out_ << FormatRows(*result->rows, CurrentValueText(), options_.format);
    out_.flush();
  } else if (!options_.quiet && !result->message.empty()) {
    err_ << result->message << "\n";
    err_.flush();
  }
  return true;
}

bool Shell::RunScript(std::string_view script, const std::string& source) {
  bool all_ok = true;
  for (const sql::StatementSpan& statement : sql::SplitStatements(script)) {
    std::string location =
        source.empty() ? std::string() : source + ":" + std::to_string(statement.pos.line);
    if (!RunStatement(statement.text, location)) {
      all_ok = false;
      if (!options_.continue_on_error) return false;
    }
  }
  return all_ok;
}

bool Shell::RunInteractive(LineReader& reader) {
  bool all_ok = true;
  sql::StatementSplitter splitter;
  while (true) {
    bool continuing = splitter.HasPendingStatement() || splitter.InsideQuoteOrComment();
    std::optional<std::string> line = reader.ReadLine(continuing ? kContinuationPrompt : kPrompt);
    if (!line) break;
    if (!continuing && IsQuitCommand(*line)) break;
    splitter.Feed(*line);
    splitter.Feed("\n");
    for (const sql::StatementSpan& statement : splitter.TakeStatements()) {
      reader.AddHistory(HistoryEntry(statement.text));
      if (!RunStatement(statement.text)) all_ok = false;
    }
  }
  // A statement left without its ';' at the end of input (Ctrl-D) is dropped, not run:
  // the user never finished it.
  return all_ok;
}

}  // namespace floe::cli
