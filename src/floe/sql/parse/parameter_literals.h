#pragma once

// A statement parameter's value as the expression that stands in place of its $n: a literal
// of the value's type (5 for an int32, 5L for an int64, DATE '2025-01-02', ...), a CAST of
// one where SQL has no literal of exactly that type (decimal(10, 2), typed NULL), and for an
// untyped value the string literal of its text.

#include <vector>

#include "floe/sql/parse/ast.h"
#include "floe/sql/parse/parser.h"
#include "floe/sql/session.h"

namespace floe::sql {

// `index` is n, for errors naming the parameter.
Result<Expr> ParameterLiteral(const Parameter& parameter, int index);

// Every value in order; `allow_missing` as ParameterValues.
Result<ParameterValues> ParameterLiterals(const std::vector<Parameter>& params, bool allow_missing);

}  // namespace floe::sql
