#include "floe/server/sql_state.h"

#include <cstdlib>
#include <regex>

#include "floe/server/pg_message.h"

namespace floe::server {

namespace {

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The SQLSTATE for a Spark error class ("[TABLE_OR_VIEW_NOT_FOUND] ..."), or empty.
std::string FromErrorClass(std::string_view message) {
  if (!StartsWith(message, "[")) return "";
  size_t end = message.find(']');
  if (end == std::string_view::npos) return "";
  std::string_view cls = message.substr(1, end - 1);
  cls = cls.substr(0, cls.find('.'));
  struct Entry {
    std::string_view cls;
    const char* code;
  };
  static constexpr Entry kEntries[] = {
      {"TABLE_OR_VIEW_NOT_FOUND", sqlstate::kUndefinedTable},
      {"SCHEMA_NOT_FOUND", sqlstate::kInvalidSchemaName},
      {"UNRESOLVED_COLUMN", sqlstate::kUndefinedColumn},
      {"CANNOT_RESOLVE_STAR_EXPAND", sqlstate::kUndefinedColumn},
      {"UNRESOLVED_ROUTINE", sqlstate::kUndefinedFunction},
      {"WRONG_NUM_ARGS", sqlstate::kUndefinedFunction},
      {"TABLE_OR_VIEW_ALREADY_EXISTS", sqlstate::kDuplicateTable},
      {"SCHEMA_ALREADY_EXISTS", sqlstate::kDuplicateSchema},
      {"COLUMN_ALREADY_EXISTS", sqlstate::kDuplicateColumn},
      {"SCHEMA_NOT_EMPTY", "2BP01"},
      {"DATATYPE_MISMATCH", sqlstate::kDatatypeMismatch},
      {"AMBIGUOUS_REFERENCE", "42702"},
      {"MISSING_AGGREGATION", "42803"},
      {"MISSING_GROUP_BY", "42803"},
      {"DIVIDE_BY_ZERO", "22012"},
      {"CAST_OVERFLOW_IN_TABLE_INSERT", "22003"},
      {"INTERVAL_ARITHMETIC_OVERFLOW", "22015"},
      {"INVALID_INTERVAL_FORMAT", "22007"},
      {"SCALAR_SUBQUERY_TOO_MANY_ROWS", "21000"},
      {"MERGE_CARDINALITY_VIOLATION", "21000"},
      {"NULL_MAP_KEY", "22004"},
      {"INSERT_COLUMN_ARITY_MISMATCH", "42601"},
      {"NUM_COLUMNS_MISMATCH", "42601"},
  };
  for (const Entry& e : kEntries) {
    if (cls == e.cls) return e.code;
  }
  return "";
}

// The byte offset of 1-based (line, column) in `sql`, columns counting code points.
size_t ByteOffsetOf(std::string_view sql, int line, int column) {
  size_t i = 0;
  for (int l = 1; l < line && i < sql.size(); ++i) {
    if (sql[i] == '\n') ++l;
  }
  for (int c = 1; c < column && i < sql.size();) {
    ++i;
    while (i < sql.size() && (static_cast<unsigned char>(sql[i]) & 0xC0) == 0x80) ++i;
    ++c;
  }
  return std::min(i, sql.size());
}

}  // namespace

int CountChars(std::string_view text) {
  int n = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

PgError ErrorFromStatus(const Status& status, std::string_view sql, int statement_chars) {
  PgError error;
  const std::string& full = status.message();
  size_t newline = full.find('\n');
  std::string first = full.substr(0, newline);
  error.message = first;
  // A "(line L, column C)" pointer: the caret lines after it are for terminals; PostgreSQL
  // clients draw their own from the position.
  static const std::regex kPointer(R"( \(line (\d+), column (\d+)\)$)");
  std::smatch match;
  bool pointed = std::regex_search(first, match, kPointer);
  if (pointed) {
    int line = std::atoi(match[1].str().c_str());
    int column = std::atoi(match[2].str().c_str());
    error.message = first.substr(0, static_cast<size_t>(match.position(0)));
    size_t offset = ByteOffsetOf(sql, line, column);
    error.position = statement_chars + CountChars(sql.substr(0, offset)) + 1;
  } else if (newline != std::string::npos) {
    error.detail = full.substr(newline + 1);
  }
  std::string code = FromErrorClass(error.message);
  if (code.empty()) {
    if (status.IsCancelled()) {
      code = sqlstate::kQueryCanceled;
    } else if (status.IsOutOfMemory()) {
      code = sqlstate::kOutOfMemory;
    } else {
      switch (KindOf(status)) {
        case ErrorKind::kNotFound:
          code = error.message.find("amespace") != std::string::npos ||
                         error.message.find("chema") != std::string::npos
                     ? sqlstate::kInvalidSchemaName
                     : sqlstate::kUndefinedTable;
          break;
        case ErrorKind::kAlreadyExists:
          code = sqlstate::kDuplicateTable;
          break;
        case ErrorKind::kValidation:
          code = StartsWith(error.message, "Syntax error") ||
                         StartsWith(error.message, "Unterminated") ||
                         StartsWith(error.message, "Unexpected")
                     ? sqlstate::kSyntaxError
                     : sqlstate::kInvalidParameterValue;
          break;
        case ErrorKind::kCommitConflict:
          code = sqlstate::kSerializationFailure;
          break;
        case ErrorKind::kCommitStateUnknown:
          code = sqlstate::kConnectionFailure;
          break;
        case ErrorKind::kOther:
          code = status.IsNotImplemented() ? sqlstate::kFeatureNotSupported
                 : status.IsInvalid()      ? sqlstate::kInvalidParameterValue
                                           : sqlstate::kInternalError;
          break;
      }
    }
  }
  error.code = code;
  return error;
}

void AppendErrorResponse(const PgError& error, std::string* out, char type) {
  MessageBuilder m(out, type);
  m.Byte('S').CString(error.severity);
  m.Byte('V').CString(error.severity);
  m.Byte('C').CString(error.code);
  m.Byte('M').CString(error.message);
  if (!error.detail.empty()) m.Byte('D').CString(error.detail);
  if (error.position > 0) m.Byte('P').CString(std::to_string(error.position));
  m.Byte('\0');
  m.Finish();
}

}  // namespace floe::server
