#pragma once

// SQL text -> AST (ast.h). The dialect is Spark SQL as used with Iceberg 1.10, plus the
// Trino forms floe accepts (FOR VERSION / FOR TIMESTAMP AS OF, "double quoted" table names,
// ALTER TABLE ... EXECUTE). Errors are ValidationErrors in the exact three-line format that
// parse_error.h documents, for example:
//
//   Syntax error at or near 'FORM' (line 1, column 10)
//   SELECT * FORM t
//            ^
//
// Other positioned errors: "Unterminated string literal", "Unterminated comment",
// "Invalid number '1x'", "Numeric literal 300 is out of range for TINYINT",
// "SQL nested too deeply (more than 256 levels)", ...
//
// Double-quoted text is an identifier where only a name can stand (table, namespace and
// procedure names, column definitions, aliases after AS, name parts after a dot) and a
// string literal in expressions, as in Spark. So FROM "t$snapshots" names a table and
// WHERE c = "x" compares with a string.

#include <string>
#include <string_view>
#include <vector>

#include "floe/sql/parse/ast.h"
#include "floe/util/status.h"

namespace floe::sql {

// Deeper input (nested parentheses, subqueries, nested types, set-operation and join
// chains) is rejected with an error rather than risking the stack, in the parser and in
// the recursive walks (printing, copying, destroying) that consumers do on the tree. A flat
// chain of binary operators (a OR b OR ...) counts one level per 8 operators, so trees stay
// under about 2,000 levels. At the limit parsing needs about 1 MiB of stack in an optimized
// build (4 MiB under ASan at -O0).
inline constexpr int kMaxParseDepth = 256;

// Exactly one statement; a trailing ';' is allowed.
Result<Statement> ParseStatement(std::string_view sql);

// Values for the $n parameters of a statement, each as the expression that stands in its
// place (a literal, or a CAST of one for types without a literal form).
struct ParameterValues {
  std::vector<Expr> values;  // values[i] is $(i+1)
  // A $n beyond `values` stays a ParameterRef (describing a statement) instead of failing
  // with "Parameter $n was not given a value".
  bool allow_missing = false;
};
Result<Statement> ParseStatement(std::string_view sql, const ParameterValues& parameters);

// One statement as it stands in a script.
struct ScriptStatement {
  Statement statement;
  std::string text;  // its source text, without the ';'
  SourcePos pos;     // where it starts in the script
};

// Statements separated by ';' where SplitStatements (statement_splitter.h) cuts them, empty
// ones skipped. Positions in errors refer to the whole script.
Result<std::vector<ScriptStatement>> ParseScript(std::string_view sql);

// A single expression / data type, for tests and for callers that take SQL fragments.
Result<Expr> ParseExpression(std::string_view sql);
Result<DataType> ParseDataType(std::string_view sql);

}  // namespace floe::sql
