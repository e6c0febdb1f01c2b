#pragma once

// Cuts SQL text into statements at semicolons, the way floe's lexer reads the text: a ';'
// inside 'strings' (with Spark's backslash escapes and doubled quotes), "double quoted"
// text, `backquoted` names, -- comments or nested /* */ comments does not end a statement.
// Text may arrive a line at a time (the interactive shell) or all at once (-c, -f).

#include <string>
#include <string_view>
#include <vector>

namespace floe::cli {

struct SqlStatement {
  std::string text;  // without the ';', leading comments and surrounding blanks
  int line = 1;      // line of the input where the statement's first token starts
};

class StatementSplitter {
 public:
  // Adds text; lines fed one by one must keep their '\n'.
  void Feed(std::string_view text);

  // The statements completed so far (removed from the splitter). Empty statements (";;")
  // are skipped.
  std::vector<SqlStatement> TakeStatements();

  // Whether text after the last ';' holds anything but blanks and comments.
  bool HasPendingStatement() const { return !current_.empty(); }
  // Whether the input ends inside a string, quoted name or block comment.
  bool InsideQuoteOrComment() const;

  // The unterminated last statement, if any (a script's last statement needs no ';').
  // Clears it.
  bool TakeRest(SqlStatement* statement);

  // Drops any partial statement and state (the shell after an interrupted line).
  void Reset();

 private:
  enum class State { kCode, kSingle, kDouble, kBack, kLineComment, kBlockComment };

  State state_ = State::kCode;
  bool escape_next_ = false;  // after a backslash inside a string
  int comment_depth_ = 0;
  int line_ = 1;
  char pending_ = 0;  // a '-' or '/' or '*' that may start or end a comment
  std::string current_;
  int current_line_ = 1;
  std::vector<SqlStatement> done_;

  void Emit();
  // Reads input; unless `final`, a last character that may start or end a comment waits.
  void Process(std::string_view input, bool final);
  void Append(char c);
};

// All statements of a script, including a last one without ';'.
std::vector<SqlStatement> SplitStatements(std::string_view script);

}  // namespace floe::cli
