#pragma once

// The core of `floe sql`: runs statements through an executor and prints what they return.
// It knows nothing of floe::sql::Session beyond its StatementResult, so tests drive it with
// a fake executor; main.cc wires a real Session in (see session_executor.h).

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "floe/cli/result_format.h"
#include "floe/sql/parse/statement_splitter.h"
#include "floe/sql/session.h"
#include "floe/util/status.h"

namespace floe::cli {

struct Executor {
  // Runs one statement (no trailing ';').
  std::function<Result<sql::StatementResult>(const std::string&)> execute;
  // The session time zone that timestamps are shown in; unset or empty means UTC.
  std::function<std::string()> time_zone;
};

// Where the interactive shell gets its lines: libedit on a terminal, a script in tests.
class LineReader {
 public:
  virtual ~LineReader() = default;
  // One line without its newline, or nullopt at the end of input.
  virtual std::optional<std::string> ReadLine(const std::string& prompt) = 0;
  // A statement the user ran, for the history.
  virtual void AddHistory(const std::string& /*entry*/) {}
};

struct ShellOptions {
  FormatOptions format;
  // Keep going after a failed statement (the exit status still reports the failure).
  bool continue_on_error = false;
  // Do not print what DDL and DML statements report ("Created table ...").
  bool quiet = false;
};

// Output rules:
// - rows go to `out` in the chosen format; statements without rows print nothing there;
// - what a statement without rows reports (its message) goes to `err`, unless quiet;
// - a failure prints `Error: <message>` to `err` (for a file, then `  at <file>:<line>`).
class Shell {
 public:
  Shell(Executor executor, ShellOptions options, std::ostream& out, std::ostream& err);

  // Runs one statement and prints its outcome; false when it failed. `location` names it
  // in the error ("script.sql:12"); empty for none.
  bool RunStatement(const std::string& sql, const std::string& location = "");

  // Runs the statements of a script in order; `source` is a file name (used in error
  // locations) or empty for -c text. Stops at the first failure unless continue_on_error.
  // False when any statement failed.
  bool RunScript(std::string_view script, const std::string& source = "");

  // Reads statements line by line until the end of input or `quit`/`exit`/`\q`; failures
  // are reported and the loop goes on. False when any statement failed.
  bool RunInteractive(LineReader& reader);

  bool continues_on_error() const { return options_.continue_on_error; }

  static constexpr const char* kPrompt = "floe> ";
  static constexpr const char* kContinuationPrompt = "   -> ";

 private:
  sql::ValueText CurrentValueText() const;

  Executor executor_;
  ShellOptions options_;
  std::ostream& out_;
  std::ostream& err_;
};

}  // namespace floe::cli
