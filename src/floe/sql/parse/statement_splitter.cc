#include "floe/sql/parse/statement_splitter.h"

namespace floe::sql {

namespace {

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

// Lines and columns as the lexer counts them: columns in UTF-8 characters.
void StatementSplitter::Advance(std::string_view consumed) {
  for (char c : consumed) {
    if (c == '\n') {
      ++here_.line;
      here_.column = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++here_.column;
    }
    ++here_.offset;
  }
}

void StatementSplitter::Emit() {
  current_.resize(current_end_);
  if (!current_.empty()) done_.push_back({std::move(current_), current_pos_});
  current_.clear();
  current_end_ = 0;
}

void StatementSplitter::Feed(std::string_view text) {
  std::string input;
  if (pending_ != 0) {
    input.push_back(pending_);
    pending_ = 0;
  }
  input.append(text);
  Process(input, /*final=*/false);
}

void StatementSplitter::Process(std::string_view input, bool final) {
  for (size_t i = 0; i < input.size(); ++i) {
    const size_t start = i;
    const char c = input[i];
    // A last '-', '/' or '*' may pair with the next chunk's first character: keep it.
    if (!final && i + 1 == input.size() && (c == '-' || c == '/' || c == '*')) {
      pending_ = c;
      break;
    }
    const char next = i + 1 < input.size() ? input[i + 1] : '\0';
    const SourcePos at = here_;
    // Part of a token: starts the statement if it is the first.
    auto token = [&](char k) {
      if (current_.empty()) current_pos_ = at;
      current_.push_back(k);
      current_end_ = current_.size();
    };
    // Blanks and comments inside a statement stay in its text; leading ones are dropped,
    // trailing ones cut off when it ends.
    auto keep = [&](char k) {
      if (!current_.empty()) current_.push_back(k);
    };
    switch (state_) {
      case State::kCode:
        if (c == '\'' || c == '"' || c == '`') {
          state_ = c == '\'' ? State::kSingle : c == '"' ? State::kDouble : State::kBack;
          token(c);
        } else if (c == '-' && next == '-') {
          state_ = State::kLineComment;
          keep(c);
          keep(next);
          ++i;
        } else if (c == '/' && next == '*') {
          state_ = State::kBlockComment;
          comment_depth_ = 1;
          keep(c);
          keep(next);
          ++i;
        } else if (c == ';') {
          Emit();
        } else if (IsBlank(c)) {
          keep(c);
        } else {
          token(c);
        }
        break;
      case State::kSingle:
      case State::kDouble:
        token(c);
        if (escape_next_) {
          escape_next_ = false;
        } else if (c == '\\') {
          escape_next_ = true;
        } else if (c == (state_ == State::kSingle ? '\'' : '"')) {
          state_ = State::kCode;  // a doubled quote re-enters at once
        }
        break;
      case State::kBack:
        token(c);
        if (c == '`') state_ = State::kCode;
        break;
      case State::kLineComment:
        keep(c);
        if (c == '\n') state_ = State::kCode;
        break;
      case State::kBlockComment:
        keep(c);
        if (c == '*' && next == '/') {
          keep(next);
          ++i;
          if (--comment_depth_ == 0) state_ = State::kCode;
        } else if (c == '/' && next == '*') {
          keep(next);
          ++i;
          ++comment_depth_;
        }
        break;
    }
    Advance(input.substr(start, i - start + 1));
  }
}

std::vector<StatementSpan> StatementSplitter::TakeStatements() {
  std::vector<StatementSpan> out = std::move(done_);
  done_.clear();
  return out;
}

bool StatementSplitter::InsideQuoteOrComment() const {
  return state_ == State::kSingle || state_ == State::kDouble || state_ == State::kBack ||
         state_ == State::kBlockComment;
}

bool StatementSplitter::TakeRest(StatementSpan* statement) {
  if (pending_ != 0) {
    // Nothing follows, so it neither starts nor ends a comment.
    std::string last(1, pending_);
    pending_ = 0;
    Process(last, /*final=*/true);
  }
  size_t before = done_.size();
  Emit();
  state_ = State::kCode;
  escape_next_ = false;
  comment_depth_ = 0;
  if (done_.size() == before) return false;
  *statement = std::move(done_.back());
  done_.pop_back();
  return true;
}

void StatementSplitter::Reset() {
  state_ = State::kCode;
  escape_next_ = false;
  comment_depth_ = 0;
  pending_ = 0;
  current_.clear();
  current_end_ = 0;
  done_.clear();
}

std::vector<StatementSpan> SplitStatements(std::string_view script) {
  StatementSplitter splitter;
  splitter.Feed(script);
  std::vector<StatementSpan> out = splitter.TakeStatements();
  StatementSpan last;
  if (splitter.TakeRest(&last)) out.push_back(std::move(last));
  return out;
}

}  // namespace floe::sql
