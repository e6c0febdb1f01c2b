#pragma once

// A floe error as a PostgreSQL ErrorResponse: the SQLSTATE from the error's kind and Spark
// error class, the first line as the message, and the "line L, column C" of syntax and
// binder errors as the 1-based character position in the query text.

#include <string>
#include <string_view>

#include "floe/util/status.h"

namespace floe::server {

struct PgError {
  std::string severity = "ERROR";  // ERROR, FATAL
  std::string code = "XX000";
  std::string message;
  std::string detail;
  int position = 0;  // 1-based characters into the query; 0: none
};

namespace sqlstate {
inline constexpr char kSyntaxError[] = "42601";
inline constexpr char kUndefinedTable[] = "42P01";
inline constexpr char kUndefinedColumn[] = "42703";
inline constexpr char kUndefinedObject[] = "42704";
inline constexpr char kUndefinedFunction[] = "42883";
inline constexpr char kInvalidSchemaName[] = "3F000";
inline constexpr char kDuplicateTable[] = "42P07";
inline constexpr char kDuplicateSchema[] = "42P06";
inline constexpr char kDuplicateColumn[] = "42701";
inline constexpr char kDatatypeMismatch[] = "42804";
inline constexpr char kInvalidParameterValue[] = "22023";
inline constexpr char kSerializationFailure[] = "40001";
inline constexpr char kConnectionFailure[] = "08006";
inline constexpr char kProtocolViolation[] = "08P01";
inline constexpr char kQueryCanceled[] = "57014";
inline constexpr char kOutOfMemory[] = "53200";
inline constexpr char kAdminShutdown[] = "57P01";
inline constexpr char kIdleSessionTimeout[] = "57P05";
inline constexpr char kInvalidPassword[] = "28P01";
inline constexpr char kInvalidAuthorization[] = "28000";
inline constexpr char kInvalidCatalogName[] = "3D000";
inline constexpr char kFeatureNotSupported[] = "0A000";
inline constexpr char kInvalidPreparedStatement[] = "26000";
inline constexpr char kInvalidCursorName[] = "34000";
inline constexpr char kInternalError[] = "XX000";
inline constexpr char kActiveSqlTransaction[] = "25001";
inline constexpr char kInFailedTransaction[] = "25P02";
}  // namespace sqlstate

// What a session hears when the server stops under it.
inline constexpr char kAdminShutdownMessage[] = "terminating connection due to administrator command";

// `sql` is the statement the error came from; `statement_chars` is how many characters of
// the whole query text come before it (for the position).
PgError ErrorFromStatus(const Status& status, std::string_view sql, int statement_chars = 0);

// Appends an ErrorResponse ('E') or NoticeResponse ('N') message.
void AppendErrorResponse(const PgError& error, std::string* out, char type = 'E');

// Characters (UTF-8 code points) in `text`.
int CountChars(std::string_view text);

}  // namespace floe::server
