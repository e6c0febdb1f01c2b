#include "floe/sql/parse/parse_error.h"

#include <algorithm>

namespace floe::sql {

namespace {
bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
}  // namespace

SourcePos PositionAt(std::string_view sql, int32_t offset) {
  SourcePos pos;
  pos.offset = std::clamp<int32_t>(offset, 0, static_cast<int32_t>(sql.size()));
  pos.line = 1;
  pos.column = 1;
  for (int32_t i = 0; i < pos.offset; ++i) {
    if (sql[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else if (!IsContinuationByte(sql[i])) {
      ++pos.column;
    }
  }
  return pos;
}

std::string CaretLines(std::string_view sql, SourcePos pos) {
  size_t offset = std::min<size_t>(pos.offset < 0 ? 0 : pos.offset, sql.size());
  // The line holding `offset`: from just after the newline before it (at offset 0 there is
  // none; searching from npos would find the text's last line).
  size_t begin = offset == 0 ? std::string_view::npos : sql.rfind('\n', offset - 1);
  begin = begin == std::string_view::npos ? 0 : begin + 1;
  size_t end = sql.find('\n', begin);
  if (end == std::string_view::npos) end = sql.size();
  std::string_view line = sql.substr(begin, end - begin);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::string caret;
  for (size_t i = begin; i < offset && i < begin + line.size(); ++i) {
    if (sql[i] == '\t') {
      caret += '\t';
    } else if (!IsContinuationByte(sql[i])) {
      caret += ' ';
    }
  }
  caret += '^';
  std::string out(line);
  out += '\n';
  out += caret;
  return out;
}

namespace {

// Spark's error classes for missing and duplicate objects keep their meaning as kinds.
ErrorKind KindOfMessage(std::string_view message) {
  if (message.empty() || message[0] != '[') return ErrorKind::kValidation;
  size_t end = message.find(']');
  if (end == std::string_view::npos) return ErrorKind::kValidation;
  std::string_view error_class = message.substr(1, end - 1);
  auto ends_with = [&](std::string_view suffix) {
    return error_class.size() >= suffix.size() &&
           error_class.substr(error_class.size() - suffix.size()) == suffix;
  };
  if (ends_with("_NOT_FOUND")) return ErrorKind::kNotFound;
  if (ends_with("_ALREADY_EXISTS")) return ErrorKind::kAlreadyExists;
  return ErrorKind::kValidation;
}

std::string PointedMessage(std::string_view sql, SourcePos pos, std::string_view message) {
  // A node built by hand has no position: point at the statement's start.
  if (!pos.valid()) pos = PositionAt(sql, 0);
  return StrCat(message, " (line ", pos.line, ", column ", pos.column, ")\n",
                CaretLines(sql, pos));
}

}  // namespace

Status ErrorAt(std::string_view sql, SourcePos pos, std::string_view message) {
  return MakeError(KindOfMessage(message), PointedMessage(sql, pos, message));
}

Status ErrorAt(std::string_view sql, SourcePos pos, const Status& cause) {
  if (cause.ok()) return cause;
  return Status(cause.code(), PointedMessage(sql, pos, cause.message()), cause.detail());
}

}  // namespace floe::sql
