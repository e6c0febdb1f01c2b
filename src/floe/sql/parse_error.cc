#include "floe/sql/parse_error.h"

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
  size_t begin = sql.rfind('\n', offset == 0 ? std::string_view::npos : offset - 1);
  begin = begin == std::string_view::npos ? 0 : begin + 1;
  if (offset > 0 && offset <= sql.size() && sql[offset - 1] == '\n') begin = offset;
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

Status ErrorAt(std::string_view sql, SourcePos pos, std::string_view message) {
  return ValidationError(message, " (line ", pos.line, ", column ", pos.column, ")\n",
                         CaretLines(sql, pos));
}

}  // namespace floe::sql
