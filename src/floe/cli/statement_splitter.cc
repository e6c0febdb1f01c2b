#include "floe/cli/statement_splitter.h"

namespace floe::cli {

namespace {

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

void StatementSplitter::Append(char c) {
  if (current_.empty()) current_line_ = line_;
  current_.push_back(c);
}

void StatementSplitter::Emit() {
  while (!current_.empty() && IsBlank(current_.back())) current_.pop_back();
  if (!current_.empty()) done_.push_back({std::move(current_), current_line_});
  current_.clear();
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
    char c = input[i];
    // A last '-', '/' or '*' may pair with the next chunk's first character: keep it.
    if (!final && i + 1 == input.size() && (c == '-' || c == '/' || c == '*')) {
      pending_ = c;
      break;
    }
    char next = i + 1 < input.size() ? input[i + 1] : '\0';
    // Comments inside a statement stay in its text; leading ones are dropped.
    auto keep = [&](char k) {
      if (!current_.empty()) current_.push_back(k);
    };
    switch (state_) {
      case State::kCode:
        if (c == '\'' || c == '"' || c == '`') {
          state_ = c == '\'' ? State::kSingle : c == '"' ? State::kDouble : State::kBack;
          Append(c);
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
          Append(c);
        }
        break;
      case State::kSingle:
      case State::kDouble:
        current_.push_back(c);
        if (escape_next_) {
          escape_next_ = false;
        } else if (c == '\\') {
          escape_next_ = true;
        } else if (c == (state_ == State::kSingle ? '\'' : '"')) {
          state_ = State::kCode;  // a doubled quote re-enters at once
        }
        break;
      case State::kBack:
        current_.push_back(c);
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
    if (c == '\n') ++line_;
  }
}

std::vector<SqlStatement> StatementSplitter::TakeStatements() {
  std::vector<SqlStatement> out = std::move(done_);
  done_.clear();
  return out;
}

bool StatementSplitter::InsideQuoteOrComment() const {
  return state_ == State::kSingle || state_ == State::kDouble || state_ == State::kBack ||
         state_ == State::kBlockComment;
}

bool StatementSplitter::TakeRest(SqlStatement* statement) {
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
  done_.clear();
}

std::vector<SqlStatement> SplitStatements(std::string_view script) {
  StatementSplitter splitter;
  splitter.Feed(script);
  std::vector<SqlStatement> out = splitter.TakeStatements();
  SqlStatement last;
  if (splitter.TakeRest(&last)) out.push_back(std::move(last));
  return out;
}

}  // namespace floe::cli
