#pragma once

// Cuts SQL text into statements at semicolons. It follows the lexer's rules for where
// strings, quoted names and comments start and end: a ';' inside 'strings' (with Spark's
// backslash escapes and doubled quotes), "double quoted" text, `backquoted` names, -- comments
// or nested /* */ comments does not end a statement. Other lexical errors belong to the
// statement they are in and are reported when it is parsed, so one bad statement does not
// stop the ones before it. Text may arrive a line at a time (the interactive shell) or all at
// once (scripts).

#include <string>
#include <string_view>
#include <vector>

#include "floe/sql/parse/token.h"

namespace floe::sql {

struct StatementSpan {
  // From the statement's first token to its last: no ';', no leading or trailing blanks
  // or comments.
  std::string text;
  SourcePos pos;  // where the first token starts in all the text fed so far
};

class StatementSplitter {
 public:
  // Adds text; lines fed one by one must keep their '\n'.
  void Feed(std::string_view text);

  // The statements completed so far (removed from the splitter). Empty statements (";;")
  // are skipped.
  std::vector<StatementSpan> TakeStatements();

  // Whether text after the last ';' holds anything but blanks and comments.
  bool HasPendingStatement() const { return !current_.empty(); }
  // Whether the input ends inside a string, quoted name or block comment.
  bool InsideQuoteOrComment() const;

  // The unterminated last statement, if any (a script's last statement needs no ';').
  // Clears it.
  bool TakeRest(StatementSpan* statement);

  // Drops any partial statement and state (the shell after an interrupted line).
  void Reset();

 private:
  enum class State { kCode, kSingle, kDouble, kBack, kLineComment, kBlockComment };

  State state_ = State::kCode;
  bool escape_next_ = false;  // after a backslash inside a string
  int comment_depth_ = 0;
  SourcePos here_{1, 1, 0};  // position of the next character to read
  char pending_ = 0;         // a '-' or '/' or '*' that may start or end a comment
  std::string current_;
  size_t current_end_ = 0;  // length of current_ up to the end of its last token
  SourcePos current_pos_;
  std::vector<StatementSpan> done_;

  void Emit();
  // Reads input; unless `final`, a last character that may start or end a comment waits.
  void Process(std::string_view input, bool final);
  void Advance(std::string_view consumed);
};

// All statements of a script, including a last one without ';'.
std::vector<StatementSpan> SplitStatements(std::string_view script);

}  // namespace floe::sql
