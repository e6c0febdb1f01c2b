#pragma once

// Splits SQL text into tokens.
//
// - Keywords are not told apart from identifiers here: every unquoted word is a kWord and the
//   parser compares it case-insensitively.
// - `backquoted` identifiers double a backquote to contain one.
// - 'strings' take Spark's backslash escapes (\n \t \r \b \0 \Z \\ \' \" \uXXXX, three-digit
//   octal; \% and \_ keep their backslash for LIKE; any other \c is c) and, unlike Spark,
//   also the ANSI/Trino doubled quote: 'it''s' is it's (Spark would read "its"). R'...' is
//   raw. Adjacent string literals are joined by the parser, as in Spark.
// - "double quoted" text is kept as written between the quotes ("" for one quote); the
//   parser reads it as an identifier where a name is expected (Trino: FROM "t$snapshots")
//   and as a string literal elsewhere (Spark's default).
// - Numbers as Spark: 42, 42L, 42S, 42Y, 1.5, .5, 1.5BD, 1e3, 1.5D, 1.5F (suffixes in either
//   case). A number run into letters ("1x", "1e") is an error.
// - $1, $2, ... are statement parameters (kParameter), bound to values by the session.
// - Comments: -- to end of line, /* ... */ (nested, as Spark).

#include <string_view>
#include <vector>

#include "floe/sql/parse/token.h"
#include "floe/util/status.h"

namespace floe::sql {

// Tokens of `sql`, ending with one kEnd token at the end of the text. Tokens refer into
// `sql` (Token::raw), which must outlive them.
Result<std::vector<Token>> Lex(std::string_view sql);

// Decodes the body of a quoted string literal (between the quotes) by the rules above.
std::string DecodeStringBody(std::string_view body, char quote);

}  // namespace floe::sql
