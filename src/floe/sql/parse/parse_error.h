#pragma once

// Errors that point into SQL text.
//
// Every lexer and parser error is a floe ValidationError whose message has exactly three
// lines: what went wrong with its position, the source line, and a caret under the spot:
//
//   Syntax error at or near 'FORM' (line 1, column 10)
//   SELECT * FORM t
//            ^
//
// The caret line copies tabs from the source line so the caret lines up in a terminal; the
// column counts characters (UTF-8 code points), 1-based. At the end of the input the first
// line reads "Syntax error at end of input (line L, column C)". A hint may follow the token:
// "Syntax error at or near ')': expected an expression (line 1, column 8)".

#include <string>
#include <string_view>

#include "floe/sql/parse/token.h"
#include "floe/util/status.h"

namespace floe::sql {

// The position of byte `offset` in `sql` (line and column counted as SourcePos says).
SourcePos PositionAt(std::string_view sql, int32_t offset);

// "<source line>\n<caret line>" for `pos`.
std::string CaretLines(std::string_view sql, SourcePos pos);

// "<message> (line L, column C)\n<source line>\n<caret line>"; a position a node was not
// given (built by hand) points at the start. The kind is NotFound or AlreadyExists for
// Spark's error classes that say so ("[TABLE_OR_VIEW_NOT_FOUND] ..."), else Validation.
Status ErrorAt(std::string_view sql, SourcePos pos, std::string_view message);
// The same pointer added to an error from below: its code and kind stay, only the message
// changes.
Status ErrorAt(std::string_view sql, SourcePos pos, const Status& cause);

}  // namespace floe::sql
